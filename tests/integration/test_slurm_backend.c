/* The Slurm backend (runtime/slurm/slurm_backend.c) against real daemons (tests/lib/slurm-cluster): gang
 * jobs run with the plugins' variables, every rank reported Running then Succeeded or Failed with its
 * node and exit code, stop, adopt after a reopen, and a send while slurmrestd is down. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "runtime/backend.h"
#include "runtime/slurm/slurm_rest.h"
#include "tests/lib/slurm_cluster.h"
#include "tests/lib/test.h"

#define WAIT_MS 30000

/* Every report the backend posts, in order. */
struct collector {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct backend_update **u;
    size_t n, cap;
};

static void collect(void *ctx, struct backend_update *u)
{
    struct collector *c = ctx;
    pthread_mutex_lock(&c->mu);
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->u = realloc(c->u, c->cap * sizeof *c->u);
    }
    c->u[c->n++] = u;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

struct match {
    enum backend_update_kind kind;
    const char *uid;
    const char *task; /* BACKEND_POD: NULL any */
    int index;
    int phase; /* -1 any; for BACKEND_ENGINE: the ok wanted */
};

static bool matches(const struct backend_update *u, const struct match *m)
{
    if (u->kind != m->kind || (m->uid && strcmp(u->job_uid, m->uid) != 0))
        return false;
    if (m->kind == BACKEND_ENGINE)
        return m->phase < 0 || u->ok == (m->phase != 0);
    if (m->kind != BACKEND_POD)
        return true;
    return (!m->task || (strcmp(u->task, m->task) == 0 && u->index == m->index)) &&
           (m->phase < 0 || (int)u->phase == m->phase);
}

/* Waits for a report matching m; returns a copy (zeroed kind -1 when none came in WAIT_MS). */
static struct backend_update wait_for(struct collector *c, struct match m)
{
    struct backend_update found = {.kind = (enum backend_update_kind) - 1};
    int64_t until = clock_mono_ms() + WAIT_MS;
    pthread_mutex_lock(&c->mu);
    for (size_t seen = 0;;) {
        for (; seen < c->n; seen++)
            if (matches(c->u[seen], &m)) {
                found = *c->u[seen];
                pthread_mutex_unlock(&c->mu);
                return found;
            }
        if (clock_mono_ms() >= until)
            break;
        struct timespec ts = clock_deadline(CLOCK_REALTIME, 100);
        pthread_cond_timedwait(&c->cv, &c->mu, &ts);
    }
    pthread_mutex_unlock(&c->mu);
    return found;
}

static int count(struct collector *c, struct match m)
{
    int n = 0;
    pthread_mutex_lock(&c->mu);
    for (size_t i = 0; i < c->n; i++)
        n += matches(c->u[i], &m);
    pthread_mutex_unlock(&c->mu);
    return n;
}

/* The index in the reports of the first one matching m, or -1. */
static int first_index(struct collector *c, struct match m)
{
    int at = -1;
    pthread_mutex_lock(&c->mu);
    for (size_t i = 0; i < c->n && at < 0; i++)
        if (matches(c->u[i], &m))
            at = (int)i;
    pthread_mutex_unlock(&c->mu);
    return at;
}

static struct slurm_cluster cluster;
static char skip_why[1024]; /* why there is no cluster */
static struct backend_conf conf;
static char work_dir[300], token_file[300];

static struct backend *open_backend(struct collector *c)
{
    struct backend_host host = {.post = collect, .ctx = c};
    struct backend *b = NULL;
    struct api_status st = {0};
    if (slurm_backend_open(&conf, &host, &b, &st) != 0)
        fprintf(stderr, "# open: %s\n", st.message);
    return b;
}

static void collector_init(struct collector *c)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
}

static void collector_free(struct collector *c)
{
    for (size_t i = 0; i < c->n; i++)
        backend_update_free(c->u[i]);
    free(c->u);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
}

