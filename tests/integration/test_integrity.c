/* The database's integrity through the real server: a corrupt, newer or foreign file stops the start
 * with one clear line and is left untouched; a full disk keeps the server up, refuses new changes
 * with 507 and loses nothing it acknowledged, across a clean stop and a kill -9. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "store/schema.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define JOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
#define QUEUES "/apis/scheduling.volcano.sh/v1beta1/queues"
#define REFUSAL_TIMEOUT_MS 15000
#define PROMPT_MS 5000  /* a refused start must end within this (ASan build included) */
#define MAX_SUBMITS 400 /* bounds the loop that fills the disk */
#define FULL_SIZE "size=3m"
#define ROOMY_SIZE "size=64m"
#define PAD_BYTES 12000 /* an annotation per job, so a few dozen jobs fill FULL_SIZE */

static const char *const node_args[] = {"--nodes", "examples/nodes.yaml", NULL};

/* ---- helpers ------------------------------------------------------------------------------------ */

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static bool path_exists(const char *dir, const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

/* A job whose one task asks for cpu (a thousand CPUs: it stays Pending and never runs), and, when
 * pad > 0, an annotation of that many bytes. */
static char *job_yaml(const char *name, const char *cpu, const char *command, int pad)
{
    char *filler = malloc((size_t)pad + 1), *yaml = NULL;
    if (!filler)
        return NULL;
    memset(filler, 'p', (size_t)pad);
    filler[pad] = '\0';
    int n = asprintf(&yaml,
                     "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n"
                     "metadata: {name: %s, annotations: {caldera.test/padding: \"%s\"}}\n"
                     "spec:\n  tasks:\n  - name: t\n    replicas: 1\n    template:\n      spec:\n"
                     "        containers:\n        - name: c\n          command: [sh, -c, \"%s\"]\n"
                     "          resources: {requests: {cpu: \"%s\"}}\n",
                     name, filler, command, cpu);
    free(filler);
    return n < 0 ? NULL : yaml;
}

static long submit(const struct test_server *s, const char *name, const char *cpu, const char *command, int pad,
                   json_t **answer)
{
    char *yaml = job_yaml(name, cpu, command, pad);
    long code = 0;
    json_t *r = yaml ? server_request(s, "POST", JOBS, yaml, "application/yaml", &code) : NULL;
    free(yaml);
    if (answer)
        *answer = r;
    else
        json_decref(r);
    return code;
}

static const char *message_of(json_t *status) { return json_string_value(json_object_get(status, "message")); }

/* ---- refused starts ----------------------------------------------------------------------------- */

/* What a refused start must leave: the same bytes, and the same directory (no -wal, -shm or
 * anything else). */
struct snapshot {
    char *bytes;
    size_t len;
    char listing[1024];
};

static void list_dir(const char *dir, char *buf, size_t len)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s'", dir);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(buf, 1, len - 1, p) : 0;
    buf[n] = '\0';
    if (p)
        pclose(p);
}

static bool take_snapshot(const char *dir, struct snapshot *snap)
{
    char path[512];
    snprintf(path, sizeof path, "%s/caldera.db", dir);
    list_dir(dir, snap->listing, sizeof snap->listing);
    return read_file(path, 1u << 30, &snap->bytes, &snap->len) == 0;
}

/* Starts the server on dir and expects it to refuse: non-zero exit, promptly, exactly one error line
 * on stderr naming the file and saying problem (and detail, when not NULL), and nothing written. */
static void expect_refusal(const char *dir, const char *problem, const char *detail)
{
    struct snapshot before, after;
    REQUIRE(take_snapshot(dir, &before));
    CHECK_STR(before.listing, "caldera.db\n"); /* a clean file: no log beside it */

    char *err = NULL, db[512];
    int elapsed = 0;
    int rc = server_run_to_exit(dir, node_args, REFUSAL_TIMEOUT_MS, NULL, &err, &elapsed);
    CHECK_INT(rc, 1);
    CHECK(elapsed < PROMPT_MS);
    snprintf(db, sizeof db, "%s/caldera.db", dir);
    int error_lines = 0;
    for (char *save = NULL, *line = strtok_r(err, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!strstr(line, " error "))
            continue;
        error_lines++;
        CHECK_CONTAINS(line, db);
        CHECK_CONTAINS(line, problem);
        if (detail)
            CHECK_CONTAINS(line, detail);
        CHECK_CONTAINS(line, "refusing to start");
    }
    CHECK_INT(error_lines, 1);
    free(err);

    REQUIRE(take_snapshot(dir, &after));
    CHECK(before.len == after.len && memcmp(before.bytes, after.bytes, before.len) == 0);
    CHECK_STR(after.listing, before.listing);
    CHECK(!path_exists(dir, "caldera.db-wal"));
    CHECK(!path_exists(dir, "caldera.db-shm"));
    free(before.bytes);
    free(after.bytes);
}

