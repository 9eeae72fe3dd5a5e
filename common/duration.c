/* Durations as Go's time.ParseDuration reads them ("1h30m", "1.5h", "300ms"), plus a bare number of
 * seconds, which Volcano's annotations and our traces also accept. */
#include "common/duration.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    double ms;
} units[] = {
    {"ns", 1e-6}, {"us", 1e-3}, {"\xc2\xb5s", 1e-3}, {"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000},
};

/* Longest unit name first, so "ms" is not read as "m" followed by garbage. */
static int match_unit(const char *p, double *ms)
{
    int best = -1;
    size_t best_len = 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t len = strlen(units[i].name);
        if (len > best_len && strncmp(p, units[i].name, len) == 0) {
            best = (int)i;
            best_len = len;
        }
    }
    if (best < 0)
        return 0;
    *ms = units[best].ms;
    return (int)best_len;
}

int duration_parse_ms(const char *s, int64_t *ms)
{
    if (!s || !*s || *s == '-')
        return -1;
    if (*s == '+')
        s++;
    char *end;
    double plain = strtod(s, &end);
    if (end != s && *end == '\0') { /* a bare number: seconds */
        *ms = (int64_t)(plain * 1000);
        return plain < 0 ? -1 : 0;
    }
    double total = 0;
    const char *p = s;
    while (*p) {
        if (!isdigit((unsigned char)*p) && *p != '.')
            return -1;
        double v = strtod(p, &end);
        if (end == p)
            return -1;
        double unit;
        int len = match_unit(end, &unit);
        if (len == 0)
            return -1;
        total += v * unit;
        p = end + len;
    }
    if (strcmp(s, "0") != 0 && p == s)
        return -1;
    *ms = (int64_t)total;
    return 0;
}
