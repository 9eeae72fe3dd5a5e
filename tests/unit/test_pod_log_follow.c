/* The log reader while its file still grows (the log API's ?follow=true): what was appended since
 * is read on, an unfinished last record waits for its end until the writer is done, and limitBytes
 * still ends the answer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/sbuf.h"
#include "gateway/resources/pod_log.h"
#include "tests/lib/test.h"

static char path[64];

static void append(const char *text)
{
    FILE *f = fopen(path, "a");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Everything the reader has now, as one string (caller frees). */
static char *drain(struct pod_log_reader *r)
{
    struct sbuf out = {0};
    char buf[7]; /* small pieces, as a connection takes them */
    long n;
    while ((n = pod_log_read(r, buf, sizeof buf)) > 0)
        sbuf_append(&out, buf, (size_t)n);
    sbuf_puts(&out, "");
    return sbuf_take(&out);
}

static struct pod_log_reader *open_log(int64_t limit)
{
    struct pod_log_options o = {.limit_bytes = limit, .tail_lines = POD_LOG_ALL_LINES, .since_ms = INT64_MIN};
    struct pod_log_reader *r = NULL;
    struct api_status st = {0};
    if (pod_log_open(path, &o, &r, &st) != 0)
        return NULL;
    return r;
}

static void a_growing_log_is_read_on(void)
{
    snprintf(path, sizeof path, "/tmp/test_pod_log_follow.XXXXXX");
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    append(
        "2026-11-26T10:00:00.000000001Z stdout F one\n"
        "2026-11-26T10:00:00.000000002Z stdout P unfin");
    struct pod_log_reader *r = open_log(0);
    REQUIRE(r);
    pod_log_follow(r, true);
    char *text = drain(r);
    CHECK_STR(text, "one\n"); /* the unfinished record waits */
    free(text);
    append(
        "ished\n2026-11-26T10:00:00.000000003Z stdout F ... line\n"
        "2026-11-26T10:00:00.000000004Z stderr F two\n");
    text = drain(r);
    CHECK_STR(text, ""); /* nothing new until told the file grew */
    free(text);
    pod_log_follow(r, true);
    text = drain(r);
    CHECK_STR(text, "unfinished... line\ntwo\n"); /* the P record joined to the F one after it */
    free(text);
    append("2026-11-26T10:00:00.000000005Z stdout P no newline at the end");
    pod_log_follow(r, true);
    text = drain(r);
    CHECK_STR(text, "");
    free(text);
    pod_log_follow(r, false); /* the attempt ended: the rest is the last of the answer */
    text = drain(r);
    CHECK_STR(text, "no newline at the end");
    free(text);
    CHECK(!pod_log_limit_reached(r));
    pod_log_close(r);

    r = open_log(5);
    REQUIRE(r);
    pod_log_follow(r, true);
    text = drain(r);
    CHECK_STR(text, "one\nu");
    free(text);
    CHECK(pod_log_limit_reached(r)); /* the follower ends the stream here */
    pod_log_close(r);
    unlink(path);
}

TEST_MAIN(TEST_CASE(a_growing_log_is_read_on))
