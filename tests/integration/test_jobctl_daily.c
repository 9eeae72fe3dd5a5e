/* jobctl as researchers use it every day, against a real server: -o yaml/wide/name on the read
 * commands, a pending job's reason in get and describe, describe's attempts and events, logs of a
 * whole job, a start error instead of a bare 404 (jobctl and the log API), logs -f across restarts
 * (the API's ?follow=true), actions a phase cannot take (409), run with --per-day and --wait's
 * progress, the settings file and `config view`, the bash completion script sourced in bash, and
 * kubectl's words in get, describe and logs (get jobs, get pods JOB, describe job/NAME, logs pod/NAME). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/sbuf.h"
#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define WAIT_MS 30000
#define PODS "/api/v1/namespaces/default/pods"
#define CAL_JOBS "/apis/caldera.io/v1/namespaces/default/jobs"

static struct test_server server;
static bool up, failed;

static bool ensure_server(void)
{
    static const char *const args[] = {"--shutdown-grace", "2", NULL};
    if (!up && !failed) {
        failed = server_start(&server, NULL, args) != 0;
        up = !failed;
    }
    return up;
}

/* jobctl args... (NULL-terminated): exit status, stdout and stderr (never NULL; caller frees). */
static int ctl(char **out, char **err, const char *const *args)
{
    *out = *err = NULL;
    int rc = server_jobctl(&server, args, out, err);
    if (!*out)
        *out = strdup("");
    if (!*err)
        *err = strdup("");
    return rc;
}

#define CTL(out, err, ...) ctl(out, err, (const char *const[]){__VA_ARGS__, NULL})

/* A shell command's stdout (bash -c), the test's environment plus env_assign ("A=b C=d" or "");
 * never NULL. */
static char *shell(const char *env_assign, const char *script)
{
    char path[] = "/tmp/jobctl-daily-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return strdup("");
    FILE *f = fdopen(fd, "w");
    fputs(script, f);
    fclose(f);
    struct sbuf cmd = {0}, out = {0};
    sbuf_printf(&cmd, "%s bash %s 2>&1", env_assign, path);
    FILE *p = popen(sbuf_str(&cmd), "r");
    char buf[4096];
    size_t n;
    while (p && (n = fread(buf, 1, sizeof buf, p)) > 0)
        sbuf_append(&out, buf, n);
    if (p)
        pclose(p);
    unlink(path);
    sbuf_free(&cmd);
    char *text = sbuf_take(&out);
    return text ? text : strdup("");
}

static const char *jobctl_bin(void)
{
    const char *b = getenv("CALDERA_JOBCTL");
    return b && *b ? b : "build/asan/bin/jobctl";
}

