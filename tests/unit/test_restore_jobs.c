/* Start-up's job rows (scheduler/controller/restore_jobs.c): awake rows parsed on the pool's helpers
 * in batches, sleeping rows kept as stubs, every job joined in the rows' order, conditions kept. */
#include <malloc.h>
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
size_t __sanitizer_get_current_allocated_bytes(void); /* libasan's; GCC ships no header for it */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "scheduler/controller/internal.h"
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

/* One scheduling cycle, as ctlfx_cycle runs it, its journal kept for the test to read. */
static void cycle_keeping_journal(struct ctl_fixture *fx)
{
    struct cycle_stats stats = {0};
    schedule_cycle(&fx->ctl, &fx->conf, fx->zones, &stats);
}

/* Entries of the controller's journal about `name` with this reason. */
static int entries_about(const struct controller *ctl, const char *name, const char *reason)
{
    int n = 0;
    for (const struct journal_entry *e = ctl->journal.head; e; e = e->next)
        n += strcmp(e->ev.name, name) == 0 && strcmp(e->ev.reason, reason) == 0;
    return n;
}

/* The row the store holds for a Pending job of this run, its spec and status as given. */
static struct store_job_row pending_row(const struct job *job, const char *spec, const char *status)
{
    return (struct store_job_row){.uid = job->uid,
                                  .ns = job->ns,
                                  .name = job->name,
                                  .created_ms = job->created_ms,
                                  .resource_version = job->resource_version,
                                  .spec_json = spec,
                                  .status_json = status,
                                  .phase = "Pending",
                                  .queue = "default",
                                  .source_json = ""};
}

/* A gang the last run found unschedulable is still unschedulable after a restart, for the same
 * reason: its PodGroup condition comes back with the job's status, so the first cycle records no
 * Unschedulable event or Job status again; its condition keeps the time the reason was first given. */
static void unschedulable_survives_a_restart(void)
{
    static const char yaml[] =
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: big\nspec:\n"
        "  minAvailable: 2\n  tasks:\n  - name: w\n    replicas: 2\n    template:\n"
        "      spec:\n        containers:\n        - name: c\n          command: [\"true\"]\n"
        "          resources: {requests: {cpu: '64'}}\n";
    struct ctl_fixture before;
    ctlfx_init(&before, 1);
    struct job *job = ctlfx_submit(&before, yaml);
    REQUIRE(job);
    cycle_keeping_journal(&before);
    CHECK_INT(entries_about(&before.ctl, "big", "Unschedulable"), 2); /* the PodGroup's event, the Job's status */
    REQUIRE(job->status.reason && strcmp(job->status.reason, "Unschedulable") == 0);
    char *spec = json_dumps(job_manifest(job), JSON_COMPACT);
    json_t *status = volcano_job_render_status(job);
    char *status_text = json_dumps(status, JSON_COMPACT);
    json_decref(status);
    struct store_job_row row = pending_row(job, spec, status_text);

    struct ctl_fixture after;
    ctlfx_init(&after, 1);
    after.ctl.now_ms = before.ctl.now_ms + 60000;
    REQUIRE(controller_restore_job(&after.ctl, &row) == 0);
    REQUIRE(controller_restore_jobs_done(&after.ctl, true) == 0);
    REQUIRE(controller_finish_recovery(&after.ctl) == 0);
    const struct job *back = cluster_find_job(&after.cluster, "default", "big");
    REQUIRE(back);
    CHECK_STR(back->pg.unschedulable ? back->pg.unschedulable : "(none)", job->pg.unschedulable);
    CHECK_INT(back->pg.unschedulable_ms / 1000, job->pg.unschedulable_ms / 1000); /* stored in seconds */
    ctlfx_drain(&after);
    cycle_keeping_journal(&after);
    CHECK_INT(entries_about(&after.ctl, "big", "Unschedulable"), 0);
    free(spec);
    free(status_text);
    ctlfx_free(&after);
    ctlfx_free(&before);
}

/* Bytes allocated and not freed: the sanitizer's count where it owns malloc, else glibc's. */
static size_t heap_in_use(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return __sanitizer_get_current_allocated_bytes();
#else
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
#endif
}

/* An awake job restored at start-up keeps its manifest as the stored text: its annotations (what the
 * plugins read every cycle) are there without parsing it, the first read parses it into exactly the
 * tree and templates an eager restore holds, and until then the job holds well under half the
 * memory. A text that no longer reads gives no manifest and keeps the text. */
