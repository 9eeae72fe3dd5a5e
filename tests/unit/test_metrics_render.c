/* GET /metrics' parts without a server: histogram buckets and label escaping, the core's rendering
 * over a hand-built cluster (pods by phase from the task counts, dormant jobs never woken, finished
 * jobs' times bounded to the last 1000 to finish) and the cluster's retired list. */
#include <stdlib.h>
#include <string.h>

#include "common/metrics.h"
#include "scheduler/core/internal.h"
#include "tests/lib/sched_fixture.h"
#include "tests/lib/test.h"

static void histogram_buckets_are_cumulative_and_include_their_bound(void)
{
    static struct metrics_histogram h;
    metrics_histogram_observe(&h, 100000);      /* exactly 0.0001 s: in the first bucket */
    metrics_histogram_observe(&h, 100001);      /* just above it */
    metrics_histogram_observe(&h, 20000000000); /* 20 s: above every bound */
    metrics_histogram_observe(&h, -5);          /* a clock step back counts as 0 */
    struct sbuf out = {0};
    metrics_histogram_samples(&out, "x_seconds", "m=\"GET\"", &h);
    const char *t = sbuf_str(&out);
    CHECK_CONTAINS(t, "x_seconds_bucket{m=\"GET\",le=\"0.0001\"} 2\n");
    CHECK_CONTAINS(t, "x_seconds_bucket{m=\"GET\",le=\"0.00025\"} 3\n");
    CHECK_CONTAINS(t, "x_seconds_bucket{m=\"GET\",le=\"10\"} 3\n");
    CHECK_CONTAINS(t, "x_seconds_bucket{m=\"GET\",le=\"+Inf\"} 4\n");
    CHECK_CONTAINS(t, "x_seconds_count{m=\"GET\"} 4\n");
    CHECK_CONTAINS(t, "x_seconds_sum{m=\"GET\"} 20.000200001\n");
    sbuf_free(&out);
}

static void label_values_are_escaped(void)
{
    struct sbuf out = {0};
    metrics_label_value(&out, "a\"b\\c\nd");
    CHECK_STR(sbuf_str(&out), "a\\\"b\\\\c\\nd");
    sbuf_free(&out);
}

/* Renders the core's part over the fixture's cluster (borrowed, not freed here). */
static char *render(struct sched_fixture *fx)
{
    struct core *c = calloc(1, sizeof *c);
    c->cluster = fx->c;
    metrics_histogram_observe(&c->cycle_seconds, 3000000);
    struct core_request req = {.op = CORE_METRICS};
    core_handle_metrics(c, &req);
    CHECK_INT(req.http_code, 200);
    json_decref(req.body);
    free(c);
    return req.text;
}

static int count_lines(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, prefix)); p++)
        n += p == text || p[-1] == '\n';
    return n;
}

static struct job *finished_job(struct sched_fixture *fx, const char *name, int64_t end_ms)
{
    struct job *job = fixture_job(fx, name, "default", 1, 1, 100);
    job_set_replica_phase(job, 0, POD_SUCCEEDED);
    job->status.phase = JOB_COMPLETED;
    job->status.running_since_ms = end_ms - 1000;
    job->status.transition_ms = end_ms;
    job->pg.phase = PG_COMPLETED;
    cluster_retire_job(&fx->c, job);
    return job;
}

