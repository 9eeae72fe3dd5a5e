/* A full disk through the real server: a create in flight is withdrawn (507: never created), a
 * deletion in flight answered 504 (made, recorded later), nothing starts while nothing can be
 * recorded, every acknowledged job runs once across a kill -9 during the fill, an exit during it
 * keeps its code, and a task that fails for lack of space says so (DiskFull). Root only (tmpfs). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define JOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
#define PODS "/api/v1/namespaces/default/pods"
#define HISTORY "/apis/caldera.io/v1/namespaces/default/jobhistories"
#define QUEUED 6 /* acknowledged jobs that wait for room, then run once each */
#define WAIT_MS 60000
#define HOLD_CHECK_MS 2500 /* how long nothing may start while the disk is full */

static const char *const node_args[] = {"--nodes", "examples/nodes.yaml", NULL};

/* ---- disks and files ------------------------------------------------------------------------------ */

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* A tmpfs of size at a new directory. Returns 0, or -1 when mounts are not allowed (errno kept). */
static int mount_tmpfs(char *dir, size_t len, const char *size)
{
    snprintf(dir, len, "/tmp/caldera-diskfull-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    char opts[64];
    snprintf(opts, sizeof opts, "size=%s", size);
    if (mount("tmpfs", dir, "tmpfs", 0, opts) != 0) {
        int e = errno;
        rmdir(dir);
        errno = e;
        return -1;
    }
    return 0;
}

static void unmount_tmpfs(const char *dir)
{
    if (umount2(dir, MNT_DETACH) != 0)
        fprintf(stderr, "umount %s: %s\n", dir, strerror(errno));
    rmdir(dir);
}

/* Writes <dir>/filler until the file system refuses with ENOSPC, down to single blocks. */
static int fill_disk(const char *dir)
{
    char path[300];
    snprintf(path, sizeof path, "%s/filler", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    static char block[65536];
    int err = 0;
    for (size_t step = sizeof block; step >= 512; step /= 2) {
        while (write(fd, block, step) == (ssize_t)step)
            ;
        err = errno;
    }
    close(fd);
    return err == ENOSPC ? 0 : -1;
}

static void free_disk(const char *dir)
{
    char path[300];
    snprintf(path, sizeof path, "%s/filler", dir);
    unlink(path);
}

/* Lines in <dir>/<name>: how many times a task ran (each run appends one). */
static int runs(const char *dir, const char *name)
{
    char path[300], *text = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (read_file(path, 1 << 16, &text, NULL) != 0)
        return 0;
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    free(text);
    return n;
}

static void touch(const char *dir, const char *name)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
}

/* ---- jobs --------------------------------------------------------------------------------------- */

/* A job of `replicas` replicas asking cpu each, running `command` in sh (extra: more pod spec lines,
 * indented for the pod spec, or ""; work_dir: the container's workingDir, or NULL). */
static long submit_in(const struct test_server *s, const char *name, int replicas, const char *cpu, const char *command,
                      const char *extra, const char *work_dir, json_t **answer)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: %s}\n"
             "spec:\n  minAvailable: %d\n  tasks:\n  - name: t\n    replicas: %d\n    template:\n      spec:\n%s"
             "        containers:\n        - name: c\n          command: [sh, -c, \"%s\"]\n"
             "          resources: {requests: {cpu: \"%s\"}}\n%s%s%s",
             name, replicas, replicas, extra, command, cpu, work_dir ? "          workingDir: " : "",
             work_dir ? work_dir : "", work_dir ? "\n" : "");
    long code = 0;
    json_t *r = server_request(s, "POST", JOBS, yaml, "application/yaml", &code);
    if (answer)
        *answer = r;
    else
        json_decref(r);
    return code;
}

static long submit(const struct test_server *s, const char *name, int replicas, const char *cpu, const char *command,
                   const char *extra, json_t **answer)
{
    return submit_in(s, name, replicas, cpu, command, extra, NULL, answer);
}

static const char *text_at(json_t *doc, const char *path) { return json_string_value(server_json_at(doc, path)); }

static json_t *get(const struct test_server *s, const char *collection, const char *name, long *code)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%s", collection, name);
    return server_request(s, "GET", path, NULL, NULL, code);
}

