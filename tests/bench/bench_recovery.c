/* recovery_s_100k_jobs: start-up time with 100,000 jobs in the database as a server left them (a
 * server's cycle has recorded why the waiting gangs wait; 20,000 attempts were running when it died),
 * the jobserver's own path (store_open_checking, core_start reading the awake jobs, the first API
 * answer durable), each start in a fresh process as a restart is: the bench runs itself again for it,
 * so no start finds the heap, the page tables or the per-thread caches an earlier one left;
 * recovery_ready_s_100k_jobs: until the whole start is over (the checks, the sleeping jobs, recovery,
 * the writer: core_wait_ready); quick_check_s_100k_jobs alone. BENCH_INFO=1 lets a start log at info
 * level (its "state loaded in" line: each step apart). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adapters/intake/intake.h"
#include "adapters/objects/node.h"
#include "adapters/dialects/volcano/job.h"
#include "common/clock.h"
#include "common/fs.h"
#include "common/log.h"
#include "common/uuid.h"
#include "runtime/host.h"
#include "scheduler/core/core.h"
#include "store/store.h"
#include "tests/lib/bench.h"

#define NJOBS 100000
#define RUNS 3
#define T0_MS 1763800000000LL
#define LIST_PAGE 500 /* a page of the job list after the start */
#define CHUNK 64      /* entries per store_append, as the core hands over a loop iteration's changes */

/* Four small nodes: the live jobs below ask for more than any has, so no task runs while measuring. */
static const char nodes_yaml[] =
    "apiVersion: v1\nkind: List\nitems:\n"
    "- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: '8', memory: 32Gi}}}\n"
    "- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: '8', memory: 32Gi}}}\n"
    "- {apiVersion: v1, kind: Node, metadata: {name: n3}, status: {allocatable: {cpu: '8', memory: 32Gi}}}\n"
    "- {apiVersion: v1, kind: Node, metadata: {name: n4}, status: {allocatable: {cpu: '8', memory: 32Gi}}}\n";

/* Three shapes, as submitted (the admission defaults are added by the parser, as for a real submit):
 * a one-pod job, a master and 3 workers with policies, an 8-replica pytorch job. */
static const char *const shapes[] = {
    "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: %s, labels: {team: vision}}\n"
    "spec:\n  tasks:\n  - name: main\n    replicas: 1\n    template:\n      spec:\n        containers:\n"
    "        - name: c\n          image: local\n          command: [python3, eval.py, --shard, '3']\n"
    "          env: [{name: DATA, value: /data/eval}]\n"
    "          resources: {requests: {cpu: '%s', memory: 2Gi}, limits: {cpu: '%s', memory: 4Gi}}\n",
    "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: %s}\n"
    "spec:\n  minAvailable: 4\n  maxRetry: 3\n  queue: default\n"
    "  policies: [{event: PodEvicted, action: RestartJob}, {event: PodFailed, action: RestartJob}]\n"
    "  plugins: {env: [], svc: []}\n  tasks:\n"
    "  - name: master\n    replicas: 1\n    policies: [{event: TaskCompleted, action: CompleteJob}]\n"
    "    template:\n      spec:\n        containers:\n        - name: c\n          command: [sh, -c, 'make -j8']\n"
    "          resources: {requests: {cpu: '%s', memory: 1Gi}}\n"
    "  - name: worker\n    replicas: 3\n    template:\n      spec:\n        containers:\n"
    "        - name: c\n          command: [distccd, --daemon, --no-detach]\n"
    "          resources: {requests: {cpu: '%s', memory: 1Gi}}\n",
    "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: %s, annotations: {owner: ruitian}}\n"
    "spec:\n  minAvailable: 8\n  schedulerName: volcano\n  plugins: {pytorch: ['--master=master', '--worker=worker', "
    "'--port=23456']}\n  tasks:\n"
    "  - name: master\n    replicas: 1\n    template:\n      spec:\n        containers:\n"
    "        - name: c\n          command: [torchrun, train.py, --epochs, '90']\n"
    "          resources: {requests: {cpu: '%s', memory: 8Gi}}\n"
    "  - name: worker\n    replicas: 7\n    template:\n      spec:\n        containers:\n"
    "        - name: c\n          command: [torchrun, train.py, --epochs, '90']\n"
    "          resources: {requests: {cpu: '%s', memory: 8Gi}}\n",
};

/* ---- building the database through the store API ------------------------------------------------ */

struct builder {
    struct store *store;
    struct journal_list pending;
    uint64_t seq;
    int64_t now_ms;
};