static void core_renders_live_state_without_waking_dormant_jobs(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "allocate");
    fixture_node(&fx, "n1", 8000, 16 * GiB);
    fixture_queue(&fx, "research", 2);
    int wakes = 0;
    fixture_count_wakes(&fx, &wakes);

    struct job *running = fixture_job(&fx, "a", "research", 3, 1, 500);
    fixture_run(&fx, running, 0, 0, 1000);
    fixture_run(&fx, running, 1, 0, 1000);
    job_set_replica_phase(running, 2, POD_FAILED);
    running->status.running_since_ms = 1700000000123;
    struct job *waiting = fixture_job(&fx, "b", "default", 4, 4, 100);
    waiting->pg.phase = PG_PENDING; /* not enqueued: its replicas are no pods yet */

    struct job *dormant = finished_job(&fx, "sleeping", 1700000005000);
    dormant->dormant = true;
    struct job *gone = finished_job(&fx, "gone", 1700000006000);
    gone->deleted = true;
    char name[32];
    for (int i = 0; i < 1001; i++) {
        snprintf(name, sizeof name, "f%d", i);
        finished_job(&fx, name, 1700000010000 + i * 1000);
    }

    char *text = render(&fx);
    REQUIRE(text);
    CHECK_INT(wakes, 0);
    CHECK_CONTAINS(text, "caldera_queue_weight{queue=\"default\"} 1\n");
    CHECK_CONTAINS(text, "caldera_queue_weight{queue=\"research\"} 2\n");
    CHECK_CONTAINS(text, "caldera_queue_allocated{queue=\"research\",resource=\"cpu\",unit=\"core\"} 1\n");
    CHECK_CONTAINS(text, "caldera_queue_jobs{queue=\"research\",phase=\"Running\"} 1\n");
    CHECK_CONTAINS(text, "caldera_queue_jobs{queue=\"default\",phase=\"Pending\"} 1\n");
    CHECK(!strstr(text, "phase=\"Completed\"")); /* finished jobs are not counted by phase */
    CHECK_CONTAINS(text, "caldera_pods{queue=\"research\",namespace=\"default\",phase=\"Running\"} 2\n");
    CHECK_CONTAINS(text, "caldera_pods{queue=\"research\",namespace=\"default\",phase=\"Failed\"} 1\n");
    CHECK_CONTAINS(text, "caldera_pods{queue=\"default\",namespace=\"default\",phase=\"Pending\"} 0\n");
    CHECK_CONTAINS(text,
                   "caldera_job_start_timestamp_seconds{namespace=\"default\",name=\"a\",queue=\"research\"} "
                   "1700000000.123\n");
    /* the last 1000 to finish, newest included, oldest not; neither the dormant nor the deleted */
    CHECK_INT(count_lines(text, "caldera_job_finish_timestamp_seconds{"), 1000);
    CHECK_CONTAINS(text,
                   "caldera_job_finish_timestamp_seconds{namespace=\"default\",name=\"f1000\",queue=\"default\"} "
                   "1700001010.000\n");
    CHECK(!strstr(text, "name=\"f0\""));
    CHECK(!strstr(text, "name=\"sleeping\""));
    CHECK(!strstr(text, "name=\"gone\""));
    CHECK_CONTAINS(text, "caldera_scheduler_cycle_duration_seconds_count 1\n");
    CHECK_CONTAINS(text, "# TYPE caldera_scheduler_cycle_duration_seconds histogram\n");
    free(text);
    fixture_free(&fx);
}

static int walk_retired(const struct cluster *c)
{
    int n = 0;
    for (const struct job *j = c->retired_first; j; j = j->active_next)
        n++;
    int back = 0;
    for (const struct job *j = c->retired_last; j; j = j->active_prev)
        back++;
    return n == back ? n : -1;
}

static void retired_jobs_leave_the_list_when_removed(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "allocate");
    struct job *a = finished_job(&fx, "a", 1000), *b = finished_job(&fx, "b", 2000), *c = finished_job(&fx, "c", 3000);
    struct job *live = fixture_job(&fx, "live", "default", 1, 1, 100);
    CHECK_INT(fx.c.nretired, 3);
    CHECK_INT(walk_retired(&fx.c), 3);
    cluster_remove_job(&fx.c, b);
    job_free(b);
    CHECK_INT(fx.c.nretired, 2);
    CHECK_INT(walk_retired(&fx.c), 2);
    CHECK(fx.c.retired_first == a && fx.c.retired_last == c);
    cluster_remove_job(&fx.c, c);
    job_free(c);
    CHECK(fx.c.retired_last == a && a->active_next == NULL);
    cluster_remove_job(&fx.c, live); /* an active job leaves the active list, not the retired one */
    job_free(live);
    CHECK_INT(fx.c.nretired, 1);
    CHECK_INT(fx.c.nactive, 0);
    fixture_free(&fx);
}

TEST_MAIN(TEST_CASE(histogram_buckets_are_cumulative_and_include_their_bound), TEST_CASE(label_values_are_escaped),
          TEST_CASE(core_renders_live_state_without_waking_dormant_jobs),
          TEST_CASE(retired_jobs_leave_the_list_when_removed))