/* A Volcano Job manifest: tasks as "name:replicas:cpu:command" joined by '|', plugins as JSON. */
static json_t *job_manifest(const char *name, const char *uid, const char *plugins, const char *tasks)
{
    json_t *list = json_array();
    char *copy = strdup(tasks), *save = NULL;
    for (char *t = strtok_r(copy, "|", &save); t; t = strtok_r(NULL, "|", &save)) {
        char tname[64], cpu[16];
        int replicas, off = 0;
        if (sscanf(t, "%63[^:]:%d:%15[^:]:%n", tname, &replicas, cpu, &off) != 3 || off == 0)
            abort(); /* a mistake in the test itself */
        json_array_append_new(list, json_pack("{s:s,s:i,s:{s:{s:s,s:[{s:s,s:s,s:[s,s,s],s:{s:{s:s}}}]}}}", "name",
                                              tname, "replicas", replicas, "template", "spec", "restartPolicy", "Never",
                                              "containers", "name", "c", "image", "busybox", "command", "sh", "-c",
                                              t + off, "resources", "requests", "cpu", cpu));
    }
    free(copy);
    json_t *m = json_pack("{s:s,s:s,s:{s:s,s:s,s:{s:s}},s:{s:o,s:o}}", "apiVersion", "batch.volcano.sh/v1alpha1",
                          "kind", "Job", "metadata", "name", name, "namespace", "team-a", "labels", BACKEND_UID_LABEL,
                          uid, "spec", "tasks", list, "plugins", json_loads(plugins, 0, NULL));
    if (!m)
        abort();
    return m;
}

static char *pod_log(struct backend *b, const char *uid, const char *ref, const char *pod)
{
    struct backend_log_query q = {.pod = pod, .tail_lines = -1, .limit_bytes = -1};
    char *out = NULL;
    size_t len = 0;
    struct api_status st = {0};
    if (b->logs(b->ctx, uid, ref, &q, &out, &len, &st) != 0) {
        fprintf(stderr, "# logs %s: %s\n", pod, st.message);
        return strdup("");
    }
    return out;
}

/* Every replica of task reported Running then Succeeded, with a node; the nodes into nodes[]. */
static void check_ran(struct collector *c, const char *uid, const char *task, int replicas, char nodes[][64])
{
    for (int i = 0; i < replicas; i++) {
        struct backend_update done = wait_for(c, (struct match){BACKEND_POD, uid, task, i, BACKEND_POD_SUCCEEDED});
        CHECK_INT((int)done.kind, BACKEND_POD);
        if ((int)done.kind != BACKEND_POD) { /* what the batch script and the ranks said */
            char cmd[800];
            snprintf(cmd, sizeof cmd,
                     "head -n 20 %s/%s/slurm-*.out %s/%s/*/rank-* %s/log/slurmd-n*.log | cut -c1-300 >&2", work_dir,
                     uid, work_dir, uid, cluster.dir);
            if (system(cmd) != 0)
                fprintf(stderr, "# no files\n");
        }
        int running = first_index(c, (struct match){BACKEND_POD, uid, task, i, BACKEND_POD_RUNNING});
        int succeeded = first_index(c, (struct match){BACKEND_POD, uid, task, i, BACKEND_POD_SUCCEEDED});
        CHECK(running >= 0 && running < succeeded);
        CHECK_STR(done.reason, "Completed");
        CHECK(done.node[0] == 'n' && done.start_ms > 0 && done.end_ms >= done.start_ms);
        CHECK_INT((int)done.attempt, 1);
        snprintf(nodes[i], 64, "%s", done.node);
    }
}