static struct journal_entry *entry(struct builder *b, enum journal_op op, const struct job *job, const char *kind,
                                   const char *name, const char *from, const char *to, const char *reason,
                                   const char *message)
{
    struct journal_entry *e = journal_entry_new(op);
    e->ev.seq = ++b->seq;
    e->ev.time_ms = b->now_ms += 7;
    e->ev.kind = strdup(kind);
    e->ev.ns = strdup("default");
    e->ev.name = strdup(name);
    e->ev.job_uid = strdup(job->uid);
    e->ev.from_phase = strdup(from);
    e->ev.to_phase = strdup(to);
    e->ev.reason = strdup(reason);
    e->ev.message = strdup(message);
    journal_list_push(&b->pending, e);
    if (b->pending.count >= CHUNK)
        store_append(b->store, &b->pending);
    return e;
}

static char *status_json(const struct job *job)
{
    json_t *status = volcano_job_render_status(job);
    char *text = json_dumps(status, JSON_COMPACT);
    json_decref(status);
    return text;
}

static void job_phase(struct builder *b, struct job *job, enum job_phase to, const char *reason)
{
    enum job_phase from = job->status.phase;
    job->status.phase = to;
    job->status.transition_ms = b->now_ms;
    if (to == JOB_RUNNING)
        job->status.running_since_ms = b->now_ms;
    struct journal_entry *e = entry(b, JOURNAL_JOB_STATUS, job, "Job", job->name, job_phase_name(from),
                                    job_phase_name(to), reason, "");
    e->job_uid = strdup(job->uid);
    e->status_json = status_json(job);
    job->resource_version = e->ev.seq;
}

static void attempt(struct builder *b, struct job *job, int flat, int number, bool ends, int exit_code)
{
    char pod[160], log[256];
    int task = 0;
    while (task + 1 < job->ntasks && job->task_first[task + 1] <= flat)
        task++;
    snprintf(pod, sizeof pod, "%s-%s-%d", job->name, job->tasks[task].name, flat - job->task_first[task]);
    snprintf(log, sizeof log, "jobs/%s/logs/%s.%d.log", job->uid, pod, number);
    struct journal_entry *e = entry(b, JOURNAL_ATTEMPT_START, job, "Pod", pod, "Pending", "Running", "Started", "");
    e->attempt = (struct journal_attempt){.job_uid = strdup(job->uid),
                                          .pod = strdup(pod),
                                          .task = strdup(job->tasks[task].name),
                                          .index = flat - job->task_first[task],
                                          .attempt = number,
                                          .job_version = job->status.version,
                                          .node = strdup("n1"),
                                          .pid = 4000000 + flat,
                                          .pid_start = 17,
                                          .start_ms = b->now_ms,
                                          .log_path = strdup(log),
                                          .cgroup = strdup("/sys/fs/cgroup/memory/caldera/x")};
    if (!ends)
        return;
    const char *reason = exit_code == 0 ? "Completed" : "Error";
    e = entry(b, JOURNAL_ATTEMPT_END, job, "Pod", pod, "Running", exit_code == 0 ? "Succeeded" : "Failed", reason,
              exit_code == 0 ? "exit code 0" : "exit code 1");
    e->attempt = (struct journal_attempt){.job_uid = strdup(job->uid),
                                          .pod = strdup(pod),
                                          .attempt = number,
                                          .end_ms = b->now_ms,
                                          .exit_code = exit_code,
                                          .reason = strdup(reason),
                                          .message = strdup(""),
                                          .outcome = strdup(""),
                                          .peak_memory = 512 << 20,
                                          .cpu_usec = 4200000};
}

/* Job i: 90% finished (one in ten Failed, one in five with a retried pod), 5% running when the server
 * died (attempts with no end), 5% waiting. Live ones ask for 64 CPUs: more than any node has. */
static bool job_finished(int i) { return i % 20 < 18; }
static bool job_running(int i) { return i % 20 == 18; }