/* A real database in s->data_dir: 4 jobs that ran and completed, 36 that wait; stopped cleanly, so
 * the WAL was checkpointed away. The caller cleans s up. */
static bool make_real_database(struct test_server *s)
{
    if (server_start(s, NULL, node_args) != 0)
        return false;
    bool ok = true;
    for (int i = 0; i < 40 && ok; i++) {
        char name[32];
        snprintf(name, sizeof name, "job-%02d", i);
        ok = submit(s, name, i < 4 ? "1" : "1000", i < 4 ? "echo done" : "true", 600, NULL) == 201;
    }
    for (int i = 0; i < 4 && ok; i++) {
        char path[128];
        snprintf(path, sizeof path, JOBS "/job-%02d", i);
        ok = server_wait_field(s, path, "status.state.phase", "Completed", 30000) == 0;
    }
    return server_stop(s) == 0 && ok && !path_exists(s->data_dir, "caldera.db-wal");
}

/* A fresh directory holding only a copy of src's caldera.db. */
static bool copy_database(const char *src_dir, char *dir, size_t len)
{
    snprintf(dir, len, "/tmp/caldera-integrity-XXXXXX");
    if (!mkdtemp(dir))
        return false;
    char src[512], dst[512], *data;
    size_t n;
    snprintf(src, sizeof src, "%s/caldera.db", src_dir);
    snprintf(dst, sizeof dst, "%s/caldera.db", dir);
    if (read_file(src, 1u << 30, &data, &n) != 0)
        return false;
    bool ok = write_file_atomic(dst, data, n, 0600) == 0;
    free(data);
    return ok;
}

/* The table b-tree leaf page nearest the middle of the file (jobs or events), from dbstat. */
static int middle_table_page(const char *db_path)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int page = -1;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db,
                           "SELECT pageno FROM dbstat WHERE name IN ('jobs', 'events') AND pagetype = 'leaf'"
                           " ORDER BY abs(pageno - (SELECT page_count FROM pragma_page_count) / 2) LIMIT 1",
                           -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            page = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return page;
}

static void corrupt_newer_and_foreign_files_stop_the_start(void)
{
    struct test_server real;
    REQUIRE(make_real_database(&real));
    char src[512];
    snprintf(src, sizeof src, "%s/caldera.db", real.data_dir);
    int page = middle_table_page(src);
    CHECK(page > 2);

    /* (a) garbage over a whole table page in the middle of the file: its b-tree header is invalid,
     * which quick_check reports for that page */
    char dir[64], db[128];
    if (page > 2 && copy_database(real.data_dir, dir, sizeof dir)) {
        snprintf(db, sizeof db, "%s/caldera.db", dir);
        char garbage[4096], problem[32];
        for (size_t i = 0; i < sizeof garbage; i++)
            garbage[i] = (char)(0xA5 ^ (i * 31));
        int fd = open(db, O_WRONLY | O_CLOEXEC);
        CHECK(fd >= 0 && pwrite(fd, garbage, sizeof garbage, (off_t)(page - 1) * 4096) == (ssize_t)sizeof garbage);
        if (fd >= 0)
            close(fd);
        snprintf(problem, sizeof problem, "Page %d: ", page);
        expect_refusal(dir, "is corrupt: ", problem);
        remove_tree(dir);
    } else {
        CHECK(!"copy of the database");
    }

    /* (b) a schema version above this build's */
    if (copy_database(real.data_dir, dir, sizeof dir)) {
        snprintf(db, sizeof db, "%s/caldera.db", dir);
        sqlite3 *h;
        char sql[64], problem[128];
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d", schema_latest_version() + 1);
        CHECK(sqlite3_open(db, &h) == SQLITE_OK && sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK);
        sqlite3_close(h); /* the last connection: checkpoints and removes the -wal and -shm */
        snprintf(problem, sizeof problem, "has schema version %d but this jobserver knows up to %d",
                 schema_latest_version() + 1, schema_latest_version());
        expect_refusal(dir, problem, NULL);
        remove_tree(dir);
    } else {
        CHECK(!"copy of the database");
    }

    /* (c) not a database at all */
    snprintf(dir, sizeof dir, "/tmp/caldera-integrity-XXXXXX");
    if (mkdtemp(dir)) {
        snprintf(db, sizeof db, "%s/caldera.db", dir);
        char text[8192];
        for (size_t i = 0; i < sizeof text; i++)
            text[i] = "these are notes, not a database\n"[i % 32];
        CHECK(write_file_atomic(db, text, sizeof text, 0600) == 0);
        expect_refusal(dir, "is not a SQLite database", NULL);
        remove_tree(dir);
    }
    server_cleanup(&real);
}

