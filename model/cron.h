/* Cron schedules as Kubernetes' CronJob reads them (robfig/cron's standard parser): five fields
 * (minute, hour, day of month, month, day of week) with lists, ranges, steps and names, the
 * descriptors @yearly, @annually, @monthly, @weekly, @daily, @midnight and @hourly, and (only when
 * the caller allows it: a test server's) @every <duration>. The next time is found in a time zone. */
#ifndef CALDERA_CRON_H
#define CALDERA_CRON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/tzfile.h"

struct cron_schedule {
    uint64_t minutes; /* bit n: minute n */
    uint32_t hours;
    uint32_t days;                 /* bit n: day of month n (1-31) */
    uint16_t months;               /* bit n: month n (1-12) */
    uint8_t weekdays;              /* bit n: day n of the week, Sunday 0 */
    bool days_star, weekdays_star; /* the field was * or ?: the other day field alone decides */
    int64_t every_ms;              /* @every: a fixed interval; the fields are unused */
};

/* Parses a schedule. allow_every admits @every <duration> (at least a second). Returns 0, or -1
 * with a detail in why as Kubernetes words it ("unparseable schedule ...: expected exactly 5
 * fields, found 4: ..."). */
int cron_parse(const char *text, bool allow_every, struct cron_schedule *out, char *why, size_t why_len);

/* The first scheduled time strictly after after_ms (unix milliseconds) in zone, on a whole minute
 * (after + the interval for @every). -1 when none comes within nine years (Feb 30). */
int64_t cron_next(const struct cron_schedule *c, const struct tz_zone *zone, int64_t after_ms);

/* The unit of the scheduled time in a job's name: a minute, as Kubernetes names them; a second for
 * an @every schedule under a minute (a test server's), whose runs would share a minute. */
int64_t cron_name_unit_ms(const struct cron_schedule *c);

/* Kubernetes' CronJob controller's view of missed schedules: the most recent scheduled time in
 * (earliest_ms, now_ms], or -1 when none; *missed says how many there were, counted up to
 * CRON_MISSED_COUNT_MAX + 1 (more than the maximum is "too many missed start times"). */
#define CRON_MISSED_COUNT_MAX 100
int64_t cron_most_recent(const struct cron_schedule *c, const struct tz_zone *zone, int64_t earliest_ms, int64_t now_ms,
                         int *missed);

#endif