/* Submits job i (its create entry). Returns the job (the caller frees it), or NULL. */
static struct job *create_job(struct builder *b, int i)
{
    const char *cpu = job_finished(i) ? "1" : "64";
    char name[32], *yaml = NULL;
    snprintf(name, sizeof name, "bench-%06d", i);
    const char *shape = shapes[i % 10 < 6 ? 0 : i % 10 < 9 ? 1 : 2];
    if (asprintf(&yaml, shape, name, cpu, cpu) < 0)
        return NULL;
    struct intake in;
    struct api_status st = {0};
    struct job *job = NULL;
    int rc = intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st);
    free(yaml);
    if (rc == 0) {
        rc = volcano_job_from_doc(&in.docs[0], "default", &job, &st);
        intake_free(&in);
    }
    if (rc != 0) {
        fprintf(stderr, "bench_recovery: %s: %s\n", name, st.message);
        return NULL;
    }
    uuid_v4(job->uid);
    job->created_ms = b->now_ms;
    volcano_job_stamp_metadata(job);
    job->status.phase = JOB_PENDING;
    job_count_replicas(job);
    struct journal_entry *e = entry(b, JOURNAL_JOB_CREATE, job, "Job", name, "", "Pending", "Created",
                                    "job created in queue default");
    e->job_uid = strdup(job->uid);
    e->ns = strdup("default");
    e->name = strdup(name);
    e->created_ms = job->created_ms;
    e->spec_json = json_dumps(job_manifest(job), JSON_COMPACT);
    e->status_json = status_json(job);
    job->resource_version = e->ev.seq;
    return job;
}

/* Job i runs: its pods start and, unless it is one of the running ones, end. */
static void run_job(struct builder *b, struct job *job, int i)
{
    bool finished = job_finished(i), failed = i % 10 == 7;
    for (int r = 0; r < job->total_replicas; r++)
        job_set_replica_phase(job, r, POD_RUNNING);
    job_phase(b, job, JOB_RUNNING, "");
    for (int r = 0; r < job->total_replicas; r++) {
        int attempts = i % 5 == 1 && r == 0 ? 2 : 1;
        for (int a = 1; a <= attempts; a++)
            attempt(b, job, r, a, finished, a < attempts || failed ? 1 : 0);
        if (finished)
            job_set_replica_phase(job, r, failed ? POD_FAILED : POD_SUCCEEDED);
    }
    if (finished)
        job_phase(b, job, failed ? JOB_FAILED : JOB_COMPLETED, failed ? "PodFailed" : "TaskCompleted");
}

static int builder_open(struct builder *b, const char *path)
{
    char err[512];
    if (store_open(path, &b->store, err, sizeof err) != 0 || store_start_writer(b->store) != 0) {
        fprintf(stderr, "bench_recovery: %s\n", err);
        return -1;
    }
    b->seq = store_committed_seq(b->store);
    return 0;
}

static void builder_close(struct builder *b)
{
    store_append(b->store, &b->pending);
    store_wait(b->store, b->seq, -1);
    store_close(b->store);
    b->store = NULL;
}

static struct core *start_core(const char *dir, struct store *store, char *err, size_t errlen);

/* A server runs once on the database, as the one that wrote it did: its first cycle records why each
 * waiting gang waits (the PodGroup's Unschedulable condition, the Job's status), which a restart
 * restores rather than records again. Returns 0 once that is committed, or -1. */
static int run_server_once(const char *dir, const char *path)
{
    struct store *store = NULL;
    char err[512] = "";
    if (store_open(path, &store, err, sizeof err) != 0) {
        fprintf(stderr, "bench_recovery: %s\n", err);
        return -1;
    }
    struct core *core = start_core(dir, store, err, sizeof err);
    if (!core)
        fprintf(stderr, "bench_recovery: %s\n", err);
    int rc = -1;
    for (int tries = 0; core && rc != 0 && tries < 600; tries++) { /* the first cycle, within a minute */
        struct core_request req = {.op = CORE_JOB_GET, .ns = "default", .name = "bench-099999"};
        if (core_call(core, &req) == 0) {
            json_t *state = json_object_get(json_object_get(req.body, "status"), "state");
            const char *reason = json_string_value(json_object_get(state, "reason"));
            if (reason && strcmp(reason, "Unschedulable") == 0 && store_wait(store, req.durable_seq, 60000) == 0)
                rc = 0;
        }
        json_decref(req.body);
        if (rc != 0)
            usleep(100 * 1000);
    }
    if (core)
        core_stop(core);
    store_close(store);
    core_free(core);
    return rc;
}

/* Builds the database as a server killed with work in hand leaves it: every job submitted, the
 * finished ones run, a server's first cycle over the waiting ones, then the running ones started (so
 * that server is not the one that died with them). */
