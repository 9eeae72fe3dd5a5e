/* Real training jobs through the Kubeflow dialect: a PyTorchJob (master + 2 workers) training with
 * DistributedDataParallel over gloo on the pytorch plugin's wiring, torchrun with two local ranks in one
 * pod, and an MPIJob whose launcher runs mpirun over ssh to the workers' sshd. The jobs run the sources
 * in tests/integration/data/ml with Debian's python3-torch, openmpi-bin and openssh-server, which the
 * test installs through tools/ensure-deps (each case skips, saying why, when they cannot be had). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define ML_DIR "tests/integration/data/ml"
#define JOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
#define PODS "/api/v1/namespaces/default/pods"
#define KUBEFLOW "/apis/kubeflow.org/v1/namespaces/default"
#define WAIT_MS 120000  /* a bound on a job's run, never an assertion on its speed */
#define LOSS_BELOW 0.01 /* the seeded data's noise has variance 1e-4: a fitted model is near it */
#define LOSS_AGREE 1e-6 /* DDP keeps the replicas equal: every rank's final loss is the same */
#define TORCH_PACKAGES "python3-torch"
#define MPI_PACKAGES "openmpi-bin libopenmpi-dev openssh-server openssh-client"

/* --- the packages ------------------------------------------------------------------------------------ */

/* tools/ensure-deps PACKAGES (apt-get when one is missing); prints how long it took. Returns whether
 * they are installed; *why says the last line of its output otherwise. */
static bool ensure_packages(const char *packages, char *why, size_t why_len)
{
    char log[] = "/tmp/caldera-ml-deps-XXXXXX", cmd[512];
    int fd = mkstemp(log);
    if (fd < 0) {
        snprintf(why, why_len, "cannot make a temporary file");
        return false;
    }
    close(fd);
    snprintf(cmd, sizeof cmd, "./tools/ensure-deps %s >%s 2>&1", packages, log);
    int64_t started = clock_mono_ms();
    int rc = system(cmd);
    printf("# tools/ensure-deps %s: %.1f s\n", packages, (double)(clock_mono_ms() - started) / 1000.0);
    char *out = NULL;
    snprintf(why, why_len, "tools/ensure-deps %s failed", packages);
    if (rc != 0 && read_file(log, 1 << 20, &out, NULL) == 0) {
        char *end = out + strlen(out);
        while (end > out && end[-1] == '\n')
            *--end = '\0';
        char *last = strrchr(out, '\n');
        snprintf(why, why_len, "tools/ensure-deps %s: %s", packages, last ? last + 1 : out);
    }
    free(out);
    unlink(log);
    return rc == 0;
}

/* --- the server and its jobs ------------------------------------------------------------------------- */

static struct test_server shared;
static bool shared_up, shared_failed;

static struct test_server *ml_server(void)
{
    if (!shared_up && !shared_failed)
        shared_up = !(shared_failed = server_start(&shared, NULL, NULL) != 0);
    return shared_up ? &shared : NULL;
}

/* Posts data/ml/<file> to the kind's path with @ML_DIR@ replaced by the folder's absolute path. */
static long submit(const struct test_server *s, const char *plural, const char *file)
{
    char path[512], cwd[512], *text = NULL;
    snprintf(path, sizeof path, ML_DIR "/%s", file);
    if (!getcwd(cwd, sizeof cwd) || read_file(path, 1 << 20, &text, NULL) != 0)
        return -1;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/" ML_DIR, cwd);
    size_t need = strlen(text) + 1;
    for (const char *p = strstr(text, "@ML_DIR@"); p; p = strstr(p + 1, "@ML_DIR@"))
        need += strlen(dir);
    char *yaml = malloc(need), *w = yaml;
    if (!yaml) {
        free(text);
        return -1;
    }
    for (const char *r = text; *r;) {
        const char *at = strstr(r, "@ML_DIR@");
        size_t n = at ? (size_t)(at - r) : strlen(r);
        memcpy(w, r, n);
        w += n;
        r += n;
        if (at) {
            w = stpcpy(w, dir);
            r += strlen("@ML_DIR@");
        }
    }
    *w = '\0';
    long code;
    snprintf(path, sizeof path, KUBEFLOW "/%s", plural);
    json_t *r = server_request(s, "POST", path, yaml, "application/yaml", &code);
    if (code != 201)
        fprintf(stderr, "submit %s: HTTP %ld: %s\n", file, code, json_string_value(json_object_get(r, "message")));
    json_decref(r);
    free(yaml);
    free(text);
    return code;
}