/* Polls until the text at field of collection/name contains want. Returns 0, or -1 (said why). */
static int wait_contains(const struct test_server *s, const char *collection, const char *name, const char *field,
                         const char *want, int timeout_ms)
{
    int64_t deadline = clock_mono_ms() + timeout_ms;
    char last[600] = "";
    while (clock_mono_ms() < deadline) {
        long code;
        json_t *doc = get(s, collection, name, &code);
        const char *v = text_at(doc, field);
        snprintf(last, sizeof last, "%ld %s", code, v ? v : "(none)");
        bool found = v && strstr(v, want);
        json_decref(doc);
        if (found)
            return 0;
        sleep_ms(100);
    }
    fprintf(stderr, "%s/%s %s: wanted \"%s\", last saw %s\n", collection, name, field, want, last);
    return -1;
}

static int wait_phase(const struct test_server *s, const char *job, const char *phase)
{
    char path[300];
    snprintf(path, sizeof path, JOBS "/%s", job);
    return server_wait_field(s, path, "status.state.phase", phase, WAIT_MS);
}

/* ---- the fill ----------------------------------------------------------------------------------- */

struct scene {
    char disk[64];  /* the data directory: a small tmpfs */
    char marks[64]; /* where tasks count their runs: outside the tmpfs */
    struct test_server server;
};

/* Before the fill: a blocker holds both untainted nodes, QUEUED jobs wait for them (acknowledged),
 * and an exiter runs on the tainted node until released, then exits 7. */
static int set_scene(struct scene *sc)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "echo run >> %s/blocker; while [ ! -e %s/release ]; do sleep 0.05; done", sc->marks,
             sc->marks);
    if (submit(&sc->server, "blocker", 2, "4", cmd, "", NULL) != 201 || wait_phase(&sc->server, "blocker", "Running"))
        return -1;
    snprintf(cmd, sizeof cmd, "echo run >> %s/exiter; while [ ! -e %s/release ]; do sleep 0.05; done; exit 7",
             sc->marks, sc->marks);
    const char *tolerate = "        tolerations: [{key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}]\n";
    /* its working directory has room: its failure is its own (Error), the disk's is the data's */
    if (submit_in(&sc->server, "exiter", 1, "1", cmd, tolerate, sc->marks, NULL) != 201 ||
        wait_phase(&sc->server, "exiter", "Running"))
        return -1;
    for (int i = 0; i < QUEUED; i++) {
        char name[32];
        snprintf(name, sizeof name, "queued-%d", i);
        snprintf(cmd, sizeof cmd, "echo run >> %s/%s", sc->marks, name);
        if (submit(&sc->server, name, 1, "1", cmd, "", NULL) != 201)
            return -1;
    }
    return wait_phase(&sc->server, "queued-0", "Pending");
}

/* The create in flight when the disk fills: its commit fails, the durable wait times out, and the
 * job is withdrawn: 507, and it does not exist. */
static void create_in_flight_is_withdrawn(const struct scene *sc)
{
    json_t *answer = NULL;
    long code = submit(&sc->server, "inflight", 1, "1", "true", "", &answer);
    CHECK_INT(code, 507);
    CHECK_STR(text_at(answer, "reason"), "InsufficientStorage");
    CHECK_CONTAINS(text_at(answer, "message"), "was withdrawn: it was not created and will not run");
    printf("# in flight: %ld \"%s\"\n", code, text_at(answer, "message") ? text_at(answer, "message") : "");
    json_decref(answer);
    json_t *job = get(&sc->server, JOBS, "inflight", &code);
    CHECK_INT(code, 404);
    json_decref(job);
}

/* While full: the released blocker and exiter end, but nothing new starts: the queued jobs wait,
 * saying why, and no task of theirs runs. */
static void nothing_starts_while_full(const struct scene *sc)
{
    touch(sc->marks, "release");
    CHECK_INT(wait_contains(&sc->server, PODS, "blocker-t-0", "status.phase", "Succeeded", WAIT_MS), 0);
    CHECK_INT(wait_contains(&sc->server, PODS, "exiter-t-0", "status.phase", "Failed", WAIT_MS), 0);
    const char *held = "waiting for the database: no space left on device";
    CHECK_INT(wait_contains(&sc->server, PODS, "queued-0-t-0", "status.conditions.0.message", held, WAIT_MS), 0);
    CHECK_INT(wait_contains(&sc->server, JOBS, "queued-0", "status.state.message", held, WAIT_MS), 0);
    sleep_ms(HOLD_CHECK_MS); /* a few scheduling periods */
    for (int i = 0; i < QUEUED; i++) {
        char name[32];
        snprintf(name, sizeof name, "queued-%d", i);
        CHECK_INT(runs(sc->marks, name), 0);
    }
    long code;
    json_t *pod = get(&sc->server, PODS, "queued-1-t-0", &code);
    CHECK_STR(text_at(pod, "status.phase"), "Pending");
    json_decref(pod);
}