/* Two tasks that differ (a heterogeneous job) with env and svc: each rank's index and the host lists. */
static void test_two_task_job(void)
{
    SKIP_IF(skip_why[0], "no Slurm cluster: %s", skip_why);
    struct collector c;
    collector_init(&c);
    struct backend *b = open_backend(&c);
    REQUIRE(b);
    CHECK(!b->engine_runs_policies);
    const char *uid = "0b6c1a52-0000-4000-8000-000000000001";
    const char *print =
        "echo idx=$VC_TASK_INDEX vk=$VK_TASK_INDEX ps=$VC_PS_HOSTS/$VC_PS_NUM "
        "w=$VC_WORKER_HOSTS/$VC_WORKER_NUM";
    char tasks[600];
    snprintf(tasks, sizeof tasks, "ps:1:1:%s|worker:2:2:%s", print, print);
    REQUIRE(b->send(b->ctx, uid, job_manifest("sim", uid, "{\"env\":[],\"svc\":[]}", tasks)) == 0);
    struct backend_update sent = wait_for(&c, (struct match){BACKEND_SENT, uid, NULL, 0, -1});
    REQUIRE((int)sent.kind == BACKEND_SENT || (fprintf(stderr, "# not sent\n"), 0));
    char ps[1][64], w[2][64];
    check_ran(&c, uid, "ps", 1, ps);
    check_ran(&c, uid, "worker", 2, w);
    char want[200];
    for (int i = 0; i < 2; i++) {
        char pod[64];
        snprintf(pod, sizeof pod, "sim-worker-%d", i);
        char *log = pod_log(b, uid, sent.ref, pod);
        snprintf(want, sizeof want, "idx=%d vk=%d ps=%s/1 w=%s,%s/2", i, i, ps[0], w[0], w[1]);
        CHECK_CONTAINS(log, want);
        free(log);
    }
    char *log = pod_log(b, uid, sent.ref, "sim-ps-0");
    snprintf(want, sizeof want, "idx=0 vk=0 ps=%s/1", ps[0]);
    CHECK_CONTAINS(log, want);
    free(log);
    struct backend_log_query q = {.pod = "sim-nope-0", .tail_lines = -1, .limit_bytes = -1};
    char *out = NULL;
    size_t len;
    struct api_status st = {0};
    CHECK_INT(b->logs(b->ctx, uid, sent.ref, &q, &out, &len, &st), -1);
    CHECK_INT(st.code, 404);
    CHECK_INT(count(&c, (struct match){BACKEND_ENGINE, NULL, NULL, 0, -1}), 0); /* reachable all along */
    b->close(b->ctx);
    collector_free(&c);
}

/* A PyTorch-style job (alike tasks: one component): MASTER_ADDR is the master's node, RANK in order. */
static void test_pytorch_job(void)
{
    SKIP_IF(skip_why[0], "no Slurm cluster: %s", skip_why);
    struct collector c;
    collector_init(&c);
    struct backend *b = open_backend(&c);
    REQUIRE(b);
    const char *uid = "0b6c1a52-0000-4000-8000-000000000002";
    const char *print = "echo addr=$MASTER_ADDR port=$MASTER_PORT world=$WORLD_SIZE rank=$RANK";
    char tasks[600];
    snprintf(tasks, sizeof tasks, "master:1:1:%s|worker:2:1:%s", print, print);
    REQUIRE(b->send(b->ctx, uid,
                    job_manifest("mnist", uid,
                                 "{\"pytorch\":[\"--master=master\",\"--worker=worker\",\"--port=29500\"]}", tasks)) ==
            0);
    struct backend_update sent = wait_for(&c, (struct match){BACKEND_SENT, uid, NULL, 0, -1});
    REQUIRE((int)sent.kind == BACKEND_SENT);
    char master[1][64], w[2][64];
    check_ran(&c, uid, "master", 1, master);
    check_ran(&c, uid, "worker", 2, w);
    char want[200];
    char *log = pod_log(b, uid, sent.ref, "mnist-master-0");
    snprintf(want, sizeof want, "addr=%s port=29500 world=3 rank=0", master[0]);
    CHECK_CONTAINS(log, want);
    free(log);
    log = pod_log(b, uid, sent.ref, "mnist-worker-1");
    snprintf(want, sizeof want, "addr=%s port=29500 world=3 rank=2", master[0]);
    CHECK_CONTAINS(log, want);
    free(log);
    /* kubelet's limits: limitBytes cuts the text, tailLines=0 leaves nothing. */
    struct backend_log_query q = {.pod = "mnist-worker-0", .tail_lines = 1, .limit_bytes = 5};
    char *out = NULL;
    size_t len = 0;
    struct api_status st = {0};
    REQUIRE(b->logs(b->ctx, uid, sent.ref, &q, &out, &len, &st) == 0);
    CHECK_STR(out, "addr=");
    CHECK_INT((int)len, 5);
    free(out);
    q.tail_lines = 0;
    q.limit_bytes = -1;
    REQUIRE(b->logs(b->ctx, uid, sent.ref, &q, &out, &len, &st) == 0);
    CHECK_STR(out, "");
    free(out);
    /* A log past 64 MiB: its end is read. */
    char path[400];
    snprintf(path, sizeof path, "%s/%s/%s/master-0.out", work_dir, uid, sent.ref);
    FILE *f = fopen(path, "a");
    REQUIRE(f);
    static char filler[1 << 20];
    memset(filler, 'x', sizeof filler);
    for (int i = 0; i < 65; i++)
        fwrite(filler, 1, sizeof filler, f);
    fputs("\nthe last line\n", f);
    fclose(f);
    q = (struct backend_log_query){.pod = "mnist-master-0", .tail_lines = 1, .limit_bytes = -1};
    REQUIRE(b->logs(b->ctx, uid, sent.ref, &q, &out, &len, &st) == 0);
    CHECK_STR(out, "the last line\n");
    free(out);
    b->close(b->ctx);
    collector_free(&c);
}