static void output_formats_on_read_commands(void)
{
    REQUIRE(ensure_server());
    REQUIRE(job_submit(&server, "fmt", "", TASK("t", 2, "", "'echo hello'", "")) == 201);
    REQUIRE(job_wait(&server, "fmt", "status.state.phase", "Completed", WAIT_MS) == 0);
    char *out, *err;
    CHECK_INT(CTL(&out, &err, "get", "fmt", "-o", "yaml"), 0);
    CHECK(strncmp(out, "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: fmt\n", 68) == 0);
    CHECK_CONTAINS(out, "\n    phase: Completed\n");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "get", "-o", "yaml"), 0);
    CHECK_CONTAINS(out, "kind: JobList\n");
    CHECK_CONTAINS(out, "\nitems:\n- apiVersion: batch.volcano.sh/v1alpha1\n");
    CHECK_CONTAINS(out, "- name: t\n");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "get", "-o", "wide"), 0);
    CHECK_CONTAINS(out, "QUEUE");
    CHECK_CONTAINS(out, "VERSION");
    CHECK_CONTAINS(out, "default");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "get", "-o", "name"), 0);
    CHECK_CONTAINS(out, "job.batch.volcano.sh/fmt\n");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "pods", "fmt", "-o", "wide"), 0);
    CHECK_CONTAINS(out, "RESTARTS   IP");
    CHECK_CONTAINS(out, "fmt-t-1");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "pods", "fmt", "-o", "name"), 0);
    CHECK_STR(out, "pod/fmt-t-0\npod/fmt-t-1\n");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "queues", "-o", "yaml"), 0);
    CHECK_CONTAINS(out, "kind: QueueList\n");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "queues", "-o", "wide"), 0);
    CHECK_CONTAINS(out, "RECLAIMABLE");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "nodes", "-o", "wide"), 0);
    CHECK_CONTAINS(out, "INTERNAL-IP");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "nodes", "-o", "yaml"), 0);
    CHECK_CONTAINS(out, "kind: NodeList\n");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "history", "fmt", "-o", "yaml"), 0);
    CHECK_CONTAINS(out, "kind: JobHistory\n");
    CHECK_CONTAINS(out, "attempts:\n");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "history", "-o", "wide"), 0);
    CHECK_CONTAINS(out, "UID");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "events", "fmt"), 0);
    CHECK_CONTAINS(out, "LAST SEEN");
    CHECK_CONTAINS(out, "job/fmt");
    CHECK_CONTAINS(out, "pod/fmt-t-0");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "events", "fmt", "-o", "yaml"), 0);
    CHECK_CONTAINS(out, "kind: EventList\n");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "describe", "fmt", "-o", "json"), 0);
    json_t *d = json_loads(out, 0, NULL);
    CHECK_STR(jv_str(d, "job.metadata.name"), "fmt");
    CHECK_INT(json_array_size(jv_at(d, "pods")), 2);
    CHECK_INT(json_array_size(jv_at(d, "history.attempts")), 2);
    CHECK(json_array_size(jv_at(d, "events")) > 0);
    json_decref(d);
    free(out);
    free(err);
}

static void pending_reason_in_get_and_describe(void)
{
    REQUIRE(ensure_server());
    REQUIRE(job_submit(&server, "huge", "",
                       TASK("t", 1, "", "'sleep 100'", "          resources: {requests: {cpu: \"1000\"}}\n")) == 201);
    REQUIRE(job_wait(&server, "huge", "status.state.reason", "Unschedulable", WAIT_MS) == 0);
    char *out, *err;
    CHECK_INT(CTL(&out, &err, "get"), 0);
    CHECK_CONTAINS(out, "REASON\n");
    CHECK_CONTAINS(out, "pod group is Pending: the cluster cannot hold");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "get", "huge"), 0);
    CHECK_CONTAINS(out, "\nReason: pod group is Pending: the cluster cannot hold the job's minimum");
    CHECK_CONTAINS(out, "cpu 1000 needed");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "describe", "huge"), 0);
    CHECK_CONTAINS(out, "Name:           huge\n");
    CHECK_CONTAINS(out, "Phase:          Pending\n");
    CHECK_CONTAINS(out, "Pending Reason: pod group is Pending: the cluster cannot hold");
    CHECK_CONTAINS(out, "cpu=1000");
    CHECK_CONTAINS(out, "sleep 100");
    CHECK_CONTAINS(out, "Attempts:       <none>\n");
    CHECK_CONTAINS(out, "Unschedulable   podgroup/huge-"); /* <job>-<uid>, as Volcano names it */
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "delete", "huge"), 0);
    free(out);
    free(err);
}

