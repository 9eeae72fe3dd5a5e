/* Cron schedules as Kubernetes' CronJob reads them: the five fields, names, steps and descriptors,
 * Kubernetes' refusals, the next time in UTC and in time zones read from the TZ database (a
 * daylight-saving gap and overlap), and the missed-schedule count the controller acts on. */
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "model/cron.h"
#include "tests/lib/test.h"

static int64_t at(const char *text)
{
    int64_t ms = 0;
    CHECK(rfc3339_parse(text, &ms) == 0);
    return ms;
}

static void next_is(const char *schedule, const struct tz_zone *zone, const char *after, const char *want)
{
    struct cron_schedule c;
    char why[300];
    if (cron_parse(schedule, false, &c, why, sizeof why) != 0) {
        CHECK_STR(why, "(parsed)");
        return;
    }
    char got[64] = "none";
    int64_t t = cron_next(&c, zone, at(after));
    if (t >= 0)
        rfc3339(t, got);
    if (strcmp(got, want) != 0)
        test_fail(__FILE__, __LINE__, "%s after %s: %s, want %s", schedule, after, got, want);
}

static void fields_and_descriptors_in_utc(void)
{
    struct tz_zone utc;
    tz_utc(&utc);
    next_is("* * * * *", &utc, "2026-03-01T10:00:30Z", "2026-03-01T10:01:00Z");
    next_is("*/15 * * * *", &utc, "2026-03-01T10:00:00Z", "2026-03-01T10:15:00Z");
    next_is("5 4 * * SUN", &utc, "2026-03-02T00:00:00Z", "2026-03-08T04:05:00Z"); /* a Sunday */
    next_is("0 9 * * mon-fri", &utc, "2026-03-06T10:00:00Z", "2026-03-09T09:00:00Z");
    next_is("0 0 1 jan,jul *", &utc, "2026-03-01T00:00:00Z", "2026-07-01T00:00:00Z");
    next_is("30 2 29 2 *", &utc, "2026-01-01T00:00:00Z", "2028-02-29T02:30:00Z");
    next_is("0 0 13 * 5", &utc, "2026-03-01T00:00:00Z", "2026-03-06T00:00:00Z"); /* day OR weekday */
    next_is("0 0 * * 7", &utc, "2026-03-02T00:00:00Z", "2026-03-08T00:00:00Z");  /* 7 is Sunday too */
    next_is("10/20 * * * *", &utc, "2026-03-01T10:31:00Z", "2026-03-01T10:50:00Z");
    next_is("@hourly", &utc, "2026-03-01T10:00:00Z", "2026-03-01T11:00:00Z");
    next_is("@daily", &utc, "2026-03-01T10:00:00Z", "2026-03-02T00:00:00Z");
    next_is("@weekly", &utc, "2026-03-02T10:00:00Z", "2026-03-08T00:00:00Z");
    next_is("@monthly", &utc, "2026-03-02T10:00:00Z", "2026-04-01T00:00:00Z");
    next_is("@yearly", &utc, "2026-03-02T10:00:00Z", "2027-01-01T00:00:00Z");
    next_is("0 0 30 2 *", &utc, "2026-03-02T10:00:00Z", "none");
}

static void refusals_say_why(void)
{
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"* * * *", "unparseable schedule \"* * * *\": expected exactly 5 fields, found 4: * * * *"},
        {"60 * * * *", "minute: value out of range 0-59: 60"},
        {"* 24 * * *", "hour: value out of range 0-23: 24"},
        {"* * 0 * *", "day of month: value out of range 1-31: 0"},
        {"* * * foo *", "month: failed to parse foo"},
        {"*/0 * * * *", "minute: failed to parse */0"},
        {"5-2 * * * *", "minute: value out of range 0-59: 5-2"},
        {"@fortnightly", "unrecognized descriptor: @fortnightly"},
        {"@every 2s", "unrecognized descriptor: @every 2s"}, /* only a test server takes it */
        {"TZ=UTC * * * * *", "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct cron_schedule c;
        char why[300] = "";
        CHECK(cron_parse(cases[i].text, false, &c, why, sizeof why) != 0);
        CHECK_CONTAINS(why, cases[i].why);
    }
    struct cron_schedule c;
    char why[300];
    REQUIRE(cron_parse("@every 2s", true, &c, why, sizeof why) == 0);
    CHECK_INT(c.every_ms, 2000);
    CHECK_INT(cron_next(&c, NULL, 10000), 12000);
    CHECK(cron_parse("@every 10ms", true, &c, why, sizeof why) != 0);
}

/* Europe/Berlin: 02:30 does not exist on 2026-03-29 (02:00 -> 03:00) and is skipped; 02:30 on
 * 2026-10-25 happens twice (03:00 -> 02:00) and runs once, at the first. */
static void time_zones_from_the_tz_database(void)
{
    struct tz_zone berlin, ny;
    char why[300];
    SKIP_IF(tz_load(NULL, "Europe/Berlin", &berlin, why, sizeof why) != 0, "no TZ database: %s", why);
    REQUIRE(tz_load(NULL, "America/New_York", &ny, why, sizeof why) == 0);
    next_is("0 9 * * *", &berlin, "2026-01-10T12:00:00Z", "2026-01-11T08:00:00Z"); /* CET, +1 */
    next_is("0 9 * * *", &berlin, "2026-07-10T12:00:00Z", "2026-07-11T07:00:00Z"); /* CEST, +2 */
    next_is("30 2 * * *", &berlin, "2026-03-28T12:00:00Z", "2026-03-30T00:30:00Z");
    next_is("30 2 * * *", &berlin, "2026-10-24T12:00:00Z", "2026-10-25T00:30:00Z");
    next_is("30 2 * * *", &berlin, "2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z");
    next_is("0 0 * * *", &ny, "2026-07-01T12:00:00Z", "2026-07-02T04:00:00Z");
    CHECK(tz_load(NULL, "Mars/Olympus_Mons", &berlin, why, sizeof why) != 0);
    CHECK_CONTAINS(why, "unknown time zone Mars/Olympus_Mons");
    CHECK(tz_load(NULL, "../etc/passwd", &berlin, why, sizeof why) != 0);
}

/* At most one catch-up run: the most recent missed time; more than 100 missed is reported. */
static void missed_schedules(void)
{
    struct tz_zone utc;
    tz_utc(&utc);
    struct cron_schedule c;
    char why[300];
    REQUIRE(cron_parse("*/10 * * * *", false, &c, why, sizeof why) == 0);
    int missed = 0;
    CHECK_INT(cron_most_recent(&c, &utc, at("2026-03-01T10:00:00Z"), at("2026-03-01T10:35:00Z"), &missed),
              at("2026-03-01T10:30:00Z"));
    CHECK_INT(missed, 3);
    CHECK_INT(cron_most_recent(&c, &utc, at("2026-03-01T10:30:00Z"), at("2026-03-01T10:35:00Z"), &missed), -1);
    CHECK_INT(missed, 0);
    CHECK_INT(cron_most_recent(&c, &utc, at("2026-03-01T10:00:00Z"), at("2026-03-08T10:05:00Z"), &missed),
              at("2026-03-08T10:00:00Z"));
    CHECK(missed > CRON_MISSED_COUNT_MAX);
}

TEST_MAIN(TEST_CASE(fields_and_descriptors_in_utc), TEST_CASE(refusals_say_why),
          TEST_CASE(time_zones_from_the_tz_database), TEST_CASE(missed_schedules))