/* One rank exits 3: Failed with exit code 3, the other rank Succeeded. */
static void test_failing_task(void)
{
    SKIP_IF(skip_why[0], "no Slurm cluster: %s", skip_why);
    struct collector c;
    collector_init(&c);
    struct backend *b = open_backend(&c);
    REQUIRE(b);
    const char *uid = "0b6c1a52-0000-4000-8000-000000000003";
    REQUIRE(b->send(b->ctx, uid, job_manifest("fails", uid, "{}", "t:2:1:[ $SLURM_PROCID = 1 ] && exit 3; true")) == 0);
    struct backend_update f = wait_for(&c, (struct match){BACKEND_POD, uid, "t", 1, BACKEND_POD_FAILED});
    REQUIRE((int)f.kind == BACKEND_POD);
    CHECK_INT(f.exit_code, 3);
    CHECK_INT(f.term_signal, 0);
    CHECK_STR(f.reason, "Error");
    CHECK(f.node[0] == 'n');
    struct backend_update ok = wait_for(&c, (struct match){BACKEND_POD, uid, "t", 0, BACKEND_POD_SUCCEEDED});
    CHECK_INT((int)ok.kind, BACKEND_POD);
    /* A job Slurm refuses (more CPUs than any node has) is no retryable failure. */
    const char *big = "0b6c1a52-0000-4000-8000-000000000013";
    REQUIRE(b->send(b->ctx, big, job_manifest("big", big, "{}", "t:1:64:true")) == 0);
    struct backend_update refused = wait_for(&c, (struct match){BACKEND_SEND_FAILED, big, NULL, 0, -1});
    CHECK_INT((int)refused.kind, BACKEND_SEND_FAILED);
    CHECK(!refused.retryable);
    CHECK_CONTAINS(refused.message, "slurm:");
    b->close(b->ctx);
    collector_free(&c);
}