static void logs_of_a_job_and_a_start_error(void)
{
    REQUIRE(ensure_server());
    REQUIRE(job_submit(&server, "pair", "", TASK("w", 2, "", "'echo one; echo two from $VC_TASK_INDEX'", "")) == 201);
    REQUIRE(job_submit(&server, "noexe", "",
                       "  - name: t\n    replicas: 1\n    template:\n      spec:\n        containers:\n"
                       "        - name: c\n          command: [/no/such/program]\n") == 201);
    REQUIRE(job_wait(&server, "pair", "status.state.phase", "Completed", WAIT_MS) == 0);
    REQUIRE(job_wait(&server, "noexe", "status.state.phase", "Failed", WAIT_MS) == 0);
    char *out, *err;
    CHECK_INT(CTL(&out, &err, "logs", "pair"), 0);
    CHECK_CONTAINS(out, "[pair-w-0] one\n[pair-w-0] two from 0\n");
    CHECK_CONTAINS(out, "[pair-w-1] one\n[pair-w-1] two from 1\n");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "logs", "noexe-t-0"), 1);
    CHECK_STR(out, "");
    CHECK_CONTAINS(err, "did not start (attempt 1): StartError: ");
    CHECK_CONTAINS(err, "/no/such/program");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "logs", "noexe"), 0);
    CHECK_CONTAINS(err, "[noexe-t-0] container \"c\" in pod \"noexe-t-0\" did not start");
    free(out);
    free(err);
    long code;
    json_t *st = server_request(&server, "GET", PODS "/noexe-t-0/log", NULL, NULL, &code);
    CHECK_INT(code, 404);
    CHECK_STR(jv_str(st, "kind"), "Status");
    CHECK_CONTAINS(jv_str(st, "message"), "StartError");
    CHECK_CONTAINS(jv_str(st, "message"), "/no/such/program");
    json_decref(st);
    st = server_request(&server, "GET", PODS "/pair-w-0/log?follow=maybe", NULL, NULL, &code);
    CHECK_INT(code, 400);
    CHECK_STR(jv_str(st, "details.causes.0.field"), "follow");
    json_decref(st);
}

/* Each attempt writes three lines and an unfinished one, and fails; the job restarts once (maxRetry
 * 2): -f prints both attempts' bytes, a marker on stderr where the second begins, and ends with the
 * job; -f on the job, once ended, prints the last attempt's lines prefixed with the pod. */
static void logs_follow_across_restarts(void)
{
    REQUIRE(ensure_server());
    REQUIRE(job_submit(&server, "flaky", "  maxRetry: 2\n  policies: [{event: PodFailed, action: RestartJob}]\n",
                       TASK("t", 1, "",
                            "'for i in 1 2 3; do echo line $i; sleep 0.3; done; printf no-newline; sleep 0.3; exit 1'",
                            "")) == 201);
    REQUIRE(job_wait(&server, "flaky", "status.running", "1", WAIT_MS) == 0);
    char *out, *err;
    CHECK_INT(CTL(&out, &err, "logs", "-f", "--attempt", "1", "flaky-t-0"), 0); /* from the first, however late */
    /* the log's bytes as they are: the unfinished last line of one attempt runs into the next */
    CHECK_STR(out, "line 1\nline 2\nline 3\nno-newlineline 1\nline 2\nline 3\nno-newline");
    CHECK_STR(err, "--- flaky-t-0: attempt 2 ---\n"); /* maxRetry 2: the second attempt was the last */
    free(out);
    free(err);
    json_t *job = job_get(&server, "flaky");
    CHECK_STR(jv_str(job, "status.state.phase"), "Failed");
    json_decref(job);
    /* a job: every pod, each line prefixed, from its current (here: last) attempt, as kubectl's -f */
    CHECK_INT(CTL(&out, &err, "logs", "-f", "flaky"), 0);
    CHECK_STR(out, "[flaky-t-0] line 1\n[flaky-t-0] line 2\n[flaky-t-0] line 3\n[flaky-t-0] no-newline\n");
    free(out);
    free(err);
}

/* The API streams a running attempt with ?follow=true until it ends. */
static void follow_streams_until_the_attempt_ends(void)
{
    REQUIRE(ensure_server());
    REQUIRE(job_submit(&server, "slow", "", TASK("t", 1, "", "'echo a; sleep 1; echo b; sleep 1; echo c'", "")) == 201);
    REQUIRE(job_wait(&server, "slow", "status.running", "1", WAIT_MS) == 0);
    long code;
    char *text = server_request_text(&server, "GET", PODS "/slow-t-0/log?follow=true", &code);
    CHECK_INT(code, 200);
    CHECK_STR(text, "a\nb\nc\n"); /* all of it: the answer ended only once the attempt had */
    free(text);
}