static int build_database(const char *dir, const char *path)
{
    struct builder b = {.now_ms = T0_MS};
    struct job **running = calloc(NJOBS, sizeof *running);
    int nrunning = 0, rc = running ? builder_open(&b, path) : -1;
    for (int i = 0; i < NJOBS && rc == 0; i++) {
        struct job *job = create_job(&b, i);
        if (!job)
            rc = -1;
        else if (job_running(i))
            running[nrunning++] = job;
        else {
            if (job_finished(i))
                run_job(&b, job, i);
            job_free(job);
        }
    }
    if (b.store)
        builder_close(&b);
    if (rc == 0)
        rc = run_server_once(dir, path);
    if (rc == 0 && (rc = builder_open(&b, path)) == 0) {
        for (int k = 0, i = 0; k < nrunning; i++)
            if (job_running(i))
                run_job(&b, running[k++], i);
        builder_close(&b);
    }
    for (int k = 0; k < nrunning; k++)
        job_free(running[k]);
    free(running);
    return rc;
}

/* ---- measuring ------------------------------------------------------------------------------------ */

/* The copy is put on disk before the start is timed: a server restarts on a database it wrote long
 * ago, not on 400 MB of pages still dirty, which the first commit's fsync may otherwise wait for
 * when the file system commits its journal. */
static int copy_file(const char *from, const char *to)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    if (system(cmd) != 0)
        return -1;
    int fd = open(to, O_RDONLY);
    int rc = fd >= 0 && fsync(fd) == 0 ? 0 : -1;
    if (fd >= 0)
        close(fd);
    return rc;
}

/* store_open's checks alone (PRAGMA quick_check and the schema version), as the start runs them. */
static double time_quick_check(const char *path)
{
    char err[512];
    double t0 = bench_now();
    if (store_check_file(path, err, sizeof err) != 0) {
        fprintf(stderr, "bench_recovery: %s\n", err);
        return -1;
    }
    return bench_now() - t0;
}

/* core_start as the jobserver calls it, on the bench's four nodes; NULL with err set on failure (the
 * store is then still the caller's). */
static struct core *start_core(const char *dir, struct store *store, char *err, size_t errlen)
{
    struct core_config cfg = {.data_dir = dir, .period_ms = 1000, .store = store};
    struct api_status st = {0};
    struct machine m = {0};
    host_identify(&m);
    if (nodes_from_yaml(nodes_yaml, strlen(nodes_yaml), m.arch, clock_wall_ms(), &cfg.nodes, &cfg.nnodes, &st) != 0) {
        snprintf(err, errlen, "nodes: %s", st.message);
        return NULL;
    }
    sched_conf_default(&cfg.conf);
    struct core *core = NULL;
    return core_start(&cfg, &core, err, errlen) == 0 ? core : NULL;
}

/* What one start took, in seconds from its beginning (list: the second list page alone). */
struct start_times {
    double answered, open, core, ready, list;
};

/* One start as the jobserver does it: store_open (the read-only connection), core_start (the awake
 * jobs read, the core thread started), a first GET answered and durable (the job waited for a gang, so
 * the core answers it before the rest of its start is over), then core_wait_ready (the checks, the
 * sleeping jobs, recovery, the writer). Returns 0, or -1. */
static int time_start(const char *dir, const char *path, struct start_times *t)
{
    struct store *store = NULL;
    char err[512] = "";
    double t0 = bench_now();
    if (store_open_checking(path, &store, err, sizeof err) != 0) {
        fprintf(stderr, "bench_recovery: %s\n", err);
        return -1;
    }
    t->open = bench_now() - t0;
    struct core *core = start_core(dir, store, err, sizeof err);
    if (!core) {
        fprintf(stderr, "bench_recovery: %s\n", err);
        return -1;
    }
    t->core = bench_now() - t0;
    struct core_request req = {.op = CORE_JOB_GET, .ns = "default", .name = "bench-099999"};
    int rc = core_call(core, &req);
    if (rc == 0)
        store_wait(store, req.durable_seq, -1);
    t->answered = bench_now() - t0;
    json_decref(req.body);
    if (rc == 0 && (rc = core_wait_ready(core, err, sizeof err)) != 0)
        fprintf(stderr, "bench_recovery: %s\n", err);
    t->ready = bench_now() - t0;
    /* then the job list's first pages, as a dashboard asks after a restart: their jobs are the oldest,
     * mostly finished ones, which are read (woken) for them. The second page is timed: the first may
     * wait for the first cycle on the core thread. */
    struct core_request list = {.op = CORE_JOB_LIST, .ns = "default", .limit = LIST_PAGE};
    if (rc == 0 && (rc = core_call(core, &list)) == 0 && !list.more)
        rc = -1;
    struct core_request next = {
        .op = CORE_JOB_LIST, .ns = "default", .limit = LIST_PAGE, .has_after = true, .after = list.page_end};
    double l0 = bench_now();
    if (rc == 0 && (rc = core_call(core, &next)) == 0 &&
        json_array_size(json_object_get(next.body, "items")) != LIST_PAGE)
        rc = -1;
    t->list = bench_now() - l0;
    json_decref(list.body);
    json_decref(next.body);
    core_stop(core);
    store_close(store); /* drains the writer, which may hold watch objects sharing the core's state */
    core_free(core);
    return rc == 0 ? 0 : -1;
}