/* After the fill, with room again (and maybe a restart): every acknowledged job ran exactly once,
 * the exiter's code is its own, and the withdrawn job never appeared. */
static void each_ran_once(const struct scene *sc)
{
    for (int i = 0; i < QUEUED; i++) {
        char name[32];
        snprintf(name, sizeof name, "queued-%d", i);
        CHECK_INT(wait_phase(&sc->server, name, "Completed"), 0);
        CHECK_INT(runs(sc->marks, name), 1);
    }
    CHECK_INT(wait_phase(&sc->server, "blocker", "Completed"), 0);
    CHECK_INT(runs(sc->marks, "blocker"), 2);
    CHECK_INT(wait_phase(&sc->server, "exiter", "Failed"), 0);
    CHECK_INT(runs(sc->marks, "exiter"), 1);
    long code;
    json_t *pod = get(&sc->server, PODS, "exiter-t-0", &code);
    json_t *exit_code = server_json_at(pod, "status.containerStatuses.0.state.terminated.exitCode");
    CHECK_INT(json_integer_value(exit_code), 7);
    CHECK_STR(text_at(pod, "status.containerStatuses.0.state.terminated.reason"), "Error");
    json_decref(pod);
    json_t *job = get(&sc->server, JOBS, "inflight", &code);
    CHECK_INT(code, 404);
    json_decref(job);
    job = get(&sc->server, HISTORY, "inflight", &code);
    CHECK_INT(code, 404);
    json_decref(job);
}

static void disk_full_scene(bool crash_while_full)
{
    static struct scene sc;
    memset(&sc, 0, sizeof sc);
    if (mount_tmpfs(sc.disk, sizeof sc.disk, "16m") != 0) {
        test_skip("cannot mount a tmpfs here (%s): disk-full needs root and mount(2)", strerror(errno));
        return;
    }
    snprintf(sc.marks, sizeof sc.marks, "/tmp/caldera-marks-XXXXXX");
    REQUIRE(mkdtemp(sc.marks));
    if (server_start(&sc.server, sc.disk, node_args) != 0) {
        CHECK(!"server started on the tmpfs");
        goto out;
    }
    if (set_scene(&sc) != 0) {
        CHECK(!"blocker, exiter and queued jobs in place");
        goto out;
    }
    REQUIRE(fill_disk(sc.disk) == 0);
    if (!crash_while_full) /* the create finds the disk full: the store is failing from then on */
        create_in_flight_is_withdrawn(&sc);
    /* with a crash: the releases are the first changes after the fill, so the cycle that would start
     * the queued jobs runs before any commit has failed */
    nothing_starts_while_full(&sc);
    if (crash_while_full) {
        long code;
        json_t *answer = NULL;
        code = submit(&sc.server, "inflight", 1, "1", "true", "", &answer);
        CHECK_INT(code, 507); /* refused at once now: the store is failing */
        CHECK_CONTAINS(text_at(answer, "message"), "nothing was created");
        json_decref(answer);
        server_kill9(&sc.server);
    }
    free_disk(sc.disk);
    if (crash_while_full && server_start(&sc.server, sc.disk, node_args) != 0) {
        CHECK(!"server restarted after the kill -9");
        goto out;
    }
    each_ran_once(&sc);
    if (!crash_while_full) { /* and so it stays after a restart */
        CHECK_INT(server_stop(&sc.server), 0);
        if (server_start(&sc.server, sc.disk, node_args) == 0)
            each_ran_once(&sc);
        else
            CHECK(!"server restarted");
    }
    CHECK_INT(server_stop(&sc.server), 0);
out:
    server_kill9(&sc.server);
    unmount_tmpfs(sc.disk);
    remove_tree(sc.marks);
}

static void full_disk_withdraws_in_flight_create_and_holds_starts(void) { disk_full_scene(false); }
static void kill9_while_full_runs_each_acknowledged_job_once(void) { disk_full_scene(true); }

/* A deletion in flight when the disk fills cannot be taken back: it is answered 504 (made, recorded
 * later), never as if it had not happened, and it is recorded once space returns. */