/* ---- a full disk ---------------------------------------------------------------------------------- */

/* A small tmpfs as the data dir. Returns 0, or -1 when mounts are not allowed here (errno kept). */
static int mount_small_disk(char *dir, size_t len)
{
    snprintf(dir, len, "/tmp/caldera-full-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    if (mount("tmpfs", dir, "tmpfs", 0, FULL_SIZE) != 0) {
        int e = errno;
        rmdir(dir);
        errno = e;
        return -1;
    }
    return 0;
}

static int resize_disk(const char *dir, const char *size) { return mount("tmpfs", dir, "tmpfs", MS_REMOUNT, size); }

static void unmount_disk(const char *dir)
{
    if (umount2(dir, MNT_DETACH) != 0)
        fprintf(stderr, "umount %s: %s\n", dir, strerror(errno));
    rmdir(dir);
}

struct acknowledged {
    int n;
    char names[MAX_SUBMITS][32];
};

/* Submits padded jobs until one is refused at once with 507. Every 201 is remembered. Returns 0
 * when the refusal came, with its Status in *refusal; a submit whose commit could not land in time
 * (withdrawn: 507 after the durable wait, test_disk_full.c) may come first and is not remembered. */
static int fill_disk(const struct test_server *s, struct acknowledged *acked, json_t **refusal)
{
    *refusal = NULL;
    for (int i = 0; i < MAX_SUBMITS; i++) {
        char name[32];
        snprintf(name, sizeof name, "fill-%03d", i);
        json_t *answer;
        int64_t t0 = clock_mono_ms();
        long code = submit(s, name, "1000", "true", PAD_BYTES, &answer);
        int64_t took = clock_mono_ms() - t0;
        if (code == 201) {
            snprintf(acked->names[acked->n++], sizeof acked->names[0], "%s", name);
        } else if (code == 507 && strstr(message_of(answer) ? message_of(answer) : "", "nothing was created")) {
            CHECK(took < 2000); /* refused at once, not after the durable wait */
            *refusal = answer;
            return 0;
        } else if (code != 507) {
            fprintf(stderr, "fill_disk: %s got %ld: %s\n", name, code, message_of(answer) ? message_of(answer) : "");
            json_decref(answer);
            return -1;
        }
        json_decref(answer);
    }
    fprintf(stderr, "fill_disk: no 507 after %d submits\n", MAX_SUBMITS);
    return -1;
}

static void check_all_there(const struct test_server *s, const struct acknowledged *acked)
{
    int missing = 0;
    for (int i = 0; i < acked->n; i++) {
        char path[128];
        long code;
        snprintf(path, sizeof path, JOBS "/%s", acked->names[i]);
        json_t *job = server_request(s, "GET", path, NULL, NULL, &code);
        if (code != 200) {
            fprintf(stderr, "acknowledged job %s: GET answered %ld\n", acked->names[i], code);
            missing++;
        }
        json_decref(job);
    }
    CHECK_INT(missing, 0);
}

static bool server_alive(const struct test_server *s) { return s->pid > 0 && kill(s->pid, 0) == 0; }

/* While full: the server is up, /healthz and the Status say why, reads work, every kind of change
 * is refused at once. */
