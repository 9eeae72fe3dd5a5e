/* Wall and monotonic clocks in milliseconds, and RFC 3339 timestamps as Kubernetes prints them.
 * All timestamps are UTC; parsing accepts a 'Z' or a numeric offset. */
#include "common/clock.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t clock_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t clock_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void split_ms(int64_t wall_ms, struct tm *tm, int *ms)
{
    int64_t secs = wall_ms / 1000;
    int rem = (int)(wall_ms % 1000);
    if (rem < 0) {
        rem += 1000;
        secs -= 1;
    }
    time_t t = (time_t)secs;
    gmtime_r(&t, tm);
    *ms = rem;
}

const char *rfc3339(int64_t wall_ms, char *buf)
{
    struct tm tm;
    int ms;
    split_ms(wall_ms, &tm, &ms);
    snprintf(buf, RFC3339_LEN, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec);
    return buf;
}

const char *rfc3339_ms(int64_t wall_ms, char *buf)
{
    struct tm tm;
    int ms;
    split_ms(wall_ms, &tm, &ms);
    snprintf(buf, RFC3339_LEN, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
    return buf;
}

static int read_digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)**p))
            return -1;
        v = v * 10 + (**p - '0');
        (*p)++;
    }
    *out = v;
    return 0;
}

int rfc3339_parse(const char *s, int64_t *wall_ms)
{
    struct tm tm = {0};
    int year, mon, day, hour, min, sec, ms = 0;
    const char *p = s;
    if (read_digits(&p, 4, &year) || *p++ != '-' || read_digits(&p, 2, &mon) || *p++ != '-' ||
        read_digits(&p, 2, &day) || (*p != 'T' && *p != 't' && *p != ' '))
        return -1;
    p++;
    if (read_digits(&p, 2, &hour) || *p++ != ':' || read_digits(&p, 2, &min) || *p++ != ':' || read_digits(&p, 2, &sec))
        return -1;
    if (*p == '.') {
        p++;
        int digits = 0;
        while (isdigit((unsigned char)*p)) {
            if (digits < 3)
                ms = ms * 10 + (*p - '0');
            digits++;
            p++;
        }
        if (digits == 0)
            return -1;
        for (; digits < 3; digits++)
            ms *= 10;
    }
    int offset_min = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1, oh, om;
        if (read_digits(&p, 2, &oh) || *p++ != ':' || read_digits(&p, 2, &om))
            return -1;
        offset_min = sign * (oh * 60 + om);
    } else {
        return -1;
    }
    if (*p != '\0' || mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60)
        return -1;
    tm.tm_year = year - 1900;
    tm.tm_mon = mon - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = min;
    tm.tm_sec = sec;
    time_t t = timegm(&tm);
    *wall_ms = ((int64_t)t - (int64_t)offset_min * 60) * 1000 + ms;
    return 0;
}

struct timespec clock_deadline(clockid_t clock, int64_t ms)
{
    struct timespec t;
    clock_gettime(clock, &t);
    t.tv_sec += (time_t)(ms / 1000);
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}