/* stop() cancels the Slurm job: the running ranks end and are reported Failed. */
static void test_stop(void)
{
    SKIP_IF(skip_why[0], "no Slurm cluster: %s", skip_why);
    struct collector c;
    collector_init(&c);
    struct backend *b = open_backend(&c);
    REQUIRE(b);
    const char *uid = "0b6c1a52-0000-4000-8000-000000000004";
    REQUIRE(b->send(b->ctx, uid, job_manifest("sleeps", uid, "{}", "t:2:1:sleep 60")) == 0);
    struct backend_update sent = wait_for(&c, (struct match){BACKEND_SENT, uid, NULL, 0, -1});
    REQUIRE((int)sent.kind == BACKEND_SENT);
    for (int i = 0; i < 2; i++)
        REQUIRE((int)wait_for(&c, (struct match){BACKEND_POD, uid, "t", i, BACKEND_POD_RUNNING}).kind == BACKEND_POD);
    int64_t t0 = clock_mono_ms();
    REQUIRE(b->stop(b->ctx, uid, sent.ref) == 0);
    for (int i = 0; i < 2; i++) {
        struct backend_update f = wait_for(&c, (struct match){BACKEND_POD, uid, "t", i, BACKEND_POD_FAILED});
        CHECK_INT((int)f.kind, BACKEND_POD);
        CHECK_STR(f.reason, "Cancelled");
        CHECK(f.exit_code > 128);
    }
    CHECK(clock_mono_ms() - t0 < 20000);
    CHECK_INT(count(&c, (struct match){BACKEND_GONE, uid, NULL, 0, -1}), 0);
    /* A restart's send: a new Slurm job, attempt 2. */
    REQUIRE(b->send(b->ctx, uid, job_manifest("sleeps", uid, "{}", "t:2:1:true")) == 0);
    struct backend_update two = wait_for(&c, (struct match){BACKEND_POD, uid, "t", 1, BACKEND_POD_SUCCEEDED});
    CHECK_INT((int)two.kind, BACKEND_POD);
    CHECK_INT((int)two.attempt, 2);
    CHECK(strcmp(two.ref, sent.ref) != 0);
    /* remove: gone from Slurm, files too. */
    REQUIRE(b->remove(b->ctx, uid, two.ref) == 0);
    CHECK_INT((int)wait_for(&c, (struct match){BACKEND_REMOVED, uid, NULL, 0, -1}).kind, BACKEND_REMOVED);
    char dir[400];
    snprintf(dir, sizeof dir, "%s/%s", work_dir, uid);
    CHECK(access(dir, F_OK) != 0);
    b->close(b->ctx);
    collector_free(&c);
}

/* The Slurm job's state, as slurmrestd says it. */
static enum slurm_state slurm_state_of(const char *ref)
{
    struct slurm_rest r = {.url = cluster.url, .user = cluster.user, .token = cluster.token};
    struct slurm_job_info info;
    char err[256];
    return slurm_rest_job(&r, (uint32_t)atoi(ref), &info, 1, err, sizeof err) >= 1 ? info.state : SLURM_STATE_UNKNOWN;
}

static bool wait_state(const char *ref, enum slurm_state want)
{
    for (int i = 0; i < 100; i++) {
        if (slurm_state_of(ref) == want)
            return true;
        usleep(100 * 1000);
    }
    return false;
}

/* act(): suspend and resume through scontrol; the ranks stay Running and end when resumed. */
static void test_suspend_resume(void)
{
    SKIP_IF(skip_why[0], "no Slurm cluster: %s", skip_why);
    struct collector c;
    collector_init(&c);
    struct backend *b = open_backend(&c);
    REQUIRE(b);
    const char *uid = "0b6c1a52-0000-4000-8000-000000000007";
    REQUIRE(b->send(b->ctx, uid, job_manifest("pause", uid, "{}", "t:1:1:sleep 2")) == 0);
    struct backend_update sent = wait_for(&c, (struct match){BACKEND_SENT, uid, NULL, 0, -1});
    REQUIRE((int)sent.kind == BACKEND_SENT);
    REQUIRE((int)wait_for(&c, (struct match){BACKEND_POD, uid, "t", 0, BACKEND_POD_RUNNING}).kind == BACKEND_POD);
    REQUIRE(b->act(b->ctx, uid, sent.ref, BACKEND_SUSPEND) == 0);
    CHECK(wait_state(sent.ref, SLURM_STATE_SUSPENDED));
    sleep(3); /* longer than the command: it cannot end while suspended */
    CHECK_INT(count(&c, (struct match){BACKEND_POD, uid, "t", 0, BACKEND_POD_SUCCEEDED}), 0);
    REQUIRE(b->act(b->ctx, uid, sent.ref, BACKEND_RESUME) == 0);
    CHECK_INT((int)wait_for(&c, (struct match){BACKEND_POD, uid, "t", 0, BACKEND_POD_SUCCEEDED}).kind, BACKEND_POD);
    b->close(b->ctx);
    collector_free(&c);
}