/* The child's side: one start of the server's core on the copy at path, its times on stdout. */
static int start_once(const char *dir, const char *path)
{
    struct start_times t = {0};
    if (time_start(dir, path, &t) != 0)
        return 1;
    printf("%.6f %.6f %.6f %.6f %.6f\n", t.answered, t.open, t.core, t.ready, t.list);
    return 0;
}

/* Runs this program again as `--start DIR PATH` and reads its times and its peak resident memory (the
 * mapped database's pages included). Returns 0, or -1. */
static int time_start_fresh(const char *dir, const char *path, struct start_times *t, double *peak_mib)
{
    int out[2];
    if (pipe(out) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        close(out[1]);
        execl("/proc/self/exe", "bench_recovery", "--start", dir, path, (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    char line[160] = "";
    ssize_t n = pid > 0 ? read(out[0], line, sizeof line - 1) : -1;
    close(out[0]);
    int status = 0;
    struct rusage ru = {0};
    if (pid > 0)
        wait4(pid, &status, 0, &ru);
    *peak_mib = ru.ru_maxrss / 1024.0;
    if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        sscanf(line, "%lf %lf %lf %lf %lf", &t->answered, &t->open, &t->core, &t->ready, &t->list) != 5)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--start") == 0) {
        log_set_level(getenv("BENCH_INFO") ? LOG_INFO : LOG_WARN);
        json_object_seed(0);
        return start_once(argv[2], argv[3]);
    }
    bool want_start = bench_wanted("recovery_s_100k_jobs"), want_ready = bench_wanted("recovery_ready_s_100k_jobs"),
         want_check = bench_wanted("quick_check_s_100k_jobs");
    if (!want_start && !want_ready && !want_check)
        return 0;
    log_set_level(LOG_WARN);
    json_object_seed(0);
    char dir[] = "/tmp/caldera-bench-recovery-XXXXXX", pristine[4096], path[128];
    if (!mkdtemp(dir))
        return 1;
    snprintf(pristine, sizeof pristine, "%s/pristine.db", dir);
    snprintf(path, sizeof path, "%s/caldera.db", dir);
    /* CALDERA_BENCH_RECOVERY_DB keeps the built database there and reuses it (for profiling starts). */
    const char *kept = getenv("CALDERA_BENCH_RECOVERY_DB");
    if (kept && *kept)
        snprintf(pristine, sizeof pristine, "%s", kept);
    struct stat sb;
    double t0 = bench_now();
    if (stat(pristine, &sb) != 0) {
        if (build_database(dir, pristine) != 0) {
            remove_tree(dir);
            return 1;
        }
        stat(pristine, &sb);
        fprintf(stderr, "bench_recovery: %d jobs, %.0f MB, built in %.1f s\n", NJOBS, sb.st_size / 1e6,
                bench_now() - t0);
    }
    double answered[RUNS], ready[RUNS], checks[RUNS];
    int status = 0;
    for (int r = 0; r < RUNS && status == 0; r++) {
        struct start_times t = {0};
        double peak = 0;
        checks[r] = time_quick_check(pristine);
        if (copy_file(pristine, path) != 0 || time_start_fresh(dir, path, &t, &peak) != 0)
            status = 1;
        else
            fprintf(stderr,
                    "bench_recovery: run %d: first answer durable %.3f s (store_open %.3f s, core_start %.3f s), "
                    "start over %.3f s; quick_check alone %.3f s, peak RSS %.0f MiB; a second list page of %d jobs "
                    "%.3f s\n",
                    r + 1, t.answered, t.open, t.core - t.open, t.ready, checks[r], peak, LIST_PAGE, t.list);
        answered[r] = t.answered;
        ready[r] = t.ready;
        unlink(path);
    }
    if (status == 0 && want_start)
        bench_report("recovery_s_100k_jobs", bench_median(answered, RUNS), "s");
    if (status == 0 && want_ready)
        bench_report("recovery_ready_s_100k_jobs", bench_median(ready, RUNS), "s");
    if (status == 0 && want_check)
        bench_report("quick_check_s_100k_jobs", bench_median(checks, RUNS), "s");
    remove_tree(dir);
    return status;
}
