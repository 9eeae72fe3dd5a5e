/* caldera-shim's log writer: what the task writes to its stdout and stderr pipes, copied into the
 * attempt's log as kubelet's CRI records, the file kept within --max-log-bytes. */
#include "shim_log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Past the bound the writer keeps the head already written, drops what follows, keeps the last
 * TAIL_MAX bytes of records (a quarter of the bound when that is less) in a ring, and writes them
 * after a marker when the task ends, so the error a task dies with is still there. The file never
 * grows past the bound: the head stops early enough to leave room for the tail and two markers. */
#define TAIL_MAX (64 * 1024)
#define MARKER_MAX 256
#define OUT_MAX (80 * 1024) /* more than a chunk's records (a chunk is at most 16 KiB) and the whole tail */
#define TS_LEN 30           /* 2016-10-06T00:17:09.669794202Z */

static int log_fd = -1;
static long long bound;      /* the option's value; 0: unbounded */
static long long head_limit; /* records are written as they come while the file stays within this */
static long long file_bytes; /* the file's size, counting what waits in out */
static long long dropped;    /* record bytes past the head, the kept tail among them */
static int truncated;
static char out[OUT_MAX];
static size_t out_len;
static char tail[TAIL_MAX];
static size_t tail_cap;
static unsigned long long tail_total; /* bytes ever put in the ring */

/* A full disk loses the bytes; the task goes on (the pipes are still read). */
static void write_all(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(log_fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void flush_out(void)
{
    write_all(out, out_len);
    out_len = 0;
}

/* The time as RFC3339Nano in UTC. The date by hand (days to civil, Howard Hinnant's algorithm):
 * musl's gmtime_r brings its time zone code and malloc into the binary. */
static void timestamp(char ts[TS_LEN + 1])
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    long long days = now.tv_sec / 86400, secs = now.tv_sec % 86400;
    long long z = days + 719468, era = z / 146097;
    long long doe = z - era * 146097, yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    int day = (int)(doy - (153 * mp + 2) / 5 + 1), month = (int)(mp < 10 ? mp + 3 : mp - 9);
    int year = (int)(yoe + era * 400 + (month <= 2));
    snprintf(ts, TS_LEN + 1, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", year, month, day, (int)(secs / 3600),
             (int)(secs / 60 % 60), (int)(secs % 60), (long)now.tv_nsec);
}

static void tail_put(const char *p, size_t n)
{
    tail_total += n;
    if (n > tail_cap) {
        p += n - tail_cap;
        n = tail_cap;
    }
    size_t pos = (size_t)((tail_total - n) % tail_cap);
    size_t first = n < tail_cap - pos ? n : tail_cap - pos;
    memcpy(tail + pos, p, first);
    memcpy(tail, p + first, n - first);
}

/* A marker record, written at once (its room was left out of the head). */
static void write_marker(const char *ts, const char *text)
{
    char line[MARKER_MAX];
    int n = snprintf(line, sizeof line, "%s stderr F %s\n", ts, text);
    if (n >= (int)sizeof line) {
        n = (int)sizeof line;
        line[n - 1] = '\n';
    }
    if (n > 0)
        write_all(line, (size_t)n);
}

static void start_truncation(const char *ts)
{
    char text[MARKER_MAX];
    truncated = 1;
    flush_out();
    snprintf(text, sizeof text,
             "caldera-shim: the log reached its bound (--max-log-bytes=%lld): output is dropped from here; "
             "its last %zu bytes follow when the task ends",
             bound, tail_cap);
    write_marker(ts, text);
}

static void emit(const char *ts, const char *stream, char tag, const char *payload, size_t len)
{
    char head[TS_LEN + 16];
    int h = snprintf(head, sizeof head, "%s %s %c ", ts, stream, tag);
    size_t rec = (size_t)h + len + 1;
    if (!truncated && (bound == 0 || file_bytes + (long long)rec <= head_limit)) {
        if (out_len + rec > sizeof out)
            flush_out();
        memcpy(out + out_len, head, (size_t)h);
        memcpy(out + out_len + h, payload, len);
        out[out_len + rec - 1] = '\n';
        out_len += rec;
        file_bytes += (long long)rec;
        return;
    }
    if (!truncated)
        start_truncation(ts);
    dropped += (long long)rec;
    tail_put(head, (size_t)h);
    tail_put(payload, len);
    tail_put("\n", 1);
}

void shim_log_open(int fd, long long max_bytes)
{
    struct stat st;
    log_fd = fd;
    if (max_bytes > 0 && max_bytes < SHIM_LOG_MIN_BYTES)
        max_bytes = SHIM_LOG_MIN_BYTES;
    bound = max_bytes > 0 ? max_bytes : 0;
    tail_cap = bound ? (size_t)(bound / 4 < TAIL_MAX ? bound / 4 : TAIL_MAX) : 0;
    head_limit = bound - (long long)tail_cap - 2 * MARKER_MAX;
    file_bytes = fstat(fd, &st) == 0 ? (long long)st.st_size : 0;
}

void shim_log_chunk(enum shim_stream stream, const char *data, size_t len)
{
    char ts[TS_LEN + 1];
    const char *name = stream == SHIM_STDOUT ? "stdout" : "stderr";
    timestamp(ts);
    while (len > 0) {
        const char *nl = memchr(data, '\n', len);
        if (!nl) {
            emit(ts, name, 'P', data, len);
            break;
        }
        emit(ts, name, 'F', data, (size_t)(nl - data));
        len -= (size_t)(nl - data) + 1;
        data = nl + 1;
    }
    flush_out(); /* one write per chunk: a running task's log is readable as it goes */
}

void shim_log_message(const char *text)
{
    char ts[TS_LEN + 1];
    timestamp(ts);
    emit(ts, "stderr", 'F', text, strlen(text));
    flush_out();
}

void shim_log_finish(void)
{
    flush_out();
    if (!truncated)
        return;
    /* The ring, in order, into out; once it has wrapped its first record is cut: it starts after
     * the first newline. */
    size_t kept = tail_total < tail_cap ? (size_t)tail_total : tail_cap;
    size_t start = (size_t)((tail_total - kept) % tail_cap);
    size_t first = kept < tail_cap - start ? kept : tail_cap - start;
    memcpy(out, tail + start, first);
    memcpy(out + first, tail, kept - first);
    size_t skip = 0;
    if (tail_total > tail_cap) {
        const char *nl = memchr(out, '\n', kept);
        skip = nl ? (size_t)(nl - out) + 1 : kept;
    }
    kept -= skip;
    char ts[TS_LEN + 1], text[MARKER_MAX];
    if (kept > TS_LEN) { /* the marker takes the first kept record's time: the times stay in order */
        memcpy(ts, out + skip, TS_LEN);
        ts[TS_LEN] = '\0';
    } else {
        timestamp(ts);
    }
    snprintf(text, sizeof text,
             "caldera-shim: %lld bytes of output were dropped (--max-log-bytes=%lld); the last %zu bytes follow",
             dropped - (long long)kept, bound, kept);
    write_marker(ts, text);
    write_all(out + skip, kept);
}