static void actions_a_phase_cannot_take(void)
{
    REQUIRE(ensure_server());
    REQUIRE(job_submit(&server, "done", "", TASK("t", 1, "", "'true'", "")) == 201);
    REQUIRE(job_submit(&server, "busy", "", TASK("t", 1, "", "'sleep 60'", "")) == 201);
    REQUIRE(job_wait(&server, "done", "status.state.phase", "Completed", WAIT_MS) == 0);
    REQUIRE(job_wait(&server, "busy", "status.state.phase", "Running", WAIT_MS) == 0);
    long code;
    json_t *st = server_request(&server, "POST", CAL_JOBS "/done/suspend", "{}", NULL, &code);
    CHECK_INT(code, 409);
    CHECK_STR(jv_str(st, "reason"), "Conflict");
    CHECK_CONTAINS(jv_str(st, "message"), "job \"done\" is Completed");
    json_decref(st);
    char *out, *err;
    static const char *const verbs[] = {"suspend", "resume", "restart", "terminate", "complete"};
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
        CHECK_INT(CTL(&out, &err, verbs[i], "done"), 1);
        CHECK_CONTAINS(err, "is Completed");
        CHECK_CONTAINS(err, "(409 Conflict)");
        free(out);
        free(err);
    }
    CHECK_INT(CTL(&out, &err, "resume", "busy"), 1);
    CHECK_CONTAINS(err, "job \"busy\" is Running: ResumeJob cannot act on it (only an Aborting or Aborted job");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "suspend", "busy"), 0);
    free(out);
    free(err);
    CHECK(job_wait(&server, "busy", "status.state.phase", "Aborted", WAIT_MS) == 0);
    CHECK_INT(CTL(&out, &err, "suspend", "busy"), 1);
    CHECK_CONTAINS(err, "is Aborted");
    CHECK_CONTAINS(err, "already suspended");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "resume", "busy"), 0);
    free(out);
    free(err);
    CHECK(job_wait(&server, "busy", "status.state.phase", "Running", WAIT_MS) == 0);
    CHECK_INT(CTL(&out, &err, "delete", "busy"), 0);
    free(out);
    free(err);
}

static void run_per_day_and_wait_progress(void)
{
    REQUIRE(ensure_server());
    char *out, *err;
    CHECK_INT(CTL(&out, &err, "run", "--name", "days", "--per-day", "2026-01-30..2026-02-01", "--cpu", "100m", "--env",
                  "GREETING=hi", "--wait", "--", "sh", "-c", "echo $GREETING $CALDERA_DATE"),
              0);
    CHECK_CONTAINS(out, "job.batch.volcano.sh/days created\n");
    CHECK_CONTAINS(out, "job.batch.volcano.sh/days Completed\n");
    CHECK_CONTAINS(out, "job.batch.volcano.sh/days Completed: 0 pending, 0 running, 3 succeeded, 0 failed (");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "logs", "days"), 0);
    CHECK_CONTAINS(out, "[days-2026-01-30-0] hi 2026-01-30\n");
    CHECK_CONTAINS(out, "[days-2026-01-31-0] hi 2026-01-31\n");
    CHECK_CONTAINS(out, "[days-2026-02-01-0] hi 2026-02-01\n");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "run", "--replicas", "x", "--", "true"), 2);
    CHECK_CONTAINS(err, "--replicas wants a whole number");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "run", "--name", "nocmd"), 2);
    CHECK_CONTAINS(err, "run needs the command after --");
    free(out);
    free(err);
}

/* On a terminal (script(1) gives jobctl one) --wait rewrites one line: carriage return, erase. */
static void wait_progress_on_a_terminal(void)
{
    REQUIRE(ensure_server());
    char *has_script = shell("", "command -v script >/dev/null && echo yes");
    bool usable = strcmp(has_script, "yes\n") == 0;
    free(has_script);
    SKIP_IF(!usable, "script(1) is not installed");
    char cmd[1200];
    snprintf(cmd, sizeof cmd,
             "script -qec \"'%s' -s %s run --name tty --replicas 2 --wait -- sh -c 'sleep 1'\" /dev/null\n",
             jobctl_bin(), server.url);
    char *out = shell("", cmd);
    CHECK_CONTAINS(out, "\r\033[Kjob.batch.volcano.sh/tty Running: 0 pending, 2 running, 0 succeeded, 0 failed (");
    CHECK_CONTAINS(out, "\r\033[Kjob.batch.volcano.sh/tty Completed: 0 pending, 0 running, 2 succeeded, 0 failed (");
    CHECK_CONTAINS(out, "job.batch.volcano.sh/tty Completed\r\n"); /* phases stay on lines of their own */
    free(out);
}

