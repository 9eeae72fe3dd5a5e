/* The log API's reader: CRI records (partial ones joined), tailLines from the end of a large file,
 * limitBytes, since, timestamps, raw files served as they are, links and odd files refused. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/sbuf.h"
#include "gateway/resources/pod_log.h"
#include "tests/lib/test.h"

static char dir[64];

static void setup(void)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/test_pod_log.XXXXXX");
        if (!mkdtemp(dir))
            dir[0] = '\0';
    }
}

static const char *write_log(const char *name, const char *text, size_t len)
{
    static char path[128];
    setup();
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
    FILE *f = fopen(path, "w");
    if (f) {
        fwrite(text, 1, len, f);
        fclose(f);
    }
    return path;
}

static struct pod_log_options all(void)
{
    return (struct pod_log_options){.limit_bytes = 0, .tail_lines = POD_LOG_ALL_LINES, .since_ms = INT64_MIN};
}

/* The whole answer, read in small pieces as a connection would; NULL when the open failed (its code in *code). */
static char *serve(const char *path, struct pod_log_options o, int *code)
{
    struct pod_log_reader *r;
    struct api_status st = {0};
    *code = 200;
    if (pod_log_open(path, &o, &r, &st) != 0) {
        *code = st.code;
        return NULL;
    }
    struct sbuf out = {0};
    char buf[1000];
    long n;
    while ((n = pod_log_read(r, buf, sizeof buf)) > 0)
        sbuf_append(&out, buf, (size_t)n);
    pod_log_close(r);
    return out.data ? out.data : strdup("");
}

/* Serves path with o and checks the answer is want. */
#define CHECK_SERVED(path, o, want) check_served(__FILE__, __LINE__, path, o, want)
static void check_served(const char *file, int line, const char *path, struct pod_log_options o, const char *want)
{
    int code;
    char *text = serve(path, o, &code);
    if (!text || strcmp(text, want) != 0)
        test_fail(file, line, "served \"%s\", expected \"%s\"", text ? text : "(refused)", want);
    free(text);
}

#define T0 "2026-11-26T10:00:00.000000001Z"
#define T1 "2026-11-26T10:00:01.500000000Z"
#define T2 "2026-11-26T10:00:02.999999999Z"

static const char cri[] = T0 " stdout F first\n" T0 " stderr F oops\n" T1 " stdout P par\n" T1 " stdout P ti\n" T1
                             " stdout F al\n" T2 " stdout F \n" T2 " stdout F last\n";

static void cri_records_parse(void)
{
    struct cri_record rec;
    const char *line = T1 " stderr P hello world";
    REQUIRE(pod_log_parse_cri(line, strlen(line), &rec));
    CHECK(rec.is_stderr);
    CHECK(rec.partial);
    CHECK_INT(rec.time_len, strlen(T1));
    CHECK_INT(rec.time_ms, 1795687201500LL);
    CHECK_INT(rec.message_len, 11);
    CHECK(memcmp(rec.message, "hello world", 11) == 0);
    line = T0 " stdout F";
    REQUIRE(pod_log_parse_cri(line, strlen(line), &rec)); /* an empty line, its space left out */
    CHECK(!rec.partial && !rec.is_stderr);
    CHECK_INT(rec.message_len, 0);
    static const char *const not_records[] = {
        "plain output",          "",
        T0 " stdin F x",         T0 " stdout X x",
        T0 " stdout Fx",         "2026-13-01T00:00:00Z stdout F x",
        "2026-11-26 stdout F x",
    };
    for (size_t i = 0; i < sizeof not_records / sizeof *not_records; i++)
        CHECK(!pod_log_parse_cri(not_records[i], strlen(not_records[i]), &rec));
}

static void partial_records_join_into_lines(void)
{
    const char *path = write_log("cri.log", cri, strlen(cri));
    CHECK_SERVED(path, all(), "first\noops\npartial\n\nlast\n");
    struct pod_log_options o = all();
    o.timestamps = true;
    CHECK_SERVED(path, o, T0 " first\n" T0 " oops\n" T1 " partial\n" T2 " \n" T2 " last\n");
}

