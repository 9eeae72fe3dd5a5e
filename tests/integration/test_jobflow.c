/* Volcano's JobFlow against a real jobserver: a five-step diamond (a -> b, c -> d -> e) run in the
 * order of its dependencies with Volcano's status counts, an output passed from a step to the next,
 * a failing middle step stopping its dependents and failing the flow by name, its retry keeping the
 * completed steps' jobs, steps started by httpGet and tcpSocket probes once their target's task
 * listens, and cycles, missing targets and templates refused naming the field. */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define FLOWS "/apis/flow.volcano.sh/v1alpha1/namespaces/default/jobflows"
#define TEMPLATES "/apis/flow.volcano.sh/v1alpha1/namespaces/default/jobtemplates"
#define JOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
#define WAIT_MS 60000

static const char *const args[] = {"--nodes", "examples/nodes.yaml", NULL};

static long post(const struct test_server *s, const char *path, const char *yaml, json_t **answer)
{
    long code = 0;
    json_t *r = server_request(s, "POST", path, yaml, "application/yaml", &code);
    if (answer)
        *answer = r;
    else
        json_decref(r);
    return code;
}

static long post_template(const struct test_server *s, const char *name, const char *script)
{
    char buf[2048];
    snprintf(buf, sizeof buf,
             "apiVersion: flow.volcano.sh/v1alpha1\nkind: JobTemplate\nmetadata:\n  name: %s\nspec:\n  tasks:\n"
             "  - name: t\n    replicas: 1\n    template:\n      spec:\n        restartPolicy: Never\n"
             "        containers:\n        - name: c\n          command: [\"sh\", \"-c\", \"%s\"]\n",
             name, script);
    return post(s, TEMPLATES, buf, NULL);
}

