/* Volcano's CronJob: its validation (each cause naming its field, as Kubernetes' CronJob validation
 * words it), the jobs it makes (named "<cron>-<minutes>", its template's metadata, owned by it),
 * the stored form, and the controller's decisions: one catch-up run, too many missed times, the
 * starting deadline, concurrencyPolicy Allow/Forbid/Replace, suspend and the history limits. */
#include <stdio.h>
#include <string.h>

#include "adapters/objects/cronjob.h"
#include "common/clock.h"
#include "scheduler/controller/cron_sync.h"
#include "tests/lib/test.h"

static const struct cronjob_rules rules = {false, NULL};

static int parse(const char *yaml, struct cron_job **cj, struct api_status *st)
{
    struct intake in;
    memset(st, 0, sizeof *st);
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, st) != 0)
        return -1;
    int rc = cronjob_from_doc(&in.docs[0], "team-a", &rules, cj, st);
    intake_free(&in);
    return rc;
}

static char *doc(const char *spec_lines)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: CronJob\nmetadata:\n  name: nightly\nspec:\n%s"
             "  jobTemplate:\n    metadata:\n      labels: {team: a}\n    spec:\n      tasks:\n      - name: t\n"
             "        replicas: 1\n        template:\n          spec:\n            containers:\n"
             "            - name: c\n              command: [\"true\"]\n",
             spec_lines);
    return buf;
}

static void valid_cronjob_and_its_jobs(void)
{
    struct cron_job *cj;
    struct api_status st;
    REQUIRE(parse(doc("  schedule: \"@hourly\"\n  timeZone: UTC\n  concurrencyPolicy: Forbid\n"), &cj, &st) == 0);
    CHECK_INT(cj->concurrency, CRON_FORBID);
    CHECK_INT(cj->successful_history, 3);
    CHECK_INT(cj->failed_history, 1);
    CHECK_INT(cj->starting_deadline_s, -1);
    snprintf(cj->uid, sizeof cj->uid, "0000-cron");
    int64_t when = 0;
    REQUIRE(rfc3339_parse("2026-03-01T10:00:00Z", &when) == 0);
    char name[128];
    cronjob_job_name(cj, when, name, sizeof name);
    CHECK_STR(name, "nightly-29539320"); /* minutes since the epoch, as Kubernetes names them */
    json_t *job = cronjob_job_document(cj, when);
    json_t *meta = json_object_get(job, "metadata");
    CHECK_STR(json_string_value(json_object_get(meta, "name")), "nightly-29539320");
    CHECK_STR(json_string_value(json_object_get(json_object_get(meta, "labels"), "team")), "a");
    CHECK_STR(json_string_value(json_object_get(json_object_get(meta, "annotations"), CRONJOB_SCHEDULED_ANNOTATION)),
              "2026-03-01T10:00:00Z");
    CHECK(json_is_array(json_object_get(json_object_get(job, "spec"), "tasks")));
    json_decref(job);
    json_t *owners = cronjob_owner_references(cj);
    CHECK_STR(json_string_value(json_object_get(json_array_get(owners, 0), "kind")), "CronJob");
    CHECK_STR(json_string_value(json_object_get(json_array_get(owners, 0), "uid")), "0000-cron");
    CHECK(json_is_true(json_object_get(json_array_get(owners, 0), "controller")));
    json_decref(owners);

    cj->last_schedule_ms = when;
    char *stored = cronjob_to_store_json(cj);
    REQUIRE(stored);
    struct cron_job *back = cronjob_from_store_json(stored, &rules);
    REQUIRE(back);
    CHECK_STR(back->uid, "0000-cron");
    CHECK_INT(back->last_schedule_ms, when);
    CHECK_INT(back->concurrency, CRON_FORBID);
    free(stored);
    cron_job_free(back);
    cron_job_free(cj);
}