/* A scancel behind Caldera's back: BACKEND_GONE, before the ranks' ends (which say Cancelled). */
static void test_cancelled_outside(void)
{
    SKIP_IF(skip_why[0], "no Slurm cluster: %s", skip_why);
    struct collector c;
    collector_init(&c);
    struct backend *b = open_backend(&c);
    REQUIRE(b);
    const char *uid = "0b6c1a52-0000-4000-8000-000000000009";
    REQUIRE(b->send(b->ctx, uid, job_manifest("victim", uid, "{}", "t:1:1:sleep 60")) == 0);
    struct backend_update sent = wait_for(&c, (struct match){BACKEND_SENT, uid, NULL, 0, -1});
    REQUIRE((int)sent.kind == BACKEND_SENT);
    REQUIRE((int)wait_for(&c, (struct match){BACKEND_POD, uid, "t", 0, BACKEND_POD_RUNNING}).kind == BACKEND_POD);
    struct slurm_rest r = {.url = cluster.url, .user = cluster.user, .token = cluster.token};
    char err[256];
    REQUIRE(slurm_rest_cancel(&r, (uint32_t)atoi(sent.ref), 0, err, sizeof err) == 0);
    struct backend_update gone = wait_for(&c, (struct match){BACKEND_GONE, uid, NULL, 0, -1});
    CHECK_INT((int)gone.kind, BACKEND_GONE);
    CHECK_CONTAINS(gone.message, "cancelled outside Caldera");
    struct backend_update f = wait_for(&c, (struct match){BACKEND_POD, uid, "t", 0, BACKEND_POD_FAILED});
    CHECK_STR(f.reason, "Cancelled");
    CHECK(first_index(&c, (struct match){BACKEND_GONE, uid, NULL, 0, -1}) <
          first_index(&c, (struct match){BACKEND_POD, uid, "t", 0, BACKEND_POD_FAILED}));
    CHECK_INT(count(&c, (struct match){BACKEND_GONE, uid, NULL, 0, -1}), 1);
    b->close(b->ctx);
    collector_free(&c);
}

/* Slurm's jobs whose comment names uid. */
static int slurm_jobs_of(const char *uid)
{
    struct slurm_rest r = {.url = cluster.url, .user = cluster.user, .token = cluster.token};
    struct slurm_job_info *infos;
    char err[256], want[160];
    int n = slurm_rest_jobs(&r, &infos, err, sizeof err), k = 0;
    snprintf(want, sizeof want, "%s=%s/", BACKEND_UID_LABEL, uid);
    for (int i = 0; i < n; i++)
        k += strncmp(infos[i].comment, want, strlen(want)) == 0;
    free(infos);
    return k;
}

