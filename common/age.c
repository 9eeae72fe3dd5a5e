/* Ages as kubectl prints them: k8s.io/apimachinery/pkg/util/duration.HumanDuration, and the age
 * of an RFC 3339 timestamp. */
#include "common/age.h"

#include <inttypes.h>
#include <stdio.h>

#include "common/clock.h"

/* "<a><unit_a>" followed by "<b><unit_b>" unless b is zero: "2m5s", "3h", "1y12d". */
static const char *two_units(char *buf, size_t len, int64_t a, const char *unit_a, int64_t b, const char *unit_b)
{
    if (b)
        snprintf(buf, len, "%" PRId64 "%s%" PRId64 "%s", a, unit_a, b, unit_b);
    else
        snprintf(buf, len, "%" PRId64 "%s", a, unit_a);
    return buf;
}

/* Follows k8s.io/apimachinery/pkg/util/duration.HumanDuration: two units while short, one later. */
static const char *age_hours(int64_t hours, char *buf, size_t len, int64_t minutes)
{
    int64_t days = hours / 24;
    if (hours < 8)
        return two_units(buf, len, hours, "h", minutes % 60, "m");
    if (hours < 48)
        return two_units(buf, len, hours, "h", 0, "");
    if (hours < 24 * 8)
        return two_units(buf, len, days, "d", hours % 24, "h");
    if (hours < 24 * 365 * 2)
        return two_units(buf, len, days, "d", 0, "");
    if (hours < 24 * 365 * 8)
        return two_units(buf, len, days / 365, "y", days % 365, "d");
    return two_units(buf, len, days / 365, "y", 0, "");
}

const char *human_age(int64_t ms, char *buf, size_t len)
{
    int64_t seconds = ms / 1000, minutes = seconds / 60;
    if (seconds < -1) {
        snprintf(buf, len, "<invalid>");
        return buf;
    }
    if (seconds < 0)
        return two_units(buf, len, 0, "s", 0, "");
    if (seconds < 120)
        return two_units(buf, len, seconds, "s", 0, "");
    if (minutes < 10)
        return two_units(buf, len, minutes, "m", seconds % 60, "s");
    if (minutes < 180)
        return two_units(buf, len, minutes, "m", 0, "");
    return age_hours(minutes / 60, buf, len, minutes);
}

const char *age_since(const json_t *ts, int64_t now_ms, char *buf, size_t len)
{
    int64_t then;
    if (!json_is_string(ts) || rfc3339_parse(json_string_value(ts), &then) != 0) {
        snprintf(buf, len, "<unknown>");
        return buf;
    }
    return human_age(now_ms - then, buf, len);
}