static void refusals_name_the_field(void)
{
    static const struct {
        const char *spec, *cause;
    } cases[] = {
        {"  schedule: \"* * * *\"\n", "spec.schedule: Invalid value: \"* * * *\": unparseable schedule"},
        {"  schedule: \"61 * * * *\"\n", "spec.schedule: Invalid value: \"61 * * * *\""},
        {"  schedule: \"@every 2s\"\n", "spec.schedule: Invalid value"},
        {"  schedule: \"@daily\"\n  timeZone: Mars/Base\n",
         "spec.timeZone: Invalid value: \"Mars/Base\": unknown time zone Mars/Base"},
        {"  schedule: \"@daily\"\n  concurrencyPolicy: Sometimes\n",
         "spec.concurrencyPolicy: Unsupported value: \"Sometimes\""},
        {"  schedule: \"@daily\"\n  startingDeadlineSeconds: -1\n", "spec.startingDeadlineSeconds: Invalid value"},
        {"  schedule: \"@daily\"\n  successfulJobsHistoryLimit: -1\n", "spec.successfulJobsHistoryLimit"},
        {"  timeZone: UTC\n", "spec.schedule: Required value"},
        {"  schedule: \"@daily\"\n  every: 1\n", "unknown field \"spec.every\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct cron_job *cj = NULL;
        struct api_status st;
        CHECK(parse(doc(cases[i].spec), &cj, &st) != 0);
        CHECK_INT(st.code, 422);
        CHECK_CONTAINS(st.message, cases[i].cause);
        cron_job_free(cj);
    }
}

static int64_t at(const char *text)
{
    int64_t ms = 0;
    CHECK(rfc3339_parse(text, &ms) == 0);
    return ms;
}

static struct cron_job *every_ten_minutes(const char *extra)
{
    struct cron_job *cj = NULL;
    struct api_status st;
    char spec[256];
    snprintf(spec, sizeof spec, "  schedule: \"*/10 * * * *\"\n%s", extra);
    CHECK(parse(doc(spec), &cj, &st) == 0);
    if (cj)
        cj->created_ms = at("2026-03-01T09:55:00Z");
    return cj;
}

/* Down from 10:00 to 10:35: one catch-up run, for 10:30; then nothing until 10:40. */
static void missed_times_run_once(void)
{
    struct cron_job *cj = every_ten_minutes("");
    REQUIRE(cj);
    struct cron_plan plan;
    int del[8];
    cron_sync_plan(cj, NULL, 0, at("2026-03-01T10:35:00Z"), &plan, del);
    CHECK_INT(plan.create_ms, at("2026-03-01T10:30:00Z"));
    CHECK_INT(plan.wake_ms, at("2026-03-01T10:40:00Z"));
    CHECK(plan.event_reason == NULL);
    cj->last_schedule_ms = plan.create_ms;
    struct cron_owned running = {plan.create_ms, CRON_OWNED_ACTIVE, 0};
    cron_sync_plan(cj, &running, 1, at("2026-03-01T10:36:00Z"), &plan, del);
    CHECK_INT(plan.create_ms, -1);
    /* a week later: too many missed, still one run, the most recent */
    cron_sync_plan(cj, &running, 1, at("2026-03-08T10:01:00Z"), &plan, del);
    CHECK_INT(plan.create_ms, at("2026-03-08T10:00:00Z"));
    CHECK_STR(plan.event_reason, "TooManyMissedTimes");
    cron_job_free(cj);
}

static void starting_deadline_makes_a_start_too_late(void)
{
    struct cron_job *cj = every_ten_minutes("  startingDeadlineSeconds: 60\n");
    REQUIRE(cj);
    struct cron_plan plan;
    int del[8];
    cron_sync_plan(cj, NULL, 0, at("2026-03-01T10:00:30Z"), &plan, del);
    CHECK_INT(plan.create_ms, at("2026-03-01T10:00:00Z"));
    cron_sync_plan(cj, NULL, 0, at("2026-03-01T10:02:00Z"), &plan, del);
    CHECK_INT(plan.create_ms, -1); /* nothing in the last 60 s */
    cron_job_free(cj);
}

static void concurrency_policies(void)
{
    struct cron_owned running = {at("2026-03-01T10:00:00Z"), CRON_OWNED_ACTIVE, 0};
    struct cron_plan plan;
    int del[8];
    const char *const policies[] = {"Allow", "Forbid", "Replace"};
    for (int p = 0; p < 3; p++) {
        char extra[64];
        snprintf(extra, sizeof extra, "  concurrencyPolicy: %s\n", policies[p]);
        struct cron_job *cj = every_ten_minutes(extra);
        REQUIRE(cj);
        cj->last_schedule_ms = running.scheduled_ms;
        cron_sync_plan(cj, &running, 1, at("2026-03-01T10:10:05Z"), &plan, del);
        CHECK_INT(plan.create_ms, p == CRON_FORBID ? -1 : at("2026-03-01T10:10:00Z"));
        CHECK(plan.delete_active == (p == CRON_REPLACE));
        if (p == CRON_FORBID)
            CHECK_STR(plan.event_reason, "JobAlreadyActive");
        cron_job_free(cj);
    }
}

/* successfulJobsHistoryLimit 2, failedJobsHistoryLimit 1: the oldest finished go; suspend stops new
 * runs but not the cleaning. */
static void history_limits_and_suspend(void)
{
    struct cron_job *cj = every_ten_minutes("  successfulJobsHistoryLimit: 2\n  suspend: true\n");
    REQUIRE(cj);
    struct cron_owned owned[] = {
        {at("2026-03-01T10:00:00Z"), CRON_OWNED_SUCCEEDED, at("2026-03-01T10:01:00Z")},
        {at("2026-03-01T10:10:00Z"), CRON_OWNED_FAILED, at("2026-03-01T10:11:00Z")},
        {at("2026-03-01T10:20:00Z"), CRON_OWNED_SUCCEEDED, at("2026-03-01T10:21:00Z")},
        {at("2026-03-01T10:30:00Z"), CRON_OWNED_FAILED, at("2026-03-01T10:31:00Z")},
        {at("2026-03-01T10:40:00Z"), CRON_OWNED_SUCCEEDED, at("2026-03-01T10:41:00Z")},
        {at("2026-03-01T10:50:00Z"), CRON_OWNED_ACTIVE, 0},
    };
    struct cron_plan plan;
    int del[8];
    cron_sync_plan(cj, owned, 6, at("2026-03-01T10:55:00Z"), &plan, del);
    CHECK_INT(plan.create_ms, -1);
    CHECK_INT(plan.wake_ms, -1);
    REQUIRE(plan.ndelete == 2);
    CHECK_INT(del[0], 0); /* the oldest success */
    CHECK_INT(del[1], 1); /* the older failure */
    CHECK_INT(plan.last_successful_ms, at("2026-03-01T10:41:00Z"));
    cron_job_free(cj);
}

TEST_MAIN(TEST_CASE(valid_cronjob_and_its_jobs), TEST_CASE(refusals_name_the_field), TEST_CASE(missed_times_run_once),
          TEST_CASE(starting_deadline_makes_a_start_too_late), TEST_CASE(concurrency_policies),
          TEST_CASE(history_limits_and_suspend))
