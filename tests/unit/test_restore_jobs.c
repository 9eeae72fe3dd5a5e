/* Start-up's job rows (scheduler/controller/restore_jobs.c): awake rows parsed on the pool's helpers
 * in batches, sleeping rows kept as stubs, every job joined to the cluster in the rows' order. */
#include <stdio.h>
#include <string.h>

#include "tests/lib/ctl_fixture.h"
#include "tests/lib/test.h"

#define T0_MS 1763800000000LL

/* Row i: every seventh awake (a 2-task job, Pending or Running), the others sleeping (Completed or
 * Failed). Its texts live in buf until the next call, as the store's live until the next row. */
struct row_text {
    char uid[40], name[32], spec[1024];
};

static struct store_job_row make_row(int i, struct row_text *t)
{
    snprintf(t->uid, sizeof t->uid, "00000000-0000-4000-8000-%012d", i);
    snprintf(t->name, sizeof t->name, "job-%05d", i);
    bool awake = i % 7 == 3;
    struct store_job_row row = {.uid = t->uid,
                                .ns = "default",
                                .name = t->name,
                                .created_ms = T0_MS + i,
                                .resource_version = (uint64_t)i + 10,
                                .queue = "default",
                                .asleep = !awake};
    if (!awake) {
        row.phase = i % 2 ? "Completed" : "Failed";
        return row;
    }
    snprintf(t->spec, sizeof t->spec,
             "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"%s\","
             "\"namespace\":\"default\",\"uid\":\"%s\"},\"spec\":{\"minAvailable\":3,\"queue\":\"default\","
             "\"tasks\":[{\"name\":\"master\",\"replicas\":1,\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\","
             "\"command\":[\"true\"],\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}},{\"name\":\"worker\","
             "\"replicas\":2,\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"command\":[\"true\"]}]}}}]}}",
             t->name, t->uid);
    row.spec_json = t->spec;
    row.status_json = i % 2 ? "{\"state\":{\"phase\":\"Running\"}}" : "{\"state\":{\"phase\":\"Pending\"}}";
    row.phase = i % 2 ? "Running" : "Pending";
    row.source_json = "";
    return row;
}

/* Enough rows for several batches: each joins the cluster in the rows' order, awake jobs parsed
 * whole (their tasks and status), sleeping ones as stubs with their head only. */
static void rows_join_in_order_across_batches(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    enum { NROWS = 6000 };
    struct row_text t;
    for (int i = 0; i < NROWS; i++) {
        struct store_job_row row = make_row(i, &t);
        REQUIRE(controller_restore_job(&fx.ctl, &row) == 0);
    }
    CHECK_INT(controller_restore_jobs_done(&fx.ctl, true), 0);
    CHECK(fx.ctl.restoring == NULL);
    CHECK_INT(fx.cluster.njobs, NROWS);
    int i = 0, misplaced = 0, wrong = 0;
    for (const struct job *job = fx.cluster.first; job; job = job->next, i++) {
        char name[32], key[48];
        snprintf(name, sizeof name, "job-%05d", i);
        snprintf(key, sizeof key, "default/%s", name);
        misplaced += strcmp(job->name, name) != 0 || job->created_ms != T0_MS + i;
        wrong += strcmp(job->key, key) != 0 || job->resource_version != (uint64_t)i + 10;
        if (i % 7 == 3) /* awake */
            wrong += job->dormant || job->ntasks != 2 || job->total_replicas != 3 ||
                     job->status.phase != (i % 2 ? JOB_RUNNING : JOB_PENDING);
        else
            wrong += !job->dormant || job->status.phase != (i % 2 ? JOB_COMPLETED : JOB_FAILED) ||
                     strcmp(job->queue, "default") != 0;
    }
    CHECK_INT(i, NROWS);
    CHECK_INT(misplaced, 0);
    CHECK_INT(wrong, 0);
    CHECK(cluster_find_job(&fx.cluster, "default", "job-05995") != NULL); /* awake: indexed by name */
    ctlfx_free(&fx);
}

/* A stored spec that no longer parses fails the load (logged): a later row's call, or the end of
 * the stream, says so; the row never joins, and what was read is freed (the sanitizer sees no leak). */
static void a_bad_row_fails_the_load(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    struct row_text t;
    int rc = 0;
    for (int i = 0; i < 4000 && rc == 0; i++) {
        struct store_job_row row = make_row(i, &t);
        if (i == 1000) {
            row.asleep = false;
            row.spec_json = "not json";
            row.status_json = "{}";
        }
        rc = controller_restore_job(&fx.ctl, &row);
    }
    int done = controller_restore_jobs_done(&fx.ctl, rc == 0);
    CHECK(rc == -1 || done == -1);
    CHECK(fx.ctl.restoring == NULL);
    CHECK(cluster_find_job(&fx.cluster, "default", "job-01000") == NULL);
    ctlfx_free(&fx);
}

/* The stream stopped early (a read error): nothing read joins, and all of it is freed. */
static void an_incomplete_stream_joins_nothing(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    struct row_text t;
    for (int i = 0; i < 3000; i++) {
        struct store_job_row row = make_row(i, &t);
        REQUIRE(controller_restore_job(&fx.ctl, &row) == 0);
    }
    int joined = fx.cluster.njobs; /* earlier batches may have joined already */
    CHECK_INT(controller_restore_jobs_done(&fx.ctl, false), 0);
    CHECK_INT(fx.cluster.njobs, joined);
    CHECK(joined < 3000);
    ctlfx_free(&fx);
}

TEST_MAIN(TEST_CASE(rows_join_in_order_across_batches), TEST_CASE(a_bad_row_fails_the_load),
          TEST_CASE(an_incomplete_stream_joins_nothing))