static void settings_file_and_config_view(void)
{
    REQUIRE(ensure_server());
    char dir[] = "/tmp/jobctl-config-XXXXXX", path[300], text[600];
    REQUIRE(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/caldera", dir);
    REQUIRE(mkdir_p(path, 0700) == 0);
    snprintf(path, sizeof path, "%s/caldera/config", dir);
    snprintf(text, sizeof text, "# test\nserver = %s\nnamespace = \"default\"\n", server.url);
    REQUIRE(write_file_atomic(path, text, strlen(text), 0644) == 0);
    char env[700], script[1200];
    snprintf(env, sizeof env, "XDG_CONFIG_HOME=%s CALDERA_SERVER= CALDERA_NAMESPACE= CALDERA_TOKEN=", dir);
    snprintf(script, sizeof script, "'%s' get -o name\nCALDERA_NAMESPACE=other '%s' config view\n", jobctl_bin(),
             jobctl_bin());
    char *out = shell(env, script);
    CHECK_CONTAINS(out, "job.batch.volcano.sh/fmt\n"); /* the file's server and namespace were used */
    CHECK_CONTAINS(out, "server:     ");
    CHECK_CONTAINS(out, server.url);
    CHECK_CONTAINS(out, "(file ");
    CHECK_CONTAINS(out, "namespace:  other  (env $CALDERA_NAMESPACE)"); /* the environment over the file */
    CHECK_CONTAINS(out, "token:      <none>  (default)");
    CHECK(!strstr(out, "warning"));
    free(out);
    snprintf(text, sizeof text, "server = %s\ntoken = tok-0123456789abcdef\n", server.url);
    REQUIRE(write_file_atomic(path, text, strlen(text), 0644) == 0);
    snprintf(script, sizeof script, "'%s' config view\n", jobctl_bin());
    out = shell(env, script);
    CHECK_CONTAINS(out, "token:      tok-**** (20 characters)  (file");
    CHECK(!strstr(out, "0123456789abcdef")); /* masked */
    CHECK_CONTAINS(out, "warning: ");        /* mode 0644 with a token in it */
    free(out);
    char *o, *e;
    CHECK_INT(CTL(&o, &e, "config", "view", "-o", "json"), 0); /* --server given: the flag wins */
    json_t *v = json_loads(o, 0, NULL);
    CHECK_STR(jv_str(v, "server.from"), "flag");
    json_decref(v);
    free(o);
    free(e);
    REQUIRE(write_file_atomic(path, "sevrer = x\n", 11, 0644) == 0);
    snprintf(script, sizeof script, "'%s' config view; echo rc=$?\n", jobctl_bin());
    out = shell(env, script);
    CHECK_CONTAINS(out, "line 1: unknown key \"sevrer\"");
    CHECK_CONTAINS(out, "rc=2");
    free(out);
    unlink(path);
    snprintf(path, sizeof path, "%s/caldera", dir);
    rmdir(path);
    rmdir(dir);
}

static void bash_completion(void)
{
    REQUIRE(ensure_server());
    char *script_text, *err;
    CHECK_INT(CTL(&script_text, &err, "completion", "bash"), 0);
    free(err);
    char file[] = "/tmp/jobctl-completion-XXXXXX";
    int fd = mkstemp(file);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, script_text, strlen(script_text)) == (ssize_t)strlen(script_text));
    close(fd);
    free(script_text);
    char script[2000];
    snprintf(script, sizeof script,
             "source %s\n"
             "complete -p jobctl\n"
             "COMP_WORDS=(jobctl des); COMP_CWORD=1; _jobctl; echo \"commands: ${COMPREPLY[*]}\"\n"
             "COMP_WORDS=(jobctl get --foll); COMP_CWORD=2; _jobctl; echo \"options: ${COMPREPLY[*]}\"\n"
             "COMP_WORDS=(jobctl -o w); COMP_CWORD=2; _jobctl; echo \"formats: ${COMPREPLY[*]}\"\n"
             "COMP_WORDS=('%s' -s %s describe fm); COMP_CWORD=4; _jobctl; echo \"jobs: ${COMPREPLY[*]}\"\n"
             "COMP_WORDS=('%s' --server %s logs pair-); COMP_CWORD=4; _jobctl; echo \"pods: ${COMPREPLY[*]}\"\n",
             file, jobctl_bin(), server.url, jobctl_bin(), server.url);
    char *out = shell("", script);
    CHECK_CONTAINS(out, "complete -F _jobctl jobctl\n");
    CHECK_CONTAINS(out, "commands: describe\n");
    CHECK_CONTAINS(out, "options: --follow\n");
    CHECK_CONTAINS(out, "formats: wide\n");
    CHECK_CONTAINS(out, "jobs: fmt\n");
    CHECK_CONTAINS(out, "pods: pair-w-0 pair-w-1\n");
    free(out);
    unlink(file);
}