static long long ms_of(const char *rfc3339)
{
    struct tm tm = {0};
    int ms = 0;
    if (!rfc3339 || sscanf(rfc3339, "%d-%d-%dT%d:%d:%d.%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                           &tm.tm_min, &tm.tm_sec, &ms) < 6)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (long long)timegm(&tm) * 1000 + ms;
}

/* The first attempt's start and finish of job name, from its history. */
static void step_times(const struct test_server *s, const char *name, long long *start, long long *end)
{
    json_t *h = job_history(s, name);
    *start = ms_of(jv_str(h, "attempts.0.startTime"));
    *end = ms_of(jv_str(h, "attempts.0.finishTime"));
    json_decref(h);
}

static int count(json_t *flow, const char *list) { return (int)json_array_size(server_json_at(flow, list)); }

static void diamond_runs_in_order_and_passes_outputs(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    /* each step notes when its process began and ended, in a file of the test's */
    char log[128], script[512];
    snprintf(log, sizeof log, "/tmp/caldera-flow-order-%d", (int)getpid());
    unlink(log);
    static const char *const steps[] = {"a", "b", "c", "d", "e"};
    static const char *const work[] = {"echo hello > msg.txt;", "test \\\"$CALDERA_INPUT_A_MSG\\\" = hello &&", "", "",
                                       ""};
    for (int i = 0; i < 5; i++) {
        snprintf(script, sizeof script,
                 "echo %s start $(date +%%s%%N) >> %s; %s sleep 0.3; echo %s end $(date +%%s%%N) >> %s", steps[i], log,
                 work[i], steps[i], log);
        CHECK_INT(post_template(&s, steps[i], script), 201);
    }
    const char *flow =
        "apiVersion: flow.volcano.sh/v1alpha1\nkind: JobFlow\nmetadata:\n  name: dia\nspec:\n"
        "  jobRetainPolicy: retain\n  flows:\n"
        "  - name: a\n    outputs:\n    - name: msg\n      path: msg.txt\n"
        "  - name: b\n    dependsOn:\n      targets: [a]\n"
        "  - name: c\n    dependsOn:\n      targets: [a]\n"
        "  - name: d\n    dependsOn:\n      targets: [b, c]\n"
        "  - name: e\n    dependsOn:\n      targets: [d]\n";
    CHECK_INT(post(&s, FLOWS, flow, NULL), 201);
    /* every moment: jobs exist only for steps whose targets completed; the counts add up */
    int most = 0;
    for (int waited = 0; waited < WAIT_MS; waited += 100) {
        json_t *f = server_request(&s, "GET", FLOWS "/dia", NULL, NULL, NULL);
        int made = (int)json_array_size(server_json_at(f, "status.jobStatusList"));
        int sum = count(f, "status.pendingJobs") + count(f, "status.runningJobs") + count(f, "status.completedJobs") +
                  count(f, "status.failedJobs") + count(f, "status.terminatedJobs") + count(f, "status.unKnowJobs");
        CHECK(sum <= made);
        CHECK_INT(count(f, "status.failedJobs"), 0);
        if (made > most)
            most = made;
        const char *phase = jv_str(f, "status.state.phase");
        bool done = phase && strcmp(phase, "Succeed") == 0;
        if (done)
            CHECK_INT(count(f, "status.completedJobs"), 5);
        json_decref(f);
        if (done)
            break;
        usleep(100000);
    }
    CHECK_INT(most, 5);
    CHECK_INT(server_wait_field(&s, FLOWS "/dia", "status.state.phase", "Succeed", 1000), 0);
    json_t *f = server_request(&s, "GET", FLOWS "/dia", NULL, NULL, NULL);
    CHECK_STR(jv_str(f, "status.jobStatusList.0.outputs.msg"), "hello");
    json_decref(f);
    /* the order: from the jobs' history, each attempt starts after its targets' attempts started and
     * ran their 0.3 s; from the processes' own notes, after its targets' processes ended */
    long long as, ae, bs, be, cs, ce, ds, de, es, ee;
    step_times(&s, "dia-a", &as, &ae);
    step_times(&s, "dia-b", &bs, &be);
    step_times(&s, "dia-c", &cs, &ce);
    step_times(&s, "dia-d", &ds, &de);
    step_times(&s, "dia-e", &es, &ee);
    CHECK(as > 0 && ae > 0 && ee > 0);
    CHECK(bs >= as + 300 && cs >= as + 300);
    CHECK(ds >= bs + 300 && ds >= cs + 300);
    CHECK(es >= ds + 300);
    long long began[5] = {0}, ended[5] = {0};
    FILE *fp = fopen(log, "r");
    REQUIRE(fp);
    char step[8], what[8];
    long long ns;
    while (fscanf(fp, "%7s %7s %lld", step, what, &ns) == 3)
        if (step[0] >= 'a' && step[0] <= 'e' && strcmp(what, "start") == 0)
            began[step[0] - 'a'] = ns;
        else if (step[0] >= 'a' && step[0] <= 'e')
            ended[step[0] - 'a'] = ns;
    fclose(fp);
    unlink(log);
    for (int i = 0; i < 5; i++)
        CHECK(began[i] > 0 && ended[i] > began[i]);
    CHECK(began[1] > ended[0] && began[2] > ended[0]);
    CHECK(began[3] > ended[1] && began[3] > ended[2]);
    CHECK(began[4] > ended[3]);
    json_t *job = job_get(&s, "dia-b");
    CHECK_STR(jv_str(job, "metadata.ownerReferences.0.kind"), "JobFlow");
    CHECK_STR(json_string_value(json_object_get(jv_at(job, "metadata.labels"), "volcano.sh/createdByJobTemplate")),
              "default.b");
    json_decref(job);
    json_t *t = server_request(&s, "GET", TEMPLATES "/a", NULL, NULL, NULL);
    CHECK_STR(jv_str(t, "status.jobDependsOnList.0"), "dia-a");
    json_decref(t);
    /* deleting a retained flow keeps its jobs */
    long code = 0;
    json_decref(server_request(&s, "DELETE", FLOWS "/dia", NULL, NULL, &code));
    CHECK_INT(code, 200);
    json_t *gone = api_get(&s, JOBS "/%s", "dia-e", &code);
    CHECK_INT(code, 200);
    json_decref(gone);
    server_stop(&s);
    server_cleanup(&s);
}

static void failed_step_stops_dependents_and_retry_keeps_completed(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    char fix[256], script[512];
    snprintf(fix, sizeof fix, "/tmp/caldera-flow-fix-%d", (int)getpid());
    unlink(fix);
    snprintf(script, sizeof script, "test -f %s", fix);
    CHECK_INT(post_template(&s, "a", "true"), 201);
    CHECK_INT(post_template(&s, "x", script), 201);
    CHECK_INT(post_template(&s, "e", "true"), 201);
    const char *flow =
        "apiVersion: flow.volcano.sh/v1alpha1\nkind: JobFlow\nmetadata:\n  name: bad\nspec:\n  flows:\n"
        "  - name: a\n"
        "  - name: x\n    dependsOn:\n      targets: [a]\n"
        "  - name: e\n    dependsOn:\n      targets: [x]\n";
    CHECK_INT(post(&s, FLOWS, flow, NULL), 201);
    CHECK_INT(server_wait_field(&s, FLOWS "/bad", "status.state.phase", "Failed", WAIT_MS), 0);
    json_t *f = server_request(&s, "GET", FLOWS "/bad", NULL, NULL, NULL);
    CHECK_CONTAINS(jv_str(f, "status.state.message"), "flow x failed");
    CHECK_STR(jv_str(f, "status.failedJobs.0"), "bad-x");
    CHECK_INT(count(f, "status.completedJobs"), 1);
    json_decref(f);
    usleep(1500000); /* a second on: e still never started */
    long code = 0;
    json_decref(api_get(&s, JOBS "/%s", "bad-e", &code));
    CHECK_INT(code, 404);
    json_t *a = job_get(&s, "bad-a");
    char a_uid[64];
    snprintf(a_uid, sizeof a_uid, "%s", jv_str(a, "metadata.uid"));
    json_decref(a);
    /* retry before the fix is allowed only when Failed; fix, then retry */
    FILE *fp = fopen(fix, "w");
    REQUIRE(fp);
    fclose(fp);
    char *out = NULL;
    CHECK_INT(server_jobctl(&s, (const char *const[]){"flow", "get", "bad", NULL}, &out, NULL), 0);
    CHECK_CONTAINS(out, "flow x failed");
    CHECK_CONTAINS(out, "bad-e");
    free(out);
    CHECK_INT(server_jobctl(&s, (const char *const[]){"flow", "retry", "bad", NULL}, &out, NULL), 0);
    CHECK_CONTAINS(out, "retried");
    free(out);
    CHECK_INT(server_wait_field(&s, FLOWS "/bad", "status.state.phase", "Succeed", WAIT_MS), 0);
    f = server_request(&s, "GET", FLOWS "/bad", NULL, NULL, NULL);
    CHECK_INT((int)jv_num(f, "status.retryCount"), 1);
    CHECK_INT(count(f, "status.completedJobs"), 3);
    json_decref(f);
    a = job_get(&s, "bad-a");
    CHECK_STR(jv_str(a, "metadata.uid"), a_uid); /* not run again */
    json_decref(a);
    json_t *r = server_request(&s, "POST", "/apis/caldera.io/v1/namespaces/default/jobflows/bad/retry", NULL, NULL,
                               &code);
    CHECK_INT(code, 409);
    json_decref(r);
    unlink(fix);
    server_stop(&s);
    server_cleanup(&s);
}

/* A port of 127.0.0.1 free now (the kernel's pick for port 0), or 0. */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    int port = 0;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
        getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
        port = ntohs(sa.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

/* The server step's program: a second asleep, then an HTTP server on argv[1] answering 200 to GET
 * /ready with X-Probe: flow (500 otherwise) and a TCP listener on argv[2]; it notes when both listen. */
static const char *server_py =
    "import http.server, socket, sys, threading, time\n"
    "time.sleep(1)\n"
    "class H(http.server.BaseHTTPRequestHandler):\n"
    "    def do_GET(self):\n"
    "        ok = self.path == '/ready' and self.headers.get('X-Probe') == 'flow'\n"
    "        self.send_response(200 if ok else 500)\n"
    "        self.end_headers()\n"
    "    def log_message(self, *a):\n"
    "        pass\n"
    "srv = http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), H)\n"
    "tcp = socket.socket()\n"
    "tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
    "tcp.bind(('127.0.0.1', int(sys.argv[2])))\n"
    "tcp.listen(16)\n"
    "threading.Thread(target=lambda: [tcp.accept()[0].close() for _ in iter(int, 1)], daemon=True).start()\n"
    "with open(sys.argv[3], 'a') as f:\n"
    "    f.write('server listen %d\\n' % time.time_ns())\n"
    "srv.serve_forever()\n";

/* The note "<who> <what> <ns>" of log, or 0. */
static long long noted(const char *log, const char *who)
{
    FILE *fp = fopen(log, "r");
    char name[32], what[16];
    long long ns, at = 0;
    while (fp && fscanf(fp, "%31s %15s %lld", name, what, &ns) == 3)
        if (strcmp(name, who) == 0)
            at = ns;
    if (fp)
        fclose(fp);
    return at;
}

static void network_probes_start_steps_once_the_port_answers(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    char log[128], py[128], script[512];
    snprintf(log, sizeof log, "/tmp/caldera-flow-probe-%d", (int)getpid());
    snprintf(py, sizeof py, "/tmp/caldera-flow-probe-%d.py", (int)getpid());
    unlink(log);
    FILE *fp = fopen(py, "w");
    REQUIRE(fp);
    fputs(server_py, fp);
    fclose(fp);
    int http_port = free_port(), tcp_port = free_port();
    REQUIRE(http_port > 0 && tcp_port > 0 && http_port != tcp_port);
    snprintf(script, sizeof script, "exec python3 %s %d %d %s", py, http_port, tcp_port, log);
    CHECK_INT(post_template(&s, "server", script), 201);
    snprintf(script, sizeof script, "echo client-http start $(date +%%s%%N) >> %s", log);
    CHECK_INT(post_template(&s, "client-http", script), 201);
    snprintf(script, sizeof script, "echo client-tcp start $(date +%%s%%N) >> %s", log);
    CHECK_INT(post_template(&s, "client-tcp", script), 201);
    char flow[2048];
    snprintf(flow, sizeof flow,
             "apiVersion: flow.volcano.sh/v1alpha1\nkind: JobFlow\nmetadata:\n  name: net\nspec:\n  flows:\n"
             "  - name: server\n"
             "  - name: client-http\n    dependsOn:\n      targets: [server]\n      probe:\n        httpGetList:\n"
             "        - {taskName: t, port: %d, path: /ready, httpHeader: {name: X-Probe, value: flow}}\n"
             "  - name: client-tcp\n    dependsOn:\n      targets: [server]\n      probe:\n        tcpSocketList:\n"
             "        - {taskName: t, port: %d}\n",
             http_port, tcp_port);
    CHECK_INT(post(&s, FLOWS, flow, NULL), 201);
    CHECK_INT(job_wait(&s, "net-client-http", "status.state.phase", "Completed", WAIT_MS), 0);
    CHECK_INT(job_wait(&s, "net-client-tcp", "status.state.phase", "Completed", WAIT_MS), 0);
    /* the server still runs: the dependents started beside it, not after it */
    json_t *job = job_get(&s, "net-server");
    CHECK_STR(jv_str(job, "status.state.phase"), "Running");
    json_decref(job);
    long long listen = noted(log, "server"), http = noted(log, "client-http"), tcp = noted(log, "client-tcp");
    CHECK(listen > 0 && http > 0 && tcp > 0);
    CHECK(http > listen); /* not before the port answered */
    CHECK(tcp > listen);
    json_t *f = server_request(&s, "GET", FLOWS "/net", NULL, NULL, NULL);
    CHECK_STR(jv_str(f, "status.state.phase"), "Running");
    CHECK_INT(count(f, "status.completedJobs"), 2);
    json_decref(f);
    long code = 0;
    json_decref(server_request(&s, "DELETE", FLOWS "/net", NULL, NULL, &code));
    CHECK_INT(code, 200);
    unlink(log);
    unlink(py);
    server_stop(&s);
    server_cleanup(&s);
}

static void refusals_name_the_field(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    CHECK_INT(post_template(&s, "a", "true"), 201);
    CHECK_INT(post_template(&s, "b", "true"), 201);
    json_t *r;
    const char *cycle =
        "apiVersion: flow.volcano.sh/v1alpha1\nkind: JobFlow\nmetadata:\n  name: cyc\nspec:\n  flows:\n"
        "  - name: a\n    dependsOn:\n      targets: [b]\n"
        "  - name: b\n    dependsOn:\n      targets: [a]\n";
    CHECK_INT(post(&s, FLOWS, cycle, &r), 422);
    CHECK_CONTAINS(jv_str(r, "details.causes.0.field"), "dependsOn.targets[0]");
    CHECK_CONTAINS(jv_str(r, "details.causes.0.message"), "cycle");
    json_decref(r);
    const char *missing =
        "apiVersion: flow.volcano.sh/v1alpha1\nkind: JobFlow\nmetadata:\n  name: mis\nspec:\n"
        "  flows:\n  - name: a\n    dependsOn:\n      targets: [zz]\n";
    CHECK_INT(post(&s, FLOWS, missing, &r), 422);
    CHECK_STR(jv_str(r, "details.causes.0.field"), "spec.flows[0].dependsOn.targets[0]");
    json_decref(r);
    const char *no_template =
        "apiVersion: flow.volcano.sh/v1alpha1\nkind: JobFlow\nmetadata:\n  name: nt\nspec:\n"
        "  flows:\n  - name: a\n  - name: nope\n";
    CHECK_INT(post(&s, FLOWS, no_template, &r), 422);
    CHECK_STR(jv_str(r, "details.causes.0.field"), "spec.flows[1].name");
    json_decref(r);
    const char *bad_port =
        "apiVersion: flow.volcano.sh/v1alpha1\nkind: JobFlow\nmetadata:\n  name: bp\nspec:\n  flows:\n  - name: a\n"
        "  - name: b\n    dependsOn:\n      targets: [a]\n      probe:\n        tcpSocketList: [{taskName: t, port: "
        "0}]\n";
    CHECK_INT(post(&s, FLOWS, bad_port, &r), 422);
    CHECK_STR(jv_str(r, "details.causes.0.field"), "spec.flows[1].dependsOn.probe.tcpSocketList[0].port");
    json_decref(r);
    long code = 0;
    json_decref(api_get(&s, FLOWS "/%s", "cyc", &code));
    CHECK_INT(code, 404);
    /* jobctl flow submit: a template and a flow from one file; delete stops and deletes its jobs */
    char file[128];
    snprintf(file, sizeof file, "/tmp/caldera-flow-%d.yaml", (int)getpid());
    FILE *fp = fopen(file, "w");
    REQUIRE(fp);
    fputs(
        "apiVersion: flow.volcano.sh/v1alpha1\nkind: JobTemplate\nmetadata:\n  name: slow\nspec:\n  tasks:\n"
        "  - name: t\n    replicas: 1\n    template:\n      spec:\n        containers:\n        - name: c\n"
        "          command: [sleep, \"600\"]\n---\n"
        "apiVersion: flow.volcano.sh/v1alpha1\nkind: JobFlow\nmetadata:\n  name: long\nspec:\n"
        "  jobRetainPolicy: delete\n  flows:\n  - name: slow\n",
        fp);
    fclose(fp);
    char *out = NULL;
    CHECK_INT(server_jobctl(&s, (const char *const[]){"flow", "submit", file, NULL}, &out, NULL), 0);
    CHECK_CONTAINS(out, "jobflow.flow.volcano.sh/long created");
    free(out);
    unlink(file);
    CHECK_INT(job_wait(&s, "long-slow", "status.state.phase", "Running", WAIT_MS), 0);
    CHECK_INT(server_jobctl(&s, (const char *const[]){"flow", "get", NULL}, &out, NULL), 0);
    CHECK_CONTAINS(out, "long");
    free(out);
    CHECK_INT(server_jobctl(&s, (const char *const[]){"flow", "delete", "long", NULL}, NULL, NULL), 0);
    json_decref(api_get(&s, JOBS "/%s", "long-slow", &code));
    CHECK_INT(code, 404);
    bool ended = false; /* stopped: its attempt ends within the grace period */
    for (int waited = 0; waited < 20000 && !ended; waited += 100) {
        json_t *h = job_history(&s, "long-slow");
        ended = jv_str(h, "attempts.0.finishTime") != NULL;
        json_decref(h);
        usleep(100000);
    }
    CHECK(ended);
    /* discovery lists both kinds */
    json_t *d = server_request(&s, "GET", "/apis/flow.volcano.sh/v1alpha1", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_INT((int)json_array_size(json_object_get(d, "resources")) >= 2, 1);
    json_decref(d);
    server_stop(&s);
    server_cleanup(&s);
}

TEST_MAIN(TEST_CASE(refusals_name_the_field), TEST_CASE(diamond_runs_in_order_and_passes_outputs),
          TEST_CASE(failed_step_stops_dependents_and_retry_keeps_completed),
          TEST_CASE(network_probes_start_steps_once_the_port_answers))