static void check_full_behaviour(const struct test_server *s, const struct acknowledged *acked, json_t *refusal)
{
    CHECK(server_alive(s));
    CHECK_STR(json_string_value(json_object_get(refusal, "kind")), "Status");
    CHECK_STR(json_string_value(json_object_get(refusal, "reason")), "InsufficientStorage");
    CHECK_INT(json_integer_value(json_object_get(refusal, "code")), 507);
    char want[300];
    snprintf(want, sizeof want, "the disk of the data directory %s is full", s->data_dir);
    CHECK_CONTAINS(message_of(refusal), want);
    CHECK_CONTAINS(message_of(refusal), "SQLITE_FULL");

    long code;
    char *health = server_request_text(s, "GET", "/healthz", &code);
    CHECK_INT(code, 503);
    CHECK_CONTAINS(health, want);
    printf("# after %d acknowledged submits: 507 \"%s\"\n# /healthz: %s", acked->n, message_of(refusal),
           health ? health : "(none)\n");
    free(health);

    json_t *list = server_request(s, "GET", JOBS, NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK((int)json_array_size(json_object_get(list, "items")) >= acked->n);
    json_decref(list);
    check_all_there(s, acked);

    json_t *r = server_request(s, "POST", QUEUES,
                               "{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":\"Queue\","
                               "\"metadata\":{\"name\":\"team-a\"},\"spec\":{\"weight\":1}}",
                               NULL, &code);
    CHECK_INT(code, 507);
    CHECK_CONTAINS(message_of(r), "nothing was created");
    json_decref(r);
    r = server_request(s, "DELETE", JOBS "/fill-000", NULL, NULL, &code);
    CHECK_INT(code, 507);
    CHECK_CONTAINS(message_of(r), "nothing was changed");
    json_decref(r);
    CHECK(server_alive(s));
}

/* After the disk grows: a submit succeeds again within a bounded time. */
static void check_recovers(const struct test_server *s, struct acknowledged *acked)
{
    long code = 0;
    int64_t deadline = clock_mono_ms() + 30000;
    for (int i = 0; code != 201 && clock_mono_ms() < deadline; i++) {
        char name[32];
        snprintf(name, sizeof name, "after-%03d", i);
        code = submit(s, name, "1000", "true", 0, NULL);
        if (code == 201)
            snprintf(acked->names[acked->n++], sizeof acked->names[0], "%s", name);
        else
            sleep_ms(200);
    }
    CHECK_INT(code, 201);
    char *health = server_request_text(s, "GET", "/healthz", &code);
    CHECK_INT(code, 200);
    free(health);
}

static void disk_full(bool crash_while_full)
{
    char dir[64];
    if (mount_small_disk(dir, sizeof dir) != 0) {
        test_skip("cannot mount a tmpfs here (%s): disk-full needs root and mount(2)", strerror(errno));
        return;
    }
    struct test_server s;
    static struct acknowledged acked;
    acked.n = 0;
    json_t *refusal = NULL;
    if (server_start(&s, dir, node_args) != 0) {
        CHECK(!"server started on the tmpfs");
        unmount_disk(dir);
        return;
    }
    if (fill_disk(&s, &acked, &refusal) == 0) {
        CHECK(acked.n > 0);
        check_full_behaviour(&s, &acked, refusal);
        if (crash_while_full)
            server_kill9(&s);
        CHECK_INT(resize_disk(dir, ROOMY_SIZE), 0);
        if (!crash_while_full) {
            check_recovers(&s, &acked);
            CHECK_INT(server_stop(&s), 0);
        }
        /* everything acknowledged is there after a restart on the same data */
        if (server_start(&s, dir, node_args) == 0) {
            check_all_there(&s, &acked);
            CHECK_INT(server_stop(&s), 0);
        } else {
            CHECK(!"server restarted");
        }
    } else {
        CHECK(!"the disk filled up and a submit was refused with 507");
    }
    json_decref(refusal);
    server_kill9(&s);
    unmount_disk(dir);
}

static void disk_full_refuses_with_507_and_keeps_what_was_acknowledged(void) { disk_full(false); }
static void kill9_while_disk_full_keeps_what_was_acknowledged(void) { disk_full(true); }

TEST_MAIN(TEST_CASE(corrupt_newer_and_foreign_files_stop_the_start),
          TEST_CASE(disk_full_refuses_with_507_and_keeps_what_was_acknowledged),
          TEST_CASE(kill9_while_disk_full_keeps_what_was_acknowledged))
