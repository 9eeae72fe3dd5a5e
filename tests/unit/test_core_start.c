/* The start in two steps: which GETs the core answers before the start is over (from the stored
 * status, only for jobs the recovery leaves as they were), the sleeping jobs joining the awake ones in
 * creation order (cluster_add_job_after), a job's pods listed without waking the sleeping jobs, and
 * a real restart of the core on its store (under TSan too). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapters/intake/intake.h"
#include "adapters/objects/node.h"
#include "adapters/dialects/volcano/job.h"
#include "common/clock.h"
#include "common/fs.h"
#include "common/log.h"
#include "runtime/host.h"
#include "scheduler/core/core.h"
#include "scheduler/core/internal.h"
#include "store/store.h"
#include "tests/lib/sched_fixture.h"
#include "tests/lib/test.h"

static const char stored[] =
    "{\"state\":{\"phase\":\"Pending\",\"reason\":\"Unschedulable\",\"message\":\"4/4 tasks in "
    "gang unschedulable\"},\"minAvailable\":4,\"pending\":4,\"running\":0,\"succeeded\":0,"
    "\"failed\":0,\"terminating\":0,\"unknown\":0,\"version\":0,\"retryCount\":0,"
    "\"taskStatusCount\":{\"worker\":{\"phase\":{\"Pending\":4}}}}";

/* A GET of default/name through core_answer_early: whether it answered; the answer in *body (or NULL). */
static bool get_early(struct core *c, const char *name, bool as_manifest, json_t **body, uint64_t *seq)
{
    struct core_request req = {.op = CORE_JOB_GET, .ns = "default", .name = name, .as_manifest = as_manifest};
    bool answered = core_answer_early(c, &req);
    CHECK_INT(req.http_code, answered ? 200 : 0);
    *body = req.body;
    *seq = req.durable_seq;
    return answered;
}

static void a_get_before_the_start_is_over_shows_the_stored_status(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "allocate");
    fixture_node(&fx, "n1", 8000, 16 * GiB);
    struct job *waiting = fixture_job(&fx, "waiting", "default", 4, 4, 100000); /* no pod counted yet */
    waiting->stored_status = strdup(stored);
    waiting->resource_version = 41;
    struct job *running = fixture_job(&fx, "running", "default", 2, 1, 100);
    fixture_run(&fx, running, 0, 0, 1000); /* an attempt recovery asks after */
    running->stored_status = strdup(stored);
    struct job *unstored = fixture_job(&fx, "unstored", "default", 1, 1, 100); /* woken or made: no text */
    struct job *asleep = fixture_job(&fx, "asleep", "default", 1, 1, 100);
    asleep->stored_status = strdup(stored);
    asleep->dormant = true;
    (void)unstored;

    struct core *c = calloc(1, sizeof *c);
    c->cluster = fx.c;
    json_t *body = NULL;
    uint64_t seq = 0;
    REQUIRE(get_early(c, "waiting", false, &body, &seq));
    json_t *want = json_loads(stored, 0, NULL);
    CHECK(json_equal(json_object_get(body, "status"), want)); /* not the zero counts the job holds now */
    CHECK_STR(json_string_value(json_object_get(json_object_get(body, "metadata"), "name")), "waiting");
    CHECK_INT((int)seq, 41); /* committed already: nobody waits for the writer */
    CHECK_INT(waiting->status.pending, 0);
    json_decref(want);
    json_decref(body);

    CHECK(!get_early(c, "running", false, &body, &seq)); /* waits for the recovery */
    CHECK(!get_early(c, "unstored", false, &body, &seq));
    CHECK(!get_early(c, "asleep", false, &body, &seq)); /* never woken before the start is over */
    CHECK(!get_early(c, "nobody", false, &body, &seq)); /* maybe a sleeping job not read yet */
    CHECK(!get_early(c, "waiting", true, &body, &seq)); /* an engine's manifest: after the start */
    struct core_request list = {.op = CORE_JOB_LIST, .ns = "default"};
    CHECK(!core_answer_early(c, &list));
    free(c);
    fixture_free(&fx);
}

/* A job of the cluster's kind, created at created_ms with the given uid, not added yet. */
static struct job *bare_job(const char *name, int64_t created_ms, const char *uid)
{
    struct job *job = job_new(1);
    job->ns = strdup("default");
    job->name = strdup(name);
    job->key = malloc(strlen(name) + 9);
    sprintf(job->key, "default/%s", name);
    snprintf(job->uid, sizeof job->uid, "%s", uid);
    job->created_ms = created_ms;
    return job;
}

