/* Files a tenant's task could turn against the server: links planted at logs, the exits
 * file, volumes and in work directories are never followed, written through, chowned or pruned
 * through; a task of one user reads nothing of another's, nor the database or the tokens. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define VCJOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/%s/jobs"
#define TOKENS "/apis/caldera.io/v1/tokens"
#define TOKEN_MAX 128
#define WAIT_MS 30000
#define SECRET_TEXT "root's secret\n"
#define ALICE "{\"user\":\"alice\",\"namespaces\":[\"team-a\"],\"uid\":1001,\"gid\":1001}"
#define BOB "{\"user\":\"bob\",\"namespaces\":[\"team-b\"],\"uid\":1002,\"gid\":1002}"

static const char *const server_args[] = {"--auth", "--restart-backoff", "100", "--shutdown-grace", "2", NULL};

/* A root-only directory (0700) holding a root file with known content (0640): what tasks aim at. */
struct secret {
    char dir[64], file[128];
};

struct tenants {
    struct test_server s;
    char admin[TOKEN_MAX], alice[TOKEN_MAX], bob[TOKEN_MAX];
};

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static bool make_secret(struct secret *x)
{
    snprintf(x->dir, sizeof x->dir, "/tmp/caldera-secret-XXXXXX");
    if (!mkdtemp(x->dir) || chmod(x->dir, 0700) != 0)
        return false;
    snprintf(x->file, sizeof x->file, "%s/file", x->dir);
    int fd = open(x->file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
    bool ok = fd >= 0 && write(fd, SECRET_TEXT, strlen(SECRET_TEXT)) == (ssize_t)strlen(SECRET_TEXT) &&
              fchmod(fd, 0640) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

/* The file as made: content, owner, mode, and no link to it left anywhere (nlink 1). */
static bool secret_intact(const struct secret *x)
{
    struct stat st, dst;
    char *data = NULL;
    bool ok = lstat(x->file, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 && st.st_gid == 0 &&
              (st.st_mode & 07777) == 0640 && st.st_nlink == 1 && read_file(x->file, 1024, &data, NULL) == 0 &&
              strcmp(data, SECRET_TEXT) == 0 && lstat(x->dir, &dst) == 0 && S_ISDIR(dst.st_mode) && dst.st_uid == 0 &&
              (dst.st_mode & 07777) == 0700;
    if (!ok)
        fprintf(stderr, "# %s: %s, uid %d, mode %o, nlink %d\n", x->file, data ? data : "(unreadable)", (int)st.st_uid,
                (unsigned)(st.st_mode & 07777), (int)st.st_nlink);
    free(data);
    return ok;
}

static void drop_secret(const struct secret *x) { remove_tree(x->dir); }

static const char *str_at(json_t *v, const char *path) { return json_string_value(server_json_at(v, path)); }

static long make_token(const struct test_server *s, const char *admin, const char *body, char out[TOKEN_MAX])
{
    long code = 0;
    json_t *answer = server_request_as(s, admin, "POST", TOKENS, body, "application/json", &code);
    snprintf(out, TOKEN_MAX, "%s", str_at(answer, "status.token") ? str_at(answer, "status.token") : "");
    json_decref(answer);
    return code;
}

static bool start_tenants(struct tenants *t, const char *data_dir, const char *const *args)
{
    if (server_start(&t->s, data_dir, args ? args : server_args) != 0)
        return false;
    char path[400], *data = NULL;
    snprintf(path, sizeof path, "%s/admin.token", t->s.data_dir);
    if (read_file(path, TOKEN_MAX, &data, NULL) != 0)
        return false;
    data[strcspn(data, "\n ")] = '\0';
    snprintf(t->admin, sizeof t->admin, "%s", data);
    free(data);
    return make_token(&t->s, t->admin, ALICE, t->alice) == 201 && make_token(&t->s, t->admin, BOB, t->bob) == 201;
}

/* A one-task Job (pod <name>-t-0) running `sh -c script` (no single quotes in it). */
static long submit(const struct tenants *t, const char *token, const char *ns, const char *name, const char *spec,
                   const char *restart, const char *script)
{
    char *yaml = NULL, path[256];
    if (asprintf(&yaml,
                 "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: %s}\nspec:\n%s  tasks:\n"
                 "  - name: t\n    replicas: 1\n    template:\n      spec:\n        restartPolicy: %s\n"
                 "        terminationGracePeriodSeconds: 1\n        containers:\n        - name: c\n"
                 "          command: [sh, -c, '%s']\n",
                 name, spec, restart, script) < 0)
        return -1;
    snprintf(path, sizeof path, VCJOBS, ns);
    long code = 0;
    json_t *answer = server_request_as(&t->s, token, "POST", path, yaml, "application/yaml", &code);
    if (code != 201)
        fprintf(stderr, "# submit %s: %ld %s\n", name, code,
                str_at(answer, "message") ? str_at(answer, "message") : "");
    json_decref(answer);
    free(yaml);
    return code;
}

static int wait_phase(const struct tenants *t, const char *token, const char *ns, const char *name, const char *phase)
{
    char path[256];
    snprintf(path, sizeof path, VCJOBS "/%s", ns, name);
    return server_wait_field_as(&t->s, token, path, "status.state.phase", phase, WAIT_MS);
}

/* The job's directory, jobs/<uid>, under the data directory. */
static bool job_dir(const struct tenants *t, const char *token, const char *ns, const char *name, char *out, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, VCJOBS "/%s", ns, name);
    json_t *job = server_request_as(&t->s, token, "GET", path, NULL, NULL, NULL);
    const char *uid = str_at(job, "metadata.uid");
    if (uid)
        snprintf(out, len, "%s/jobs/%s", t->s.data_dir, uid);
    json_decref(job);
    return uid != NULL;
}

static char *get_text(const struct tenants *t, const char *token, const char *ns, const char *path_tail)
{
    char path[400];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/%s", ns, path_tail);
    return server_request_text_as(&t->s, token, "GET", path, NULL);
}

static char *attempt_log(const struct tenants *t, const char *token, const char *ns, const char *job, int attempt)
{
    char path[400];
    snprintf(path, sizeof path, "/apis/caldera.io/v1/namespaces/%s/jobs/%s/history/pods/%s-t-0/attempts/%d/log", ns,
             job, job, attempt);
    return server_request_text_as(&t->s, token, "GET", path, NULL);
}

static bool wait_for_file(const char *path)
{
    for (int i = 0; i < WAIT_MS / 50; i++, sleep_ms(50))
        if (access(path, F_OK) == 0)
            return true;
    fprintf(stderr, "# %s never appeared\n", path);
    return false;
}

/* Owner and mode as given (uid -1: any owner). */
static bool has_mode(const char *path, int uid, unsigned mode)
{
    struct stat st;
    bool ok = lstat(path, &st) == 0 && (uid < 0 || st.st_uid == (uid_t)uid) && (st.st_mode & 07777) == mode;
    if (!ok)
        fprintf(stderr, "# %s: uid %d mode %o, expected uid %d mode %o\n", path, (int)st.st_uid,
                (unsigned)(st.st_mode & 07777), uid, mode);
    return ok;
}

#define CHECK_MODE(path, uid, mode) CHECK(has_mode(path, uid, mode))

static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
}

/* --- the cases ----------------------------------------------------------------------------------- */

/* Attempt 1 (uid 1001) tries to put a symbolic link and a hard link to a root file where attempt 2's
 * log will be, and to swap its own log for one, then fails; attempt 2 runs. Every plant is refused
 * (the logs' directory is the server's 0700), the root file stays as it was after attempt 2 and
 * after the logs are read through the API, and the logs are the server's 0600. */
static void a_task_cannot_plant_links_at_logs(void)
{
    SKIP_IF(geteuid() != 0, "needs root to run tasks as uid 1001");
    struct secret x;
    REQUIRE(make_secret(&x));
    struct tenants t;
    REQUIRE(start_tenants(&t, NULL, NULL));
    char script[2048];
    snprintf(script, sizeof script,
             "L=$HOME/../logs; S=%s; P=plant-t-0; "
             "if [ ! -e $HOME/a1 ]; then : > $HOME/a1; "
             "ln -s $S $L/$P.2.log 2>/dev/null && echo PLANTED-symlink || echo refused-symlink; "
             "ln $S $L/$P.2.log 2>/dev/null && echo PLANTED-hardlink || echo refused-hardlink; "
             "rm -f $L/$P.1.log 2>/dev/null && echo REMOVED-own || echo refused-remove; "
             "ls $L >/dev/null 2>&1 && echo LISTED || echo refused-list; "
             "{ echo x >> $L/$P.1.log; } 2>/dev/null && echo OPENED-own || echo refused-open; "
             "exit 1; fi; echo attempt-2",
             x.file);
    REQUIRE(submit(&t, t.alice, "team-a", "plant", "", "OnFailure", script) == 201);
    CHECK(wait_phase(&t, t.alice, "team-a", "plant", "Completed") == 0);
    char *log1 = attempt_log(&t, t.alice, "team-a", "plant", 1);
    CHECK_STR(log1, "refused-symlink\nrefused-hardlink\nrefused-remove\nrefused-list\nrefused-open\n");
    free(log1);
    char *log2 = get_text(&t, t.alice, "team-a", "pods/plant-t-0/log");
    CHECK_STR(log2, "attempt-2\n");
    free(log2);
    CHECK(secret_intact(&x));
    char dir[512], path[700];
    REQUIRE(job_dir(&t, t.alice, "team-a", "plant", dir, sizeof dir));
    snprintf(path, sizeof path, "%s/logs", dir);
    CHECK_MODE(path, 0, 0700);
    for (int i = 1; i <= 2; i++) {
        snprintf(path, sizeof path, "%s/logs/plant-t-0.%d.log", dir, i);
        CHECK_MODE(path, 0, 0600);
    }
    snprintf(path, sizeof path, "%s/exits", dir);
    CHECK_MODE(path, 0, 0600);
    server_cleanup(&t.s);
    drop_secret(&x);
}

/* An older version's layout let a tenant leave links in its logs' directory: the test (root) plants
 * them while attempts 1 and 2 wait, at the next attempt's log and at the job's exits file, a symbolic
 * link once and a hard link once each. The server replaces every one; the root file keeps its content,
 * owner and mode and ends with no link to it. */
static void links_planted_between_attempts_are_replaced(void)
{
    SKIP_IF(geteuid() != 0, "needs root to run tasks as uid 1001");
    struct secret x;
    REQUIRE(make_secret(&x));
    struct tenants t;
    REQUIRE(start_tenants(&t, NULL, NULL));
    REQUIRE(submit(&t, t.alice, "team-a", "swap", "", "OnFailure",
                   "for n in 1 2; do if [ ! -e $HOME/a$n ]; then : > $HOME/a$n; "
                   "while [ ! -e $HOME/go$n ]; do sleep 0.05; done; echo attempt-$n; exit 1; fi; done; "
                   "echo attempt-3") == 201);
    char dir[512], path[700], exits[700];
    for (int i = 0; i < 100 && !job_dir(&t, t.alice, "team-a", "swap", dir, sizeof dir); i++)
        sleep_ms(50);
    snprintf(exits, sizeof exits, "%s/exits", dir);
    snprintf(path, sizeof path, "%s/work/a1", dir);
    REQUIRE(wait_for_file(path));
    snprintf(path, sizeof path, "%s/logs/swap-t-0.2.log", dir);
    CHECK(symlink(x.file, path) == 0);
    CHECK(unlink(exits) == 0 && link(x.file, exits) == 0);
    snprintf(path, sizeof path, "%s/work/go1", dir);
    touch(path);
    snprintf(path, sizeof path, "%s/work/a2", dir);
    REQUIRE(wait_for_file(path));
    CHECK(secret_intact(&x)); /* the hard link at exits was replaced: one link again */
    snprintf(path, sizeof path, "%s/logs/swap-t-0.3.log", dir);
    CHECK(link(x.file, path) == 0);
    CHECK(unlink(exits) == 0 && symlink(x.file, exits) == 0);
    snprintf(path, sizeof path, "%s/work/go2", dir);
    touch(path);
    CHECK(wait_phase(&t, t.alice, "team-a", "swap", "Completed") == 0);
    char *log = get_text(&t, t.alice, "team-a", "pods/swap-t-0/log");
    CHECK_STR(log, "attempt-3\n");
    free(log);
    for (int i = 1; i <= 2; i++) {
        char want[32];
        snprintf(want, sizeof want, "attempt-%d\n", i);
        log = attempt_log(&t, t.alice, "team-a", "swap", i);
        CHECK_STR(log, want);
        free(log);
    }
    CHECK(secret_intact(&x));
    struct stat st;
    CHECK(lstat(exits, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1);
    CHECK_MODE(exits, 0, 0600);
    for (int i = 2; i <= 3; i++) {
        snprintf(path, sizeof path, "%s/logs/swap-t-0.%d.log", dir, i);
        CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1);
        CHECK_MODE(path, 0, 0600);
    }
    server_cleanup(&t.s);
    drop_secret(&x);
}

/* A claim directory that is a symbolic link (planted by root here; a task cannot write volumes/<ns>)
 * is refused: nothing is chowned or bound through it. A task's own attempt to plant one fails. */
static void volumes_never_go_through_a_link(void)
{
    SKIP_IF(geteuid() != 0, "needs root to run tasks as uid 1001");
    struct secret x;
    REQUIRE(make_secret(&x));
    struct tenants t;
    REQUIRE(start_tenants(&t, NULL, NULL));
    char ns_dir[400], link_path[500], mount[] = "/tmp/caldera-tenant-mnt-XXXXXX";
    REQUIRE(mkdtemp(mount));
    snprintf(ns_dir, sizeof ns_dir, "%s/volumes/team-a", t.s.data_dir);
    REQUIRE(mkdir_p(ns_dir, 0711) == 0);
    snprintf(link_path, sizeof link_path, "%s/planted", ns_dir);
    REQUIRE(symlink(x.dir, link_path) == 0);
    char spec[600];
    snprintf(spec, sizeof spec, "  maxRetry: 1\n  volumes:\n  - {mountPath: %s, volumeClaimName: planted}\n", mount);
    REQUIRE(submit(&t, t.alice, "team-a", "vol-link", spec, "Never", "ls $CALDERA_VOLUME_DATA") == 201);
    CHECK(wait_phase(&t, t.alice, "team-a", "vol-link", "Failed") == 0);
    json_t *pod = server_request_as(&t.s, t.alice, "GET", "/api/v1/namespaces/team-a/pods/vol-link-t-0", NULL, NULL,
                                    NULL);
    CHECK_STR(str_at(pod, "status.containerStatuses.0.state.terminated.reason"), "StartError");
    CHECK_CONTAINS(str_at(pod, "status.containerStatuses.0.state.terminated.message"), "it is a symbolic link");
    json_decref(pod);
    CHECK(secret_intact(&x));

    REQUIRE(submit(&t, t.alice, "team-a", "vol-task", "  volumes:\n  - {mountPath: /data, volumeClaimName: mine}\n",
                   "Never",
                   "ln -s /etc $CALDERA_VOLUME_DATA/../evil 2>/dev/null && echo PLANTED || echo refused-plant; "
                   "ls $CALDERA_VOLUME_DATA/.. >/dev/null 2>&1 && echo LISTED || echo refused-list; "
                   "echo mine > $CALDERA_VOLUME_DATA/f && echo wrote-own") == 201);
    CHECK(wait_phase(&t, t.alice, "team-a", "vol-task", "Completed") == 0);
    char *log = get_text(&t, t.alice, "team-a", "pods/vol-task-t-0/log");
    CHECK_STR(log, "refused-plant\nrefused-list\nwrote-own\n");
    free(log);
    char path[500];
    snprintf(path, sizeof path, "%s/volumes", t.s.data_dir);
    CHECK_MODE(path, 0, 0711);
    CHECK_MODE(ns_dir, 0, 0711);
    snprintf(path, sizeof path, "%s/mine", ns_dir);
    CHECK_MODE(path, 1001, 0700);
    server_cleanup(&t.s);
    rmdir(mount);
    drop_secret(&x);
}

/* Links a task leaves in its work directory and its job's own volume to a root directory: a restart
 * (attempt 2, the work directory given to the task again) and the job's removal and history pruning
 * leave the directory and its file as they were. */
static void work_dir_links_survive_restart_and_pruning(void)
{
    SKIP_IF(geteuid() != 0, "needs root to run tasks as uid 1001");
    static const char *const args[] = {"--auth", "--restart-backoff",
                                       "100",    "--history-retention",
                                       "1s",     "--commit-delay",
                                       "20ms",   "--shutdown-grace",
                                       "2",      NULL};
    struct secret x;
    REQUIRE(make_secret(&x));
    struct tenants t;
    REQUIRE(start_tenants(&t, NULL, args));
    char script[2048];
    snprintf(script, sizeof script,
             "if [ ! -e $HOME/a1 ]; then : > $HOME/a1; ln -s %s $HOME/to-dir; ln -s %s $HOME/to-file; "
             "mkdir -p $HOME/sub/deeper; ln -s %s $HOME/sub/deeper/to-dir; ln -s %s $CALDERA_VOLUME_SCRATCH/to-dir; "
             "exit 1; fi; echo attempt-2",
             x.dir, x.file, x.dir, x.dir);
    REQUIRE(submit(&t, t.alice, "team-a", "links",
                   "  volumes:\n  - mountPath: /no-such-scratch\n"
                   "    volumeClaim: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n",
                   "OnFailure", script) == 201);
    CHECK(wait_phase(&t, t.alice, "team-a", "links", "Completed") == 0);
    char *log = get_text(&t, t.alice, "team-a", "pods/links-t-0/log");
    CHECK_STR(log, "attempt-2\n");
    free(log);
    CHECK(secret_intact(&x));
    char dir[512], path[700];
    REQUIRE(job_dir(&t, t.alice, "team-a", "links", dir, sizeof dir));
    snprintf(path, sizeof path, "%s/work/to-dir", dir);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
    long code = 0;
    json_decref(server_request_as(&t.s, t.alice, "DELETE",
                                  "/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs/links", NULL, NULL, &code));
    CHECK_INT(code, 200);
    for (int i = 0; i < WAIT_MS / 50 && access(dir, F_OK) == 0; i++)
        sleep_ms(50);
    CHECK(access(dir, F_OK) != 0); /* pruned with its history */
    CHECK(secret_intact(&x));
    server_cleanup(&t.s);
    drop_secret(&x);
}

/* A task of alice (uid 1001) tries to read bob's (uid 1002) work file, log and exits file, the
 * database and its -wal and -shm, the admin token, another job's log of her own, and to list the data
 * directory: every read fails. Then the modes on disk, looked at directly. */
static void a_tenant_reads_nothing_of_another(void)
{
    SKIP_IF(geteuid() != 0, "needs root to run tasks as uid 1001 and 1002");
    struct tenants t;
    REQUIRE(start_tenants(&t, NULL, NULL));
    REQUIRE(submit(&t, t.bob, "team-b", "bobs", "", "Never", "echo bob-secret > $HOME/secret.txt; echo bob-log") ==
            201);
    REQUIRE(submit(&t, t.alice, "team-a", "first", "", "Never", "echo alice-first-log") == 201);
    CHECK(wait_phase(&t, t.bob, "team-b", "bobs", "Completed") == 0);
    CHECK(wait_phase(&t, t.alice, "team-a", "first", "Completed") == 0);
    char bob_dir[512], first_dir[512];
    REQUIRE(job_dir(&t, t.bob, "team-b", "bobs", bob_dir, sizeof bob_dir));
    REQUIRE(job_dir(&t, t.alice, "team-a", "first", first_dir, sizeof first_dir));
    const char *d = t.s.data_dir;
    char script[4096];
    snprintf(script, sizeof script,
             "try() { cat \"$2\" >/dev/null 2>&1 && echo READ-$1 || echo denied-$1; }; "
             "try bob-work %s/work/secret.txt; try bob-log %s/logs/bobs-t-0.1.log; try bob-exits %s/exits; "
             "try db %s/caldera.db; try wal %s/caldera.db-wal; try shm %s/caldera.db-shm; "
             "try token %s/admin.token; try other-job-log %s/logs/first-t-0.1.log; "
             "ls %s >/dev/null 2>&1 && echo READ-data-dir || echo denied-data-dir; "
             "ls %s/jobs >/dev/null 2>&1 && echo READ-jobs || echo denied-jobs; "
             "ls %s >/dev/null 2>&1 && echo READ-bob-job || echo denied-bob-job; "
             "echo own > $HOME/own && cat $HOME/own",
             bob_dir, bob_dir, bob_dir, d, d, d, d, first_dir, d, d, bob_dir);
    REQUIRE(submit(&t, t.alice, "team-a", "reader", "", "Never", script) == 201);
    CHECK(wait_phase(&t, t.alice, "team-a", "reader", "Completed") == 0);
    char *log = get_text(&t, t.alice, "team-a", "pods/reader-t-0/log");
    CHECK_STR(log,
              "denied-bob-work\ndenied-bob-log\ndenied-bob-exits\ndenied-db\ndenied-wal\ndenied-shm\n"
              "denied-token\ndenied-other-job-log\ndenied-data-dir\ndenied-jobs\ndenied-bob-job\nown\n");
    free(log);

    char path[700];
    CHECK_MODE(d, 0, 0711);
    snprintf(path, sizeof path, "%s/jobs", d);
    CHECK_MODE(path, 0, 0711);
    CHECK_MODE(bob_dir, 0, 0711);
    snprintf(path, sizeof path, "%s/logs", bob_dir);
    CHECK_MODE(path, 0, 0700);
    snprintf(path, sizeof path, "%s/logs/bobs-t-0.1.log", bob_dir);
    CHECK_MODE(path, 0, 0600);
    snprintf(path, sizeof path, "%s/exits", bob_dir);
    CHECK_MODE(path, 0, 0600);
    snprintf(path, sizeof path, "%s/work", bob_dir);
    CHECK_MODE(path, 1002, 0700);
    static const char *const private_files[] = {"caldera.db", "caldera.db-wal", "caldera.db-shm", "admin.token"};
    for (size_t i = 0; i < sizeof private_files / sizeof private_files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", d, private_files[i]);
        CHECK_MODE(path, 0, 0600);
    }
    snprintf(path, sizeof path, "%s/spare", d);
    CHECK_MODE(path, 0, 0700);
    server_cleanup(&t.s);
}

/* A data directory as an earlier version left it (0755 throughout, a job's logs given to its task's
 * user with links planted in them, the database 0644) is taken back at the next start. */
static void an_older_layout_is_taken_back_at_start(void)
{
    SKIP_IF(geteuid() != 0, "needs root to give files to uid 1001");
    struct secret x;
    REQUIRE(make_secret(&x));
    struct tenants t;
    REQUIRE(start_tenants(&t, NULL, NULL));
    REQUIRE(submit(&t, t.alice, "team-a", "old", "", "Never", "echo old-log") == 201);
    CHECK(wait_phase(&t, t.alice, "team-a", "old", "Completed") == 0);
    char dir[512], path[700], log_path[700], logs[600], work[600];
    REQUIRE(job_dir(&t, t.alice, "team-a", "old", dir, sizeof dir));
    REQUIRE(server_stop(&t.s) == 0);
    const char *d = t.s.data_dir;
    snprintf(logs, sizeof logs, "%s/logs", dir);
    snprintf(work, sizeof work, "%s/work", dir);
    snprintf(log_path, sizeof log_path, "%s/old-t-0.1.log", logs);
    snprintf(path, sizeof path, "%s/jobs", d);
    CHECK(chmod(d, 0755) == 0 && chmod(path, 0755) == 0 && chmod(dir, 0755) == 0 && chmod(work, 0755) == 0);
    CHECK(chown(logs, 1001, 1001) == 0 && chmod(logs, 0755) == 0);
    CHECK(chown(log_path, 1001, 1001) == 0 && chmod(log_path, 0644) == 0);
    snprintf(path, sizeof path, "%s/evil.9.log", logs);
    CHECK(symlink(x.file, path) == 0);
    snprintf(path, sizeof path, "%s/hard.9.log", logs);
    CHECK(link(x.file, path) == 0);
    snprintf(path, sizeof path, "%s/caldera.db", d);
    CHECK(chmod(path, 0644) == 0);

    REQUIRE(server_start(&t.s, d, server_args) == 0);
    CHECK_MODE(d, 0, 0711);
    snprintf(path, sizeof path, "%s/jobs", d);
    CHECK_MODE(path, 0, 0711);
    CHECK_MODE(dir, 0, 0711);
    CHECK_MODE(logs, 0, 0700);
    CHECK_MODE(log_path, 0, 0600);
    CHECK_MODE(work, 1001, 0700);
    static const char *const db_files[] = {"caldera.db", "caldera.db-wal", "caldera.db-shm"};
    for (size_t i = 0; i < sizeof db_files / sizeof db_files[0]; i++) { /* SQLite gives -wal, -shm the db's mode */
        snprintf(path, sizeof path, "%s/%s", d, db_files[i]);
        CHECK_MODE(path, 0, 0600);
    }
    snprintf(path, sizeof path, "%s/evil.9.log", logs);
    CHECK(access(path, F_OK) != 0 && errno == ENOENT);
    snprintf(path, sizeof path, "%s/hard.9.log", logs);
    CHECK(access(path, F_OK) != 0 && errno == ENOENT);
    CHECK(secret_intact(&x));
    char *log = get_text(&t, t.alice, "team-a", "pods/old-t-0/log");
    CHECK_STR(log, "old-log\n");
    free(log);
    server_cleanup(&t.s);
    drop_secret(&x);
}

TEST_MAIN(TEST_CASE(a_task_cannot_plant_links_at_logs), TEST_CASE(links_planted_between_attempts_are_replaced),
          TEST_CASE(volumes_never_go_through_a_link), TEST_CASE(work_dir_links_survive_restart_and_pruning),
          TEST_CASE(a_tenant_reads_nothing_of_another), TEST_CASE(an_older_layout_is_taken_back_at_start))