/* A backend closed while the job runs; a new one adopts it and reports its end, sending nothing again. */
static void test_adopt(void)
{
    SKIP_IF(skip_why[0], "no Slurm cluster: %s", skip_why);
    struct collector c;
    collector_init(&c);
    struct backend *b = open_backend(&c);
    REQUIRE(b);
    const char *uid = "0b6c1a52-0000-4000-8000-000000000005";
    REQUIRE(b->send(b->ctx, uid, job_manifest("long", uid, "{}", "t:2:1:sleep 3; echo done")) == 0);
    struct backend_update sent = wait_for(&c, (struct match){BACKEND_SENT, uid, NULL, 0, -1});
    REQUIRE((int)sent.kind == BACKEND_SENT);
    REQUIRE((int)wait_for(&c, (struct match){BACKEND_POD, uid, "t", 0, BACKEND_POD_RUNNING}).kind == BACKEND_POD);
    b->close(b->ctx);
    collector_free(&c);

    collector_init(&c);
    b = open_backend(&c);
    REQUIRE(b);
    REQUIRE(b->adopt(b->ctx, uid, sent.ref) == 0);
    for (int i = 0; i < 2; i++) {
        struct backend_update done = wait_for(&c, (struct match){BACKEND_POD, uid, "t", i, BACKEND_POD_SUCCEEDED});
        CHECK_INT((int)done.kind, BACKEND_POD);
        CHECK_STR(done.ref, sent.ref);
        CHECK_INT((int)done.attempt, 1);
    }
    CHECK_INT(count(&c, (struct match){BACKEND_SENT, uid, NULL, 0, -1}), 0);
    CHECK_INT(slurm_jobs_of(uid), 1);
    /* A stored ref whose Slurm job is another uid's (ids reused after a cluster reset): gone. */
    const char *other = "0b6c1a52-0000-4000-8000-000000000015";
    char from[400], to[400], *text = NULL;
    size_t len = 0;
    snprintf(from, sizeof from, "%s/%s/job.json", work_dir, uid);
    snprintf(to, sizeof to, "%s/%s", work_dir, other);
    REQUIRE(read_file(from, 1 << 20, &text, &len) == 0 && mkdir_p(to, 0755) == 0);
    snprintf(to, sizeof to, "%s/%s/job.json", work_dir, other);
    REQUIRE(write_file_atomic(to, text, len, 0644) == 0);
    free(text);
    REQUIRE(b->adopt(b->ctx, other, sent.ref) == 0);
    CHECK_INT((int)wait_for(&c, (struct match){BACKEND_GONE, other, NULL, 0, -1}).kind, BACKEND_GONE);
    CHECK_INT(count(&c, (struct match){BACKEND_POD, other, NULL, 0, BACKEND_POD_SUCCEEDED}), 0);
    /* A resend of what Slurm already ran to its end after adopt would be a restart; a resend of a live
     * job is answered with its ref. */
    b->close(b->ctx);
    collector_free(&c);
}

/* A submit whose answer was lost (the "sending" mark left, the job taken by Slurm): the next send finds
 * it by its comment and reports it sent, submitting nothing. */
static void test_resend_after_lost_answer(void)
{
    SKIP_IF(skip_why[0], "no Slurm cluster: %s", skip_why);
    const char *uid = "0b6c1a52-0000-4000-8000-000000000008";
    char dir[400], mark[460], comment[160];
    snprintf(dir, sizeof dir, "%s/%s", work_dir, uid);
    snprintf(mark, sizeof mark, "%s/sending", dir);
    snprintf(comment, sizeof comment, "%s=%s/1", BACKEND_UID_LABEL, uid);
    REQUIRE(mkdir_p(dir, 0755) == 0 && write_file_atomic(mark, "1\n", 2, 0644) == 0);
    struct slurm_rest r = {.url = cluster.url, .user = cluster.user, .token = cluster.token};
    const char *const env[] = {"PATH=/usr/bin:/bin", NULL};
    struct slurm_component one = {.tasks = 1};
    struct slurm_job_spec spec = {.name = "team-a.lost",
                                  .comment = comment,
                                  .script = "#!/bin/sh\nsleep 1\n",
                                  .cwd = dir,
                                  .env = env,
                                  .components = &one,
                                  .ncomponents = 1};
    uint32_t id = 0;
    char err[256], ref[16];
    REQUIRE(slurm_rest_submit(&r, &spec, &id, err, sizeof err) == 0);
    snprintf(ref, sizeof ref, "%u", id);

    struct collector c;
    collector_init(&c);
    struct backend *b = open_backend(&c);
    REQUIRE(b);
    REQUIRE(b->send(b->ctx, uid, job_manifest("lost", uid, "{}", "t:1:1:true")) == 0);
    struct backend_update sent = wait_for(&c, (struct match){BACKEND_SENT, uid, NULL, 0, -1});
    CHECK_INT((int)sent.kind, BACKEND_SENT);
    CHECK_STR(sent.ref, ref);
    CHECK_INT(slurm_jobs_of(uid), 1);
    CHECK(access(mark, F_OK) != 0);
    REQUIRE(b->remove(b->ctx, uid, sent.ref) == 0);
    CHECK_INT((int)wait_for(&c, (struct match){BACKEND_REMOVED, uid, NULL, 0, -1}).kind, BACKEND_REMOVED);
    b->close(b->ctx);
    collector_free(&c);
}