static void tail_lines_count_lines_from_the_end(void)
{
    int code;
    const char *path = write_log("cri.log", cri, strlen(cri));
    struct pod_log_options o = all();
    static const struct {
        int64_t lines;
        const char *want;
    } cases[] = {{0, ""},
                 {1, "last\n"},
                 {2, "\nlast\n"},
                 {3, "partial\n\nlast\n"},
                 {4, "oops\npartial\n\nlast\n"},
                 {5, "first\noops\npartial\n\nlast\n"},
                 {99, "first\noops\npartial\n\nlast\n"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        o.tail_lines = cases[i].lines;
        char *text = serve(path, o, &code);
        CHECK_STR(text, cases[i].want);
        free(text);
    }
    /* an unfinished last line (P, no F after it) is a line */
    static const char open_end[] = T0 " stdout F one\n" T0 " stdout F two\n" T1 " stdout P thr";
    path = write_log("open.log", open_end, strlen(open_end));
    o.tail_lines = 1;
    CHECK_SERVED(path, o, "thr");
    o.tail_lines = 2;
    CHECK_SERVED(path, o, "two\nthr");
}

static void tail_lines_across_a_megabyte(void)
{
    struct sbuf big = {0};
    int lines = 0;
    while (big.len < (1 << 20))
        sbuf_printf(&big, T0 " stdout F line %d of a long log, padded to make it longer\n", ++lines);
    const char *path = write_log("big.log", big.data, big.len);
    free(big.data);
    struct pod_log_options o = all();
    o.tail_lines = 3;
    char want[256];
    snprintf(want, sizeof want,
             "line %d of a long log, padded to make it longer\nline %d of a long log, padded to make it longer\n"
             "line %d of a long log, padded to make it longer\n",
             lines - 2, lines - 1, lines);
    CHECK_SERVED(path, o, want);
    o.tail_lines = lines - 1; /* crosses every block boundary but the first */
    int code;
    char *text = serve(path, o, &code);
    CHECK(text && strncmp(text, "line 2 of", 9) == 0);
    free(text);
    o.tail_lines = 1;
    o.limit_bytes = 4;
    CHECK_SERVED(path, o, "line");
}

static void limit_bytes_stops_early(void)
{
    struct sbuf big = {0};
    for (int i = 0; i < 1000; i++)
        sbuf_printf(&big, T0 " stdout F %d\n", i);
    const char *path = write_log("limit.log", big.data, big.len);
    free(big.data);
    struct pod_log_options o = all();
    o.limit_bytes = 100;
    int code;
    char *text = serve(path, o, &code);
    REQUIRE(text);
    CHECK_INT(strlen(text), 100);
    CHECK(strncmp(text, "0\n1\n2\n", 6) == 0);
    free(text);
}

static void since_keeps_later_records(void)
{
    const char *path = write_log("cri.log", cri, strlen(cri));
    struct pod_log_options o = all();
    o.since_ms = 1795687201500LL; /* T1 itself is kept */
    CHECK_SERVED(path, o, "partial\n\nlast\n");
    o.since_ms = 1795687203000LL; /* after the last */
    CHECK_SERVED(path, o, "");
}

static void raw_files_are_served_as_they_are(void)
{
    static const char raw[] = "plain\n" T0 " stdout F looks like a record\nno newline";
    int code;
    const char *path = write_log("raw.log", raw, strlen(raw));
    struct pod_log_options o = all();
    o.timestamps = true;
    o.since_ms = 1795687209999LL;
    CHECK_SERVED(path, o, raw);
    o.tail_lines = 2;
    CHECK_SERVED(path, o, T0 " stdout F looks like a record\nno newline");
    /* a line longer than the reader's buffer in a CRI file goes through as it is */
    struct sbuf mixed = {0};
    sbuf_puts(&mixed, T0 " stdout F before\n");
    for (int i = 0; i < 200000; i++)
        sbuf_append(&mixed, "x", 1);
    sbuf_puts(&mixed, "\n" T0 " stdout F after\n");
    path = write_log("mixed.log", mixed.data, mixed.len);
    free(mixed.data);
    char *text = serve(path, all(), &code);
    REQUIRE(text);
    CHECK_INT(strlen(text), 7 + 200001 + 6);
    CHECK(strncmp(text, "before\nxxx", 10) == 0);
    CHECK_STR(text + strlen(text) - 8, "x\nafter\n");
    free(text);
}

static void links_and_odd_files_are_refused(void)
{
    int code;
    const char *path = write_log("target.log", cri, strlen(cri));
    char target[128], link_path[128], hard[128], fifo[128], missing[128];
    snprintf(target, sizeof target, "%s", path);
    snprintf(link_path, sizeof link_path, "%s/symlink.log", dir);
    snprintf(hard, sizeof hard, "%s/hard.log", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo.log", dir);
    snprintf(missing, sizeof missing, "%s/missing.log", dir);
    unlink(link_path);
    unlink(hard);
    unlink(fifo);
    REQUIRE(symlink("/etc/passwd", link_path) == 0);
    CHECK(serve(link_path, all(), &code) == NULL);
    CHECK_INT(code, 403);
    REQUIRE(link(target, hard) == 0); /* two links: one of them may be the tenant's */
    CHECK(serve(hard, all(), &code) == NULL);
    CHECK_INT(code, 403);
    CHECK(serve(target, all(), &code) == NULL);
    CHECK_INT(code, 403);
    unlink(hard);
    char *text = serve(target, all(), &code);
    CHECK(text != NULL);
    free(text);
    REQUIRE(mkfifo(fifo, 0600) == 0); /* refused without waiting for a writer */
    CHECK(serve(fifo, all(), &code) == NULL);
    CHECK_INT(code, 403);
    CHECK(serve(missing, all(), &code) == NULL);
    CHECK_INT(code, 404);
    CHECK(serve(dir, all(), &code) == NULL);
    CHECK_INT(code, 403);
}

static void bad_options_name_the_parameter(void)
{
    static const struct {
        struct pod_log_query q;
        const char *param;
    } bad[] = {
        {{.limit_bytes = "0"}, "limitBytes"},
        {{.limit_bytes = "12k"}, "limitBytes"},
        {{.tail_lines = "-1"}, "tailLines"},
        {{.since_seconds = "0"}, "sinceSeconds"},
        {{.since_time = "yesterday"}, "sinceTime"},
        {{.timestamps = "yes"}, "timestamps"},
        {{.since_seconds = "5", .since_time = "2026-11-26T10:00:00Z"}, "sinceSeconds"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct pod_log_options o;
        struct api_status st = {0};
        CHECK_INT(pod_log_options_parse(&bad[i].q, 0, &o, &st), -1);
        CHECK_INT(st.code, 400);
        CHECK_STR(st.reason, "BadRequest");
        CHECK(st.ncauses == 1 && strcmp(st.causes[0].field, bad[i].param) == 0);
        CHECK_CONTAINS(st.message, bad[i].param);
        st = (struct api_status){0};
    }
    struct pod_log_options o;
    struct api_status st = {0};
    struct pod_log_query q = {.limit_bytes = "100", .tail_lines = "0", .since_seconds = "10", .timestamps = "true"};
    REQUIRE(pod_log_options_parse(&q, 1000000, &o, &st) == 0);
    CHECK_INT(o.limit_bytes, 100);
    CHECK_INT(o.tail_lines, 0);
    CHECK_INT(o.since_ms, 990000);
    CHECK(o.timestamps);
    struct pod_log_query none = {0};
    REQUIRE(pod_log_options_parse(&none, 1000000, &o, &st) == 0);
    CHECK_INT(o.limit_bytes, 0);
    CHECK_INT(o.tail_lines, POD_LOG_ALL_LINES);
    CHECK(o.since_ms == INT64_MIN && !o.timestamps);
    q = (struct pod_log_query){.since_time = "2026-11-26T10:00:01Z"};
    REQUIRE(pod_log_options_parse(&q, 0, &o, &st) == 0);
    CHECK_INT(o.since_ms, 1795687201000LL);
}

static void cleanup(void)
{
    if (dir[0])
        remove_tree(dir);
}

TEST_MAIN(TEST_CASE(cri_records_parse), TEST_CASE(partial_records_join_into_lines),
          TEST_CASE(tail_lines_count_lines_from_the_end), TEST_CASE(tail_lines_across_a_megabyte),
          TEST_CASE(limit_bytes_stops_early), TEST_CASE(since_keeps_later_records),
          TEST_CASE(raw_files_are_served_as_they_are), TEST_CASE(links_and_odd_files_are_refused),
          TEST_CASE(bad_options_name_the_parameter), TEST_CASE(cleanup))