/* kubectl's habit: a resource word after get lists that resource (an unknown one is a usage error);
 * describe, logs and delete take job NAME, job/NAME (logs pod/NAME too). */
static void kubectls_words_after_get_describe_and_logs(void)
{
    REQUIRE(ensure_server());
    REQUIRE(job_submit(&server, "words", "", TASK("t", 1, "", "'echo said'", "")) == 201);
    REQUIRE(job_wait(&server, "words", "status.state.phase", "Completed", WAIT_MS) == 0);
    char *out, *err;
    CHECK_INT(CTL(&out, &err, "get", "jobs", "-o", "name"), 0);
    CHECK_CONTAINS(out, "job.batch.volcano.sh/words\n");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "get", "vcjob", "words", "-o", "name"), 0);
    CHECK_STR(out, "job.batch.volcano.sh/words\n");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "get", "job/words"), 0);
    CHECK_CONTAINS(out, "words-t-0");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "get", "pods", "words", "-o", "name"), 0);
    CHECK_STR(out, "pod/words-t-0\n");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "get", "queues", "-o", "name"), 0);
    CHECK_CONTAINS(out, "default");
    free(out);
    free(err);
    CHECK(CTL(&out, &err, "get", "deployments", "x") != 0);
    CHECK_CONTAINS(err, "unknown resource \"deployments\"");
    free(out);
    free(err);
    CHECK(CTL(&out, &err, "get", "pods", "a", "b") != 0);
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "describe", "job", "words"), 0);
    CHECK_CONTAINS(out, "words-t-0");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "describe", "vj/words"), 0);
    CHECK_CONTAINS(out, "words-t-0");
    free(out);
    free(err);
    CHECK(CTL(&out, &err, "describe", "pod", "words-t-0") != 0);
    CHECK_CONTAINS(err, "describe shows a job");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "logs", "job/words"), 0);
    CHECK_STR(out, "[words-t-0] said\n");
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "logs", "pod/words-t-0"), 0);
    CHECK_STR(out, "said\n");
    free(out);
    free(err);
    CHECK(CTL(&out, &err, "delete", "pod", "words-t-0") != 0);
    free(out);
    free(err);
    CHECK_INT(CTL(&out, &err, "delete", "job/words"), 0);
    CHECK_STR(out, "job.batch.volcano.sh/words deleted\n");
    free(out);
    free(err);
}

TEST_MAIN(TEST_CASE(output_formats_on_read_commands), TEST_CASE(pending_reason_in_get_and_describe),
          TEST_CASE(logs_of_a_job_and_a_start_error), TEST_CASE(logs_follow_across_restarts),
          TEST_CASE(follow_streams_until_the_attempt_ends), TEST_CASE(actions_a_phase_cannot_take),
          TEST_CASE(run_per_day_and_wait_progress), TEST_CASE(wait_progress_on_a_terminal),
          TEST_CASE(settings_file_and_config_view), TEST_CASE(bash_completion),
          TEST_CASE(kubectls_words_after_get_describe_and_logs))