static void sleeping_jobs_join_the_awake_ones_in_creation_order(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "allocate");
    struct job *cursor = NULL;
    const struct {
        const char *name;
        int64_t ms;
        const char *uid;
    } awake[] = {{"b", 20, "u-b"}, {"e", 50, "u-e"}, {"h", 90, "u-h"}},
      asleep[] = {{"a", 10, "u-a"},
                  {"c", 20, "u-c"}, /* after b's uid */
                  {"d", 30, "u-d"},
                  {"f", 60, "u-f"},
                  {"i", 95, "u-i"}};
    for (size_t i = 0; i < sizeof awake / sizeof awake[0]; i++)
        CHECK_INT(cluster_add_job_after(&fx.c, bare_job(awake[i].name, awake[i].ms, awake[i].uid), &cursor), 0);
    cursor = NULL; /* the second part starts from the first job again */
    for (size_t i = 0; i < sizeof asleep / sizeof asleep[0]; i++)
        CHECK_INT(cluster_add_job_after(&fx.c, bare_job(asleep[i].name, asleep[i].ms, asleep[i].uid), &cursor), 0);
    char order[16] = "", back[16] = "";
    for (const struct job *j = fx.c.first; j; j = j->next)
        strcat(order, j->name);
    for (const struct job *j = fx.c.last; j; j = j->prev)
        strcat(back, j->name);
    CHECK_STR(order, "abcdefhi");
    CHECK_STR(back, "ihfedcba");
    CHECK_INT(fx.c.njobs, 8);
    CHECK(cluster_find_job_uid(&fx.c, "u-f") && strcmp(cluster_find_job_uid(&fx.c, "u-f")->name, "f") == 0);
    fixture_free(&fx);
}

/* A restart's `jobctl get JOB` asks for the job's pods by label: the sleeping jobs stay asleep. */
static void a_pod_list_by_job_label_wakes_no_other_job(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "allocate");
    fixture_node(&fx, "n1", 8000, 16 * GiB);
    int wakes = 0;
    fixture_count_wakes(&fx, &wakes);
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "old-%d", i);
        fixture_job(&fx, name, "default", 1, 1, 100)->dormant = true;
    }
    struct job *live = fixture_job(&fx, "live", "default", 2, 1, 100);
    fixture_run(&fx, live, 0, 0, 1000);
    struct core *c = calloc(1, sizeof *c);
    c->cluster = fx.c;
    struct core_request req = {.op = CORE_POD_LIST, .ns = "default", .nselectors = 1};
    req.selector_key[0] = "volcano.sh/job-name";
    req.selector_value[0] = "live";
    core_handle_request(c, &req);
    CHECK_INT(req.http_code, 200);
    CHECK_INT(wakes, 0);
    json_t *items = json_object_get(req.body, "items");
    CHECK_INT((int)json_array_size(items), 2); /* its running pod and its pending one */
    CHECK_STR(json_string_value(json_object_get(json_object_get(json_array_get(items, 0), "metadata"), "name")),
              "live-worker-0");
    json_decref(req.body);
    struct core_request queue = {.op = CORE_POD_LIST, .ns = "default", .nselectors = 1}; /* every job's queue */
    queue.selector_key[0] = "volcano.sh/queue-name";
    queue.selector_value[0] = "default";
    core_handle_request(c, &queue);
    CHECK_INT(wakes, 3); /* the stubs hold the queue, not the pods: each asked to wake (and refused here) */
    json_decref(queue.body);
    free(c);
    fixture_free(&fx);
}

/* --- a real restart ------------------------------------------------------------------------------ */

static const char one_node[] =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
    "status: {allocatable: {cpu: '4', memory: 8Gi}}\n";

/* The core as the jobserver starts it on dir's database (store_open_checking when `checking`). */
static struct core *start(const char *dir, struct store **store, bool checking)
{
    char path[512], err[512] = "";
    snprintf(path, sizeof path, "%s/caldera.db", dir);
    if ((checking ? store_open_checking(path, store, err, sizeof err) : store_open(path, store, err, sizeof err)) !=
        0) {
        fprintf(stderr, "# %s\n", err);
        return NULL;
    }
    struct core_config cfg = {.data_dir = dir, .period_ms = 100, .store = *store};
    struct api_status st = {0};
    struct machine m = {0};
    host_identify(&m);
    struct core *core = NULL;
    if (nodes_from_yaml(one_node, strlen(one_node), m.arch, clock_wall_ms(), &cfg.nodes, &cfg.nnodes, &st) != 0)
        return NULL;
    sched_conf_default(&cfg.conf);
    if (core_start(&cfg, &core, err, sizeof err) != 0)
        fprintf(stderr, "# %s\n", err);
    return core;
}

static void stop(struct core *core, struct store *store)
{
    core_stop(core);
    store_close(store);
    core_free(core);
}

