/* Server log lines on stderr: time, level, message. Thread-safe; one line per call.
 * Each line is formatted into one buffer and written with one write(2), so threads never interleave;
 * lines of a kind that floods are limited to one per interval (log_limited). */
#include "common/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"

static enum log_level min_level = LOG_INFO;
static const char *const level_names[] = {"debug", "info", "warn", "error"};

void log_set_level(enum log_level level) { min_level = level; }

void log_msg(enum log_level level, const char *fmt, ...)
{
    if (level < min_level)
        return;
    char line[2048];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    int n = snprintf(line, sizeof line, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %-5s ", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000, level_names[level]);
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}

/* --- lines limited by kind ------------------------------------------------------------------ */

#define LIMITED_KINDS 32
#define KIND_KEY_LEN 48

struct limited_kind {
    char key[KIND_KEY_LEN]; /* "": free */
    int64_t next_ms;        /* the next line of this kind may be logged from then */
    long left_out;
};

static pthread_mutex_t limited_mu = PTHREAD_MUTEX_INITIALIZER;
static struct limited_kind limited[LIMITED_KINDS];

/* key without its digits, cut to fit. */
static void kind_key(const char *key, char *out)
{
    size_t n = 0;
    for (const char *p = key; *p && n + 1 < KIND_KEY_LEN; p++)
        if (*p < '0' || *p > '9')
            out[n++] = *p;
    out[n] = '\0';
}

/* The kind's slot (the last one is shared by kinds that find the table full). Under limited_mu. */
static struct limited_kind *find_kind(const char *key)
{
    for (int i = 0; i < LIMITED_KINDS - 1; i++) {
        if (strcmp(limited[i].key, key) == 0)
            return &limited[i];
        if (!limited[i].key[0]) {
            snprintf(limited[i].key, sizeof limited[i].key, "%s", key);
            return &limited[i];
        }
    }
    return &limited[LIMITED_KINDS - 1];
}

void log_limited(enum log_level level, const char *key, const char *fmt, ...)
{
    if (level < min_level)
        return;
    char k[KIND_KEY_LEN];
    kind_key(key, k);
    int64_t now = clock_mono_ms();
    pthread_mutex_lock(&limited_mu);
    struct limited_kind *kind = find_kind(k);
    bool say = now >= kind->next_ms;
    long left_out = kind->left_out;
    if (say) {
        kind->next_ms = now + LOG_LIMIT_INTERVAL_MS;
        kind->left_out = 0;
    } else {
        kind->left_out++;
    }
    pthread_mutex_unlock(&limited_mu);
    if (!say)
        return;
    char text[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (left_out > 0)
        log_msg(level, "%s (and %ld more like it in the last %d s, not logged)", text, left_out,
                LOG_LIMIT_INTERVAL_MS / 1000);
    else
        log_msg(level, "%s", text);
}
