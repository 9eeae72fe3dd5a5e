/* Volcano's CronJob against a real jobserver run with --test-cron-every (schedules of seconds):
 * refusals naming their field, jobs created on schedule and named "<cron>-<time>", owned by the
 * CronJob, the successful history limit, Forbid keeping one job at a time, the CronJob found again
 * after a restart, and its jobs deleted with it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define CRONJOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/default/cronjobs"
#define JOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
#define WAIT_MS 60000

static const char *const args[] = {"--nodes", "examples/nodes.yaml", "--test-cron-every", NULL};

static char *cronjob(const char *name, const char *spec_lines, const char *command)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: CronJob\nmetadata:\n  name: %s\nspec:\n%s"
             "  jobTemplate:\n    spec:\n      tasks:\n      - name: t\n        replicas: 1\n        template:\n"
             "          spec:\n            containers:\n            - name: c\n              command: %s\n",
             name, spec_lines, command);
    return buf;
}

static long post(const struct test_server *s, const char *yaml, json_t **answer)
{
    long code = 0;
    json_t *r = server_request(s, "POST", CRONJOBS, yaml, "application/yaml", &code);
    if (answer)
        *answer = r;
    else
        json_decref(r);
    return code;
}

static void sleep_ms(int ms) { nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000L}, NULL); }

/* Jobs of the list whose name starts with prefix, and of them how many read phase (NULL: any). */
static int count_jobs(const struct test_server *s, const char *prefix, const char *phase)
{
    json_t *list = server_request(s, "GET", JOBS, NULL, NULL, NULL);
    size_t i;
    json_t *item;
    int n = 0;
    json_array_foreach(json_object_get(list, "items"), i, item)
    {
        const char *name = json_string_value(server_json_at(item, "metadata.name"));
        const char *p = json_string_value(server_json_at(item, "status.state.phase"));
        if (name && strncmp(name, prefix, strlen(prefix)) == 0 && (!phase || (p && strcmp(p, phase) == 0)))
            n++;
    }
    json_decref(list);
    return n;
}

static void refusals_name_the_field(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    json_t *r;
    CHECK_INT(post(&s, cronjob("bad", "  schedule: \"61 * * * *\"\n", "[\"true\"]"), &r), 422);
    CHECK_STR(json_string_value(server_json_at(r, "details.causes.0.field")), "spec.schedule");
    json_decref(r);
    CHECK_INT(post(&s, cronjob("bad", "  schedule: \"@daily\"\n  timeZone: Nowhere/Else\n", "[\"true\"]"), &r), 422);
    CHECK_STR(json_string_value(server_json_at(r, "details.causes.0.field")), "spec.timeZone");
    json_decref(r);
    CHECK_INT(post(&s, cronjob("bad", "  schedule: \"@daily\"\n", "7"), &r), 422); /* the template's command */
    CHECK_CONTAINS(json_string_value(server_json_at(r, "message")), "spec.jobTemplate");
    json_decref(r);
    json_t *list = server_request(&s, "GET", CRONJOBS, NULL, NULL, NULL);
    char from[64];
    snprintf(from, sizeof from, "%s", json_string_value(server_json_at(list, "metadata.resourceVersion")));
    json_decref(list);
    CHECK_INT(post(&s, cronjob("good", "  schedule: \"0 3 * * *\"\n  timeZone: Europe/Berlin\n", "[\"true\"]"), NULL),
              201);
    /* watched like any object: a stream from before the creation shows it (ADDED, or MODIFIED when the
     * stream catches up from the database because nobody watched when it was made) */
    char path[256];
    snprintf(path, sizeof path, CRONJOBS "?watch=true&timeoutSeconds=1&resourceVersion=%s", from);
    long code = 0;
    char *stream = server_request_text(&s, "GET", path, &code);
    CHECK_INT(code, 200);
    CHECK(stream && (strstr(stream, "\"type\":\"ADDED\"") || strstr(stream, "\"type\":\"MODIFIED\"")));
    CHECK_CONTAINS(stream, "\"name\":\"good\"");
    CHECK_CONTAINS(stream, "\"kind\":\"CronJob\"");
    free(stream);
    CHECK_INT(post(&s, cronjob("good", "  schedule: \"0 3 * * *\"\n", "[\"true\"]"), NULL), 409);
    server_stop(&s);
    server_cleanup(&s);
}

/* @every 1s with successfulJobsHistoryLimit 1: jobs come, named and owned; once suspended and
 * settled one Completed job is left; the CronJob and its times survive a restart; deleting it
 * deletes its jobs. */