static int submit(struct core *core, struct store *store, const char *name, const char *cpu, const char *command)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: %s}\nspec:\n  tasks:\n"
             "  - name: main\n    replicas: 1\n    template:\n      spec:\n        containers:\n"
             "        - name: c\n          command: [sh, -c, '%s']\n"
             "          resources: {requests: {cpu: '%s', memory: 1Gi}}\n",
             name, command, cpu);
    struct api_status st = {0};
    struct intake in;
    struct job *job = NULL;
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st) != 0)
        return -1;
    int rc = volcano_job_from_doc(&in.docs[0], "default", &job, &st);
    intake_free(&in);
    if (rc != 0)
        return -1;
    struct core_request req = {.op = CORE_JOB_CREATE, .ns = "default", .name = name, .job = job};
    rc = core_call(core, &req);
    job_free(req.job);
    if (rc == 0)
        rc = store_wait(store, req.durable_seq, 10000);
    json_decref(req.body);
    return rc;
}

/* The job's status.state field (a new string), or NULL; body_out keeps the whole answer when not NULL. */
static char *get_state(struct core *core, const char *name, const char *field, json_t **body_out)
{
    struct core_request req = {.op = CORE_JOB_GET, .ns = "default", .name = name};
    char *value = NULL;
    if (core_call(core, &req) == 0) {
        const char *v = json_string_value(
            json_object_get(json_object_get(json_object_get(req.body, "status"), "state"), field));
        value = v ? strdup(v) : NULL;
    }
    if (body_out)
        *body_out = json_incref(req.body);
    json_decref(req.body);
    return value;
}

static bool wait_state(struct core *core, const char *name, const char *field, const char *want)
{
    for (int tries = 0; tries < 300; tries++) { /* 30 s at most */
        char *v = get_state(core, name, field, NULL);
        bool ok = v && strcmp(v, want) == 0;
        free(v);
        if (ok)
            return true;
        usleep(100 * 1000);
    }
    return false;
}

static void a_restart_answers_then_finishes_its_start(void)
{
    log_set_level(LOG_WARN);
    char dir[] = "/tmp/caldera-core-start-XXXXXX";
    REQUIRE(mkdtemp(dir));
    struct store *store = NULL;
    struct core *core = start(dir, &store, false);
    REQUIRE(core);
    CHECK_INT(core_wait_ready(core, (char[64]){0}, 64), 0);
    CHECK_INT(submit(core, store, "done", "1", "true"), 0);
    CHECK_INT(submit(core, store, "waiting", "64", "true"), 0); /* more than the node has: a gang that waits */
    CHECK(wait_state(core, "done", "phase", "Completed"));
    CHECK(wait_state(core, "waiting", "reason", "Unschedulable"));
    json_t *before = NULL;
    free(get_state(core, "waiting", "phase", &before));
    stop(core, store);

    core = start(dir, &store, true); /* the jobserver's way: the awake jobs first, the checks after */
    REQUIRE(core);
    json_t *early = NULL;
    char *phase = get_state(core, "waiting", "phase", &early); /* early or not, the same answer */
    CHECK_STR(phase ? phase : "", "Pending");
    free(phase);
    CHECK(json_equal(json_object_get(early, "status"), json_object_get(before, "status")));
    char err[512] = "";
    CHECK_INT(core_wait_ready(core, err, sizeof err), 0);
    CHECK_INT(core_wait_ready(core, err, sizeof err), 0); /* as often as asked */
    json_t *after = NULL;
    free(get_state(core, "waiting", "phase", &after));
    CHECK(json_equal(json_object_get(after, "status"), json_object_get(before, "status")));
    phase = get_state(core, "done", "phase", NULL); /* slept through the start: read when asked */
    CHECK_STR(phase ? phase : "", "Completed");
    free(phase);
    struct core_request list = {.op = CORE_JOB_LIST, .ns = "default"};
    REQUIRE(core_call(core, &list) == 0);
    json_t *items = json_object_get(list.body, "items");
    CHECK_INT((int)json_array_size(items), 2);
    CHECK_STR(json_string_value(json_object_get(json_object_get(json_array_get(items, 0), "metadata"), "name")),
              "done");
    json_decref(list.body);
    json_decref(before);
    json_decref(early);
    json_decref(after);
    stop(core, store);
    remove_tree(dir);
}

TEST_MAIN(TEST_CASE(a_get_before_the_start_is_over_shows_the_stored_status),
          TEST_CASE(sleeping_jobs_join_the_awake_ones_in_creation_order),
          TEST_CASE(a_pod_list_by_job_label_wakes_no_other_job), TEST_CASE(a_restart_answers_then_finishes_its_start))