/* Waits for the job's end; true when it Completed. Prints how long it ran. */
static bool wait_completed(const struct test_server *s, const char *job)
{
    char path[256];
    snprintf(path, sizeof path, JOBS "/%s", job);
    int64_t started = clock_mono_ms();
    bool ok = server_wait_field(s, path, "status.state.phase", "Completed", WAIT_MS) == 0;
    printf("# job %s: %s after %.1f s\n", job, ok ? "Completed" : "not Completed", (clock_mono_ms() - started) / 1e3);
    return ok;
}

/* The n pods' logs (NULL where there is none), each shown when the job did not complete or it lacks. */
static void pod_logs(const struct test_server *s, const char *const *pods, int n, bool done, char **logs)
{
    for (int i = 0; i < n; i++) {
        logs[i] = server_pod_log(s, pods[i]);
        if (!done || !logs[i])
            fprintf(stderr, "--- %s log:\n%s\n", pods[i], logs[i] ? logs[i] : "(none)");
    }
}

/* --- reading what the ranks printed ------------------------------------------------------------------ */

/* The number after "rank <rank> <what>: " anywhere in log (torchrun prefixes "[default0]:"); NAN when
 * absent. */
static double rank_figure(const char *log, int rank, const char *what)
{
    char key[96];
    snprintf(key, sizeof key, "rank %d %s: ", rank, what);
    const char *at = log ? strstr(log, key) : NULL;
    return at ? strtod(at + strlen(key), NULL) : NAN;
}

/* The seconds train.py's "rank R of N: torch ... imported in X s" line gives; NAN when absent. */
static double import_seconds(const char *log, int rank)
{
    char key[64];
    snprintf(key, sizeof key, "rank %d of ", rank);
    const char *at = log ? strstr(log, key) : NULL;
    at = at ? strstr(at, "imported in ") : NULL;
    return at ? strtod(at + strlen("imported in "), NULL) : NAN;
}

/* Every rank 0..nranks-1 (rank r's output in logs[r]) printed a final loss below LOSS_BELOW, the same
 * as rank 0's to LOSS_AGREE, and lower than its first. */
static void check_training(char *const *logs, int nranks)
{
    double loss0 = rank_figure(logs[0], 0, "final loss");
    CHECK(!isnan(loss0));
    CHECK(loss0 < LOSS_BELOW);
    for (int r = 0; r < nranks; r++) {
        double first = rank_figure(logs[r], r, "first loss"), final = rank_figure(logs[r], r, "final loss");
        printf("# rank %d: torch import %.2f s, first loss %.6f, final loss %.8f\n", r, import_seconds(logs[r], r),
               first, final);
        CHECK(!isnan(final) && !isnan(first));
        CHECK(fabs(final - loss0) <= LOSS_AGREE);
        CHECK(final < first);
    }
}

/* --- the cases ------------------------------------------------------------------------------------- */

/* A PyTorchJob, master + 2 workers: torch.distributed over gloo on MASTER_ADDR/MASTER_PORT/WORLD_SIZE/
 * RANK, DDP training, every rank the same final loss. */
static void pytorchjob_trains_with_ddp_over_gloo(void)
{
    char why[512];
    SKIP_IF(!ensure_packages(TORCH_PACKAGES, why, sizeof why), "no Debian python3-torch: %s", why);
    struct test_server *s = ml_server();
    REQUIRE(s);
    REQUIRE(submit(s, "pytorchjobs", "pytorchjob-ddp.yaml") == 201);
    bool done = wait_completed(s, "ddp");
    static const char *const pods[] = {"ddp-master-0", "ddp-worker-0", "ddp-worker-1"};
    char *logs[3];
    pod_logs(s, pods, 3, done, logs);
    CHECK(done);
    for (int i = 0; i < 3; i++)
        CHECK_CONTAINS(logs[i], "of 3: torch"); /* WORLD_SIZE 3; RANK: the master 0, worker i i + 1 */
    check_training(logs, 3);
    for (int i = 0; i < 3; i++)
        free(logs[i]);
    long code;
    json_t *job = server_request(s, "GET", KUBEFLOW "/pytorchjobs/ddp", NULL, NULL, &code);
    CHECK_INT(code, 200);
    /* Kubeflow's own answer: the job Succeeded with its master (the workers may be stopped after). */
    bool succeeded = false;
    json_t *condition;
    size_t i;
    json_array_foreach(server_json_at(job, "status.conditions"), i, condition)
    {
        const char *type = json_string_value(json_object_get(condition, "type"));
        const char *status = json_string_value(json_object_get(condition, "status"));
        succeeded = succeeded || (type && status && !strcmp(type, "Succeeded") && !strcmp(status, "True"));
    }
    CHECK(succeeded);
    CHECK_INT(json_integer_value(server_json_at(job, "status.replicaStatuses.Master.succeeded")), 1);
    json_decref(job);
}