static void delete_in_flight_is_answered_504_and_recorded_later(void)
{
    char disk[64];
    if (mount_tmpfs(disk, sizeof disk, "16m") != 0) {
        test_skip("cannot mount a tmpfs here (%s): disk-full needs root and mount(2)", strerror(errno));
        return;
    }
    struct test_server s;
    if (server_start(&s, disk, node_args) != 0) {
        CHECK(!"server started on the tmpfs");
        unmount_tmpfs(disk);
        return;
    }
    CHECK_INT(submit(&s, "doomed", 1, "1000", "true", "", NULL), 201); /* never placed */
    CHECK_INT(wait_phase(&s, "doomed", "Pending"), 0);
    REQUIRE(fill_disk(disk) == 0);
    long code;
    json_t *answer = server_request(&s, "DELETE", JOBS "/doomed", NULL, NULL, &code);
    CHECK_INT(code, 504);
    CHECK_STR(text_at(answer, "reason"), "Timeout");
    CHECK_CONTAINS(text_at(answer, "message"), "the deletion was made but the job database could not record it");
    printf("# in flight: %ld \"%s\"\n", code, text_at(answer, "message") ? text_at(answer, "message") : "");
    json_decref(answer);
    json_t *job = get(&s, JOBS, "doomed", &code);
    CHECK_INT(code, 404); /* as the answer said: it is gone */
    json_decref(job);
    free_disk(disk);
    char *health = NULL;
    for (int i = 0; i < 100 && code != 200; i++) { /* recorded once the writer's retry succeeds */
        free(health);
        sleep_ms(100);
        health = server_request_text(&s, "GET", "/healthz", &code);
    }
    free(health);
    CHECK_INT(code, 200);
    CHECK_INT(server_stop(&s), 0);
    if (server_start(&s, disk, node_args) == 0) {
        job = get(&s, JOBS, "doomed", &code);
        CHECK_INT(code, 404);
        json_decref(job);
        CHECK_INT(server_stop(&s), 0);
    } else {
        CHECK(!"server restarted");
    }
    server_kill9(&s);
    unmount_tmpfs(disk);
}

/* ---- a task that fails for lack of space ----------------------------------------------------------- */

static void task_failing_on_full_working_dir_says_disk_full(void)
{
    char work[64];
    if (mount_tmpfs(work, sizeof work, "1m") != 0) {
        test_skip("cannot mount a tmpfs here (%s): disk-full needs root and mount(2)", strerror(errno));
        return;
    }
    struct test_server s;
    if (server_start(&s, NULL, node_args) != 0) {
        CHECK(!"server started");
        unmount_tmpfs(work);
        return;
    }
    char extra[300];
    snprintf(extra, sizeof extra, "        restartPolicy: Never\n");
    CHECK_INT(submit_in(&s, "writer", 1, "1", "dd if=/dev/zero of=big bs=64k count=64", extra, work, NULL), 201);
    CHECK_INT(submit(&s, "plain", 1, "1", "exit 3", extra, NULL), 201); /* a failure with room: Error */
    CHECK_INT(wait_phase(&s, "writer", "Failed"), 0);
    CHECK_INT(wait_phase(&s, "plain", "Failed"), 0);
    long code;
    json_t *pod = get(&s, PODS, "writer-t-0", &code);
    CHECK_STR(text_at(pod, "status.reason"), "DiskFull");
    CHECK_CONTAINS(text_at(pod, "status.message"), "The node was low on resource: ephemeral-storage.");
    CHECK_CONTAINS(text_at(pod, "status.message"), work);
    CHECK_STR(text_at(pod, "status.containerStatuses.0.state.terminated.reason"), "DiskFull");
    printf("# pod: %s: %s\n", text_at(pod, "status.reason") ? text_at(pod, "status.reason") : "",
           text_at(pod, "status.message") ? text_at(pod, "status.message") : "");
    json_decref(pod);
    json_t *job = get(&s, JOBS, "writer", &code);
    CHECK_STR(text_at(job, "status.state.reason"), "DiskFull");
    CHECK_CONTAINS(text_at(job, "status.state.message"), "ephemeral-storage");
    json_decref(job);
    json_t *attempt = server_request(
        &s, "GET", "/apis/caldera.io/v1/namespaces/default/jobs/writer/history/pods/writer-t-0/attempts/1", NULL, NULL,
        &code);
    CHECK_INT(code, 200);
    CHECK_STR(text_at(attempt, "reason"), "DiskFull");
    json_decref(attempt);
    pod = get(&s, PODS, "plain-t-0", &code);
    CHECK_STR(text_at(pod, "status.containerStatuses.0.state.terminated.reason"), "Error");
    CHECK(server_json_at(pod, "status.reason") == NULL);
    json_decref(pod);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
    unmount_tmpfs(work);
}

TEST_MAIN(TEST_CASE(full_disk_withdraws_in_flight_create_and_holds_starts),
          TEST_CASE(kill9_while_full_runs_each_acknowledged_job_once),
          TEST_CASE(delete_in_flight_is_answered_504_and_recorded_later),
          TEST_CASE(task_failing_on_full_working_dir_says_disk_full))