static void runs_on_schedule_keeps_its_history_and_survives_a_restart(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    json_t *created;
    REQUIRE(post(&s, cronjob("tick", "  schedule: \"@every 1s\"\n  successfulJobsHistoryLimit: 1\n", "[\"true\"]"),
                 &created) == 201);
    const char *uid = json_string_value(server_json_at(created, "metadata.uid"));
    REQUIRE(uid);
    char *cron_uid = strdup(uid);
    json_decref(created);
    /* three runs at least */
    int completed_seen = 0;
    for (int waited = 0; waited < WAIT_MS && completed_seen < 3; waited += 200) {
        json_t *list = server_request(&s, "GET", "/api/v1/namespaces/default/events", NULL, NULL, NULL);
        completed_seen = 0;
        size_t i;
        json_t *ev;
        json_array_foreach(json_object_get(list, "items"), i, ev)
        {
            const char *reason = json_string_value(json_object_get(ev, "reason"));
            completed_seen += reason && strcmp(reason, "SuccessfulCreate") == 0;
        }
        json_decref(list);
        sleep_ms(200);
    }
    CHECK(completed_seen >= 3);
    /* a job of it: its name, its owner */
    json_t *list = server_request(&s, "GET", JOBS, NULL, NULL, NULL);
    json_t *job = server_json_at(list, "items.0");
    REQUIRE(job);
    CHECK(strncmp(json_string_value(server_json_at(job, "metadata.name")), "tick-", 5) == 0);
    CHECK_STR(json_string_value(server_json_at(job, "metadata.ownerReferences.0.kind")), "CronJob");
    CHECK_STR(json_string_value(server_json_at(job, "metadata.ownerReferences.0.uid")), cron_uid);
    CHECK(json_is_string(json_object_get(server_json_at(job, "metadata.annotations"),
                                         "batch.kubernetes.io/cronjob-scheduled-timestamp")));
    json_decref(list);

    /* suspend, let it settle: one Completed job is kept */
    json_t *cj = server_request(&s, "GET", CRONJOBS "/tick", NULL, NULL, NULL);
    REQUIRE(cj);
    json_object_set_new(json_object_get(cj, "spec"), "suspend", json_true());
    json_object_del(json_object_get(cj, "metadata"), "resourceVersion");
    char *body = json_dumps(cj, 0);
    long code = 0;
    json_decref(server_request(&s, "PUT", CRONJOBS "/tick", body, NULL, &code));
    CHECK_INT(code, 200);
    free(body);
    json_decref(cj);
    int completed = -1, all = -1;
    for (int waited = 0; waited < WAIT_MS; waited += 250) {
        completed = count_jobs(&s, "tick-", "Completed");
        all = count_jobs(&s, "tick-", NULL);
        if (completed == 1 && all == 1)
            break;
        sleep_ms(250);
    }
    CHECK_INT(completed, 1);
    CHECK_INT(all, 1);
    json_t *before = server_request(&s, "GET", CRONJOBS "/tick", NULL, NULL, NULL);
    CHECK(json_is_string(server_json_at(before, "status.lastSuccessfulTime")));
    char *last = strdup(json_string_value(server_json_at(before, "status.lastScheduleTime")));
    json_decref(before);

    REQUIRE(server_stop(&s) == 0);
    REQUIRE(server_start(&s, s.data_dir, args) == 0);
    json_t *after = server_request(&s, "GET", CRONJOBS "/tick", NULL, NULL, NULL);
    CHECK_STR(json_string_value(server_json_at(after, "metadata.uid")), cron_uid);
    CHECK_STR(json_string_value(server_json_at(after, "status.lastScheduleTime")), last);
    CHECK(json_is_true(server_json_at(after, "spec.suspend")));
    json_decref(after);
    free(last);

    json_decref(server_request(&s, "DELETE", CRONJOBS "/tick", NULL, NULL, &code));
    CHECK_INT(code, 200);
    int left = -1;
    for (int waited = 0; waited < WAIT_MS && left != 0; waited += 100) {
        left = count_jobs(&s, "tick-", NULL);
        if (left)
            sleep_ms(100);
    }
    CHECK_INT(left, 0);
    json_decref(server_request(&s, "GET", CRONJOBS "/tick", NULL, NULL, &code));
    CHECK_INT(code, 404);
    free(cron_uid);
    server_stop(&s);
    server_cleanup(&s);
}

/* Forbid with a job that outlasts the interval: never two running at once, and the skipped runs
 * are told as JobAlreadyActive. */
static void forbid_keeps_one_job_at_a_time(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    REQUIRE(post(&s, cronjob("slow", "  schedule: \"@every 1s\"\n  concurrencyPolicy: Forbid\n", "[\"sleep\", \"2\"]"),
                 NULL) == 201);
    int most_active = 0, jobs = 0;
    bool skipped = false;
    for (int waited = 0; waited < WAIT_MS && (jobs < 2 || !skipped); waited += 200) {
        json_t *cj = server_request(&s, "GET", CRONJOBS "/slow", NULL, NULL, NULL);
        int active = (int)json_array_size(server_json_at(cj, "status.active"));
        json_decref(cj);
        if (active > most_active)
            most_active = active;
        int running = count_jobs(&s, "slow-", "Running") + count_jobs(&s, "slow-", "Pending");
        if (running > most_active)
            most_active = running;
        jobs = count_jobs(&s, "slow-", NULL);
        json_t *events = server_request(&s, "GET", "/api/v1/namespaces/default/events", NULL, NULL, NULL);
        size_t i;
        json_t *ev;
        json_array_foreach(json_object_get(events, "items"), i, ev)
        {
            const char *reason = json_string_value(json_object_get(ev, "reason"));
            skipped = skipped || (reason && strcmp(reason, "JobAlreadyActive") == 0);
        }
        json_decref(events);
        sleep_ms(200);
    }
    CHECK(jobs >= 2);
    CHECK(skipped);
    CHECK_INT(most_active, 1);
    server_stop(&s);
    server_cleanup(&s);
}

TEST_MAIN(TEST_CASE(refusals_name_the_field), TEST_CASE(runs_on_schedule_keeps_its_history_and_survives_a_restart),
          TEST_CASE(forbid_keeps_one_job_at_a_time))
