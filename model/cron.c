/* Cron schedules: parsing the five fields and the descriptors, and finding the next time a schedule
 * fires in a time zone by walking local days (days from the civil calendar, no libc time zone). */
#include "model/cron.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/duration.h"

struct field_def {
    const char *name;
    int min, max;
    const char *const *names; /* names for min.. (months from 1, days from 0), or NULL */
};

static const char *const month_names[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                          "jul", "aug", "sep", "oct", "nov", "dec"};
static const char *const day_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

static const struct field_def fields[5] = {
    {"minute", 0, 59, NULL},          {"hour", 0, 23, NULL},
    {"day of month", 1, 31, NULL},    {"month", 1, 12, month_names},
    {"day of week", 0, 7, day_names},
};

static const struct {
    const char *name, *spec;
} descriptors[] = {
    {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"}, {"@weekly", "0 0 * * 0"},
    {"@daily", "0 0 * * *"},  {"@midnight", "0 0 * * *"}, {"@hourly", "0 * * * *"},
};

/* A number or a name of the field: 0 with *v, or -1. */
static int read_value(const struct field_def *f, const char **p, int *v)
{
    const char *s = *p;
    if (isdigit((unsigned char)*s)) {
        long n = 0;
        while (isdigit((unsigned char)*s) && n < 1000)
            n = n * 10 + (*s++ - '0');
        *v = (int)n;
        *p = s;
        return 0;
    }
    if (!f->names)
        return -1;
    int count = f->max - f->min + (f->min == 0 ? 0 : 1);
    for (int i = 0; i < count; i++)
        if (strncasecmp(s, f->names[i], 3) == 0 && !isalpha((unsigned char)s[3])) {
            *v = i + (f->min == 0 ? 0 : 1);
            *p = s + 3;
            return 0;
        }
    return -1;
}

/* One field ("1-5/2,7", "*", "?/10", "MON-FRI") into bits. Returns 0, or -1 with why. */
static int parse_field(const struct field_def *f, const char *text, uint64_t *bits, bool *star, char *why,
                       size_t why_len)
{
    *bits = 0;
    *star = false;
    const char *p = text;
    for (;;) {
        int lo, hi, step = 1;
        bool item_star = false;
        if (*p == '*' || *p == '?') {
            lo = f->min;
            hi = f->max == 7 ? 6 : f->max;
            item_star = true;
            p++;
        } else {
            if (read_value(f, &p, &lo) != 0)
                goto bad;
            hi = lo;
            if (*p == '-') {
                p++;
                if (read_value(f, &p, &hi) != 0)
                    goto bad;
            }
        }
        if (*p == '/') {
            p++;
            if (!isdigit((unsigned char)*p))
                goto bad;
            step = 0;
            while (isdigit((unsigned char)*p) && step < 1000)
                step = step * 10 + (*p++ - '0');
            if (step == 0)
                goto bad;
            if (!item_star && hi == lo) /* "a/n": from a to the end, as robfig reads it */
                hi = f->max == 7 ? 6 : f->max;
            item_star = false; /* a step restricts the field */
        }
        if (lo < f->min || hi > f->max || lo > hi) {
            snprintf(why, why_len, "%s: value out of range %d-%d: %s", f->name, f->min, f->max, text);
            return -1;
        }
        for (int v = lo; v <= hi; v += step)
            *bits |= 1ULL << (f->max == 7 && v == 7 ? 0 : v);
        if (item_star)
            *star = true;
        if (*p == '\0')
            return 0;
        if (*p++ != ',')
            goto bad;
    }
bad:
    snprintf(why, why_len, "%s: failed to parse %s", f->name, text);
    return -1;
}

static int parse_fields(const char *spec, const char *shown, struct cron_schedule *out, char *why, size_t why_len)
{
    char copy[256], *parts[6], *save = NULL;
    snprintf(copy, sizeof copy, "%s", spec);
    int n = 0;
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        if (n < 6)
            parts[n++] = t;
        else
            n++;
    if (n != 5) {
        snprintf(why, why_len, "expected exactly 5 fields, found %d: %s", n, shown);
        return -1;
    }
    uint64_t bits[5];
    bool stars[5];
    for (int i = 0; i < 5; i++) {
        char detail[200];
        if (parse_field(&fields[i], parts[i], &bits[i], &stars[i], detail, sizeof detail) != 0) {
            snprintf(why, why_len, "%s", detail);
            return -1;
        }
    }
    out->minutes = bits[0];
    out->hours = (uint32_t)bits[1];
    out->days = (uint32_t)bits[2];
    out->months = (uint16_t)bits[3];
    out->weekdays = (uint8_t)bits[4];
    out->days_star = stars[2];
    out->weekdays_star = stars[4];
    return 0;
}

int cron_parse(const char *text, bool allow_every, struct cron_schedule *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    char detail[300];
    while (*text == ' ' || *text == '\t')
        text++;
    if (strncmp(text, "TZ=", 3) == 0 || strncmp(text, "CRON_TZ=", 8) == 0) {
        snprintf(why, why_len, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead");
        return -1;
    }
    if (strlen(text) > 200) {
        snprintf(why, why_len, "unparseable schedule: longer than 200 characters");
        return -1;
    }
    int rc = -1;
    if (text[0] == '@') {
        if (strncmp(text, "@every ", 7) == 0 && allow_every) {
            const char *bad = NULL;
            rc = duration_parse(text + 7, &out->every_ms, &bad);
            if (rc == 0 && out->every_ms < 1000) {
                rc = -1;
                bad = "must be at least 1s";
            }
            snprintf(detail, sizeof detail, "@every: %s", bad ? bad : "");
        } else {
            for (size_t i = 0; i < sizeof descriptors / sizeof *descriptors; i++)
                if (strcmp(text, descriptors[i].name) == 0)
                    rc = parse_fields(descriptors[i].spec, text, out, detail, sizeof detail);
            if (rc != 0)
                snprintf(detail, sizeof detail, "unrecognized descriptor: %s", text);
        }
    } else {
        rc = parse_fields(text, text, out, detail, sizeof detail);
    }
    if (rc != 0)
        snprintf(why, why_len, "unparseable schedule \"%s\": %s", text, detail);
    return rc;
}

/* The civil date of a day counted from 1970-01-01 (Howard Hinnant's algorithm). */
static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

static bool day_matches(const struct cron_schedule *c, int64_t day)
{
    int64_t y;
    int m, d;
    civil_from_days(day, &y, &m, &d);
    if (!(c->months >> m & 1))
        return false;
    int weekday = (int)((day % 7 + 11) % 7); /* 1970-01-01 was a Thursday (4) */
    bool dom = c->days >> d & 1, dow = c->weekdays >> weekday & 1;
    if (c->days_star || c->weekdays_star)
        return dom && dow;
    return dom || dow;
}

/* The earliest instant > after_s whose local time (in zone) is local_s; -1 when the local time
 * does not exist there (a gap when clocks go forward) or is not later than after_local_s (a time
 * repeated when clocks go back runs once, at its first). */
static int64_t instant_of(const struct tz_zone *zone, int64_t local_s, int64_t after_s, int64_t after_local_s)
{
    if (local_s <= after_local_s)
        return -1;
    int32_t offsets[2] = {tz_offset_at(zone, local_s - 86400), tz_offset_at(zone, local_s + 86400)};
    int64_t best = -1;
    for (int i = 0; i < 2; i++) {
        int64_t t = local_s - offsets[i];
        if (tz_offset_at(zone, t) == offsets[i] && t > after_s && (best < 0 || t < best))
            best = t;
    }
    return best;
}

#define SEARCH_DAYS (366 * 9)

int64_t cron_next(const struct cron_schedule *c, const struct tz_zone *zone, int64_t after_ms)
{
    if (c->every_ms > 0)
        return after_ms + c->every_ms;
    int64_t after_s = floor_div(after_ms, 1000);
    int64_t local = after_s + tz_offset_at(zone, after_s);
    int64_t day = floor_div(local, 86400) - 1; /* a day early: an overlap may put the answer there */
    for (int64_t i = 0; i < SEARCH_DAYS; i++, day++) {
        if (!day_matches(c, day))
            continue;
        for (int h = 0; h < 24; h++) {
            if (!(c->hours >> h & 1))
                continue;
            for (int mi = 0; mi < 60; mi++) {
                if (!(c->minutes >> mi & 1))
                    continue;
                int64_t t = instant_of(zone, day * 86400 + h * 3600 + mi * 60, after_s, local);
                if (t >= 0)
                    return t * 1000;
            }
        }
    }
    return -1;
}

int64_t cron_most_recent(const struct cron_schedule *c, const struct tz_zone *zone, int64_t earliest_ms, int64_t now_ms,
                         int *missed)
{
    *missed = 0;
    int64_t recent = -1;
    for (int64_t t = cron_next(c, zone, earliest_ms); t >= 0 && t <= now_ms; t = cron_next(c, zone, t)) {
        recent = t;
        if (++*missed > CRON_MISSED_COUNT_MAX)
            break;
    }
    if (*missed <= CRON_MISSED_COUNT_MAX)
        return recent;
    /* too many: the most recent is found from windows ending now, smallest first */
    static const int64_t windows_ms[] = {3600000LL, 86400000LL, 32 * 86400000LL, 367 * 86400000LL,
                                         9 * 367 * 86400000LL};
    for (size_t w = 0; w < sizeof windows_ms / sizeof *windows_ms; w++) {
        int64_t from = now_ms - windows_ms[w] > recent ? now_ms - windows_ms[w] : recent;
        int64_t t = cron_next(c, zone, from);
        if (t < 0 || t > now_ms)
            continue;
        for (int64_t n; (n = cron_next(c, zone, t)) >= 0 && n <= now_ms;)
            t = n;
        return t;
    }
    return recent;
}

int64_t cron_name_unit_ms(const struct cron_schedule *c)
{
    return c->every_ms > 0 && c->every_ms % 60000 != 0 ? 1000 : 60000;
}