static void a_restored_manifest_is_read_when_first_asked(void)
{
    static const char yaml[] =
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: kept\n  labels: {team: vision}\n"
        "  annotations: {sla-waiting-time: 10m}\nspec:\n  minAvailable: 1\n  tasks:\n  - name: m\n    replicas: 1\n"
        "    template:\n      metadata: {labels: {role: m}}\n      spec:\n        containers:\n        - name: c\n"
        "          command: [\"true\"]\n          resources: {requests: {cpu: '64'}}\n"
        "  - name: w\n    replicas: 2\n    template:\n      spec:\n        containers:\n        - name: c\n"
        "          command: [sleep, '1']\n";
    job_set_manifest_reader(controller_read_kept_manifest); /* as controller_enable_waking does */
    struct ctl_fixture before;
    ctlfx_init(&before, 1);
    struct job *job = ctlfx_submit(&before, yaml);
    REQUIRE(job);
    char *spec = json_dumps(job_manifest(job), JSON_COMPACT);
    struct store_job_row row = pending_row(job, spec, "{\"state\":{\"phase\":\"Pending\"}}");
    struct ctl_fixture after;
    ctlfx_init(&after, 1);
    REQUIRE(controller_restore_job(&after.ctl, &row) == 0);
    REQUIRE(controller_restore_jobs_done(&after.ctl, true) == 0);
    struct job *back = cluster_find_job(&after.cluster, "default", "kept");
    REQUIRE(back);
    CHECK(back->manifest_tree == NULL);
    CHECK(back->manifest_text != NULL);
    CHECK(back->tasks[0].template_tree == NULL && back->tasks[1].template_tree == NULL);
    const char *sla = json_string_value(json_object_get(job_annotations(back), "sla-waiting-time"));
    CHECK_STR(sla, "10m");
    CHECK(back->manifest_tree == NULL); /* the annotations were read without the manifest */

    struct job *eager = restore_parse_job(job->uid, "default", "kept", job->created_ms, job->resource_version, spec,
                                          row.status_json, "");
    REQUIRE(eager);
    CHECK(json_equal(job_task_template(back, 1), eager->tasks[1].template_tree));
    CHECK(back->manifest_text == NULL); /* parsed once, kept as a tree from here on */
    CHECK_STR(sla, "10m");              /* what was read of the kept annotations is still there */
    CHECK(json_equal(job_manifest(back), eager->manifest_tree));
    CHECK(json_equal(job_task_template(back, 0), eager->tasks[0].template_tree));
    const json_t *tasks = json_object_get(json_object_get(job_manifest(back), "spec"), "tasks");
    CHECK(job_task_template(back, 0) == json_object_get(json_array_get(tasks, 0), "template")); /* its subtree */
    CHECK_STR(json_string_value(json_object_get(job_annotations(back), "sla-waiting-time")), "10m");

    size_t whole = heap_in_use();
    char *text = strdup(spec);
    REQUIRE(text);
    REQUIRE(job_keep_manifest_as_text(eager, text) == 0);
    size_t saved = whole - heap_in_use();
    struct job *other = restore_parse_job(job->uid, "default", "kept", job->created_ms, job->resource_version, spec,
                                          row.status_json, "");
    REQUIRE(other);
    job_free(other);
    size_t held = heap_in_use(); /* the eager job's whole size, measured as a second one comes and goes */
    struct job *third = restore_parse_job(job->uid, "default", "kept", job->created_ms, job->resource_version, spec,
                                          row.status_json, "");
    REQUIRE(third);
    size_t eager_size = heap_in_use() - held;
    printf("# a 3-pod job restored: %zu bytes held with its parsed manifest, %zu fewer kept as text\n", eager_size,
           saved);
    CHECK(saved * 2 > eager_size);
    job_free(third);

    char *broken = strdup("{\"kind\":");
    REQUIRE(broken);
    struct job *unreadable = restore_parse_job(job->uid, "default", "kept", job->created_ms, job->resource_version,
                                               spec, row.status_json, "");
    REQUIRE(unreadable);
    REQUIRE(job_keep_manifest_as_text(unreadable, broken) == 0);
    CHECK(job_manifest(unreadable) == NULL);
    CHECK(job_task_template(unreadable, 0) == NULL);
    CHECK(unreadable->manifest_text != NULL);
    job_free(unreadable);
    job_free(eager);
    free(spec);
    ctlfx_free(&after);
    ctlfx_free(&before);
}

TEST_MAIN(TEST_CASE(rows_join_in_order_across_batches), TEST_CASE(a_bad_row_fails_the_load),
          TEST_CASE(an_incomplete_stream_joins_nothing), TEST_CASE(unschedulable_survives_a_restart),
          TEST_CASE(a_restored_manifest_is_read_when_first_asked))