/* slurmrestd down at send: SEND_FAILED retryable and the engine reported unreachable; once it is back,
 * the same send goes through, once. */
static void test_unreachable(void)
{
    SKIP_IF(skip_why[0], "no Slurm cluster: %s", skip_why);
    struct collector c;
    collector_init(&c);
    struct backend *b = open_backend(&c);
    REQUIRE(b);
    const char *uid = "0b6c1a52-0000-4000-8000-000000000006";
    REQUIRE(slurm_cluster_restd(&cluster, 0) == 0);
    REQUIRE(b->send(b->ctx, uid, job_manifest("later", uid, "{}", "t:1:1:echo hi")) == 0);
    struct backend_update f = wait_for(&c, (struct match){BACKEND_SEND_FAILED, uid, NULL, 0, -1});
    CHECK_INT((int)f.kind, BACKEND_SEND_FAILED);
    CHECK(f.retryable);
    struct backend_update down = wait_for(&c, (struct match){BACKEND_ENGINE, NULL, NULL, 0, 0});
    CHECK_INT((int)down.kind, BACKEND_ENGINE);
    CHECK(!down.ok);
    REQUIRE(slurm_cluster_restd(&cluster, 1) == 0);
    REQUIRE(b->send(b->ctx, uid, job_manifest("later", uid, "{}", "t:1:1:echo hi")) == 0);
    struct backend_update sent = wait_for(&c, (struct match){BACKEND_SENT, uid, NULL, 0, -1});
    CHECK_INT((int)sent.kind, BACKEND_SENT);
    CHECK_INT((int)wait_for(&c, (struct match){BACKEND_POD, uid, "t", 0, BACKEND_POD_SUCCEEDED}).kind, BACKEND_POD);
    CHECK_INT(slurm_jobs_of(uid), 1);
    b->close(b->ctx);
    collector_free(&c);
}

int main(int argc, char **argv)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    static const struct test_case cases[] = {TEST_CASE(test_two_task_job),
                                             TEST_CASE(test_pytorch_job),
                                             TEST_CASE(test_failing_task),
                                             TEST_CASE(test_stop),
                                             TEST_CASE(test_adopt),
                                             TEST_CASE(test_unreachable),
                                             TEST_CASE(test_suspend_resume),
                                             TEST_CASE(test_resend_after_lost_answer),
                                             TEST_CASE(test_cancelled_outside)};
    if (getuid() != 0)
        snprintf(skip_why, sizeof skip_why, "the Slurm daemons run as root here");
    else if (slurm_cluster_start(&cluster, skip_why, sizeof skip_why) == 0)
        skip_why[0] = '\0';
    else if (!skip_why[0])
        snprintf(skip_why, sizeof skip_why, "tests/lib/slurm-cluster failed");
    snprintf(work_dir, sizeof work_dir, "%s/work", cluster.dir);
    snprintf(token_file, sizeof token_file, "%s/token", cluster.dir);
    write_file_atomic(token_file, cluster.token, strlen(cluster.token), 0600);
    conf = (struct backend_conf){.default_kind = BACKEND_SLURM,
                                 .slurmrestd = cluster.url,
                                 .slurm_user = cluster.user,
                                 .slurm_token_file = token_file,
                                 .slurm_work_dir = work_dir};
    int rc = test_run(cases, sizeof cases / sizeof cases[0], argc, argv);
    slurm_cluster_stop(&cluster);
    curl_global_cleanup();
    return rc;
}