/* torchrun with two local ranks in the one pod of a PyTorchJob, its rendezvous on the plugin's port. */
static void torchrun_trains_two_local_ranks_in_one_pod(void)
{
    char why[512];
    SKIP_IF(!ensure_packages(TORCH_PACKAGES, why, sizeof why), "no Debian python3-torch: %s", why);
    struct test_server *s = ml_server();
    REQUIRE(s);
    REQUIRE(submit(s, "pytorchjobs", "pytorchjob-torchrun.yaml") == 201);
    bool done = wait_completed(s, "torchrun");
    char *log = server_pod_log(s, "torchrun-master-0");
    if (!done || !log)
        fprintf(stderr, "--- torchrun-master-0 log:\n%s\n", log ? log : "(none)");
    CHECK(done);
    CHECK_CONTAINS(log, "rank 0 of 2: torch");
    CHECK_CONTAINS(log, "rank 1 of 2: torch");
    char *logs[2] = {log, log};
    check_training(logs, 2);
    free(log);
}

/* An MPIJob: the launcher's mpirun reaches both workers' sshd over ssh (the ssh plugin's keys and config,
 * the mpi plugin's ports and hostfile) and the ranks' MPI_Allreduce sums 1 + 2. */
static void mpijob_runs_mpirun_over_ssh_on_the_workers(void)
{
    char why[512];
    SKIP_IF(!ensure_packages(MPI_PACKAGES, why, sizeof why), "no Debian Open MPI or OpenSSH server: %s", why);
    SKIP_IF(geteuid() != 0,
            "the ssh plugin's keys are bound over the tasks' ~/.ssh only when the server runs as "
            "root (uid %d here), and mpirun's ssh needs them",
            (int)geteuid());
    struct test_server *s = ml_server();
    REQUIRE(s);
    char *server_log = NULL;
    bool binds = read_file(s->log_path, 1 << 20, &server_log, NULL) == 0 &&
                 !strstr(server_log, "hosts files and ssh keys are not bound");
    free(server_log);
    SKIP_IF(!binds, "the server has no CAP_SYS_ADMIN: it binds no hosts file or ssh keys, and mpirun's ssh needs them");
    REQUIRE(submit(s, "mpijobs", "mpijob-allreduce.yaml") == 201);
    bool done = wait_completed(s, "allreduce");
    static const char *const pods[] = {"allreduce-launcher-0", "allreduce-worker-0", "allreduce-worker-1"};
    char *logs[3];
    pod_logs(s, pods, 3, done, logs);
    CHECK(done);
    CHECK_CONTAINS(logs[0], "allreduce-worker-0.allreduce slots=1\nallreduce-worker-1.allreduce slots=1\n");
    CHECK_CONTAINS(logs[0], "rank 0 of 2: sum 3, ssh 127.0.0.1 ");
    CHECK_CONTAINS(logs[0], "rank 1 of 2: sum 3, ssh 127.0.0.1 ");
    /* Each rank came through a different worker's sshd: the ports ending the ranks' SSH_CONNECTION are
     * the two workers' "Server listening on 127.0.0.1 port N." */
    long rank_ports[2] = {0, 0};
    for (int r = 0; r < 2; r++) {
        char key[64];
        snprintf(key, sizeof key, "rank %d of 2: sum 3, ssh ", r);
        const char *at = logs[0] ? strstr(logs[0], key) : NULL;
        const char *eol = at ? strchr(at, '\n') : NULL;
        const char *space = eol;
        while (space && space > at && space[-1] != ' ')
            space--;
        rank_ports[r] = space ? strtol(space, NULL, 10) : 0;
    }
    CHECK(rank_ports[0] > 0 && rank_ports[1] > 0 && rank_ports[0] != rank_ports[1]);
    for (int w = 1; w < 3; w++) {
        const char *at = logs[w] ? strstr(logs[w], "Server listening on 127.0.0.1 port ") : NULL;
        long port = at ? strtol(at + strlen("Server listening on 127.0.0.1 port "), NULL, 10) : 0;
        CHECK(port > 0 && (port == rank_ports[0] || port == rank_ports[1]));
        CHECK_CONTAINS(logs[w], "Accepted publickey for ");
    }
    for (int i = 0; i < 3; i++)
        free(logs[i]);
}

static void shared_server_stops_cleanly(void)
{
    if (!shared_up)
        return;
    CHECK_INT(server_stop(&shared), 0);
    server_cleanup(&shared);
    shared_up = false;
}

TEST_MAIN(TEST_CASE(pytorchjob_trains_with_ddp_over_gloo), TEST_CASE(torchrun_trains_two_local_ranks_in_one_pod),
          TEST_CASE(mpijob_runs_mpirun_over_ssh_on_the_workers), TEST_CASE(shared_server_stops_cleanly))
