/* The controller's side of Queues, PriorityClasses and ResourceQuotas over a hand-built cluster:
 * live checks, Volcano's Open -> Closing -> Closed, priority admission, and the journal entry each
 * change leaves (its event, its row, its sequence number as the object's resourceVersion). */
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/priority_class.h"
#include "adapters/objects/queue.h"
#include "scheduler/controller/objects.h"
#include "tests/lib/sched_fixture.h"
#include "tests/lib/test.h"

static struct controller controller_of(struct sched_fixture *fx)
{
    return (struct controller){.cluster = &fx->c, .now_ms = fx->now_ms};
}

static struct queue *new_queue(const char *name, const char *parent)
{
    struct queue *q = calloc(1, sizeof *q);
    q->name = strdup(name);
    q->parent = parent ? strdup(parent) : NULL;
    q->weight = 1;
    q->manifest = json_pack("{s:{s:s}, s:{s:i}}", "metadata", "name", name, "spec", "weight", 1);
    return q;
}

static struct priority_class *new_class(const char *name, int32_t value, bool global_default)
{
    struct priority_class *pc = calloc(1, sizeof *pc);
    pc->name = strdup(name);
    pc->value = value;
    pc->global_default = global_default;
    pc->manifest = json_pack("{s:{s:s}, s:i, s:b}", "metadata", "name", name, "value", value, "globalDefault",
                             global_default);
    return pc;
}

static const struct journal_entry *last_entry(const struct controller *ctl) { return ctl->journal.tail; }

static void queue_create_checks_and_records(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "allocate");
    struct controller ctl = controller_of(&fx);
    struct api_status st = {0};
    struct queue *q = new_queue("research", NULL);
    CHECK(controller_create_queue(&ctl, q, &st) == q);
    CHECK_INT(q->resource_version, fx.c.seq);
    CHECK(q->uid[0] != '\0');
    const struct journal_entry *e = last_entry(&ctl);
    REQUIRE(e);
    CHECK_INT(e->op, JOURNAL_QUEUE_PUT);
    CHECK_STR(e->ev.kind, "Queue");
    CHECK_STR(e->ev.to_phase, "Open");
    CHECK_STR(e->ev.reason, "Created");
    CHECK_INT(e->ev.seq, q->resource_version);
    CHECK_CONTAINS(e->queue_json, "\"state\":\"Open\"");

    struct queue *dup = new_queue("research", NULL);
    CHECK(controller_create_queue(&ctl, dup, &st) == NULL);
    CHECK_INT(st.code, 409);
    queue_free(dup);
    memset(&st, 0, sizeof st);
    struct queue *orphan = new_queue("orphan", "nowhere");
    CHECK(controller_create_queue(&ctl, orphan, &st) == NULL);
    CHECK_INT(st.code, 422);
    CHECK_STR(st.causes[0].field, "spec.parent");
    queue_free(orphan);

    /* A cycle through an update: research below child, child below research. */
    memset(&st, 0, sizeof st);
    CHECK(controller_create_queue(&ctl, new_queue("child", "research"), &st) != NULL);
    struct queue *loop = new_queue("research", "child");
    CHECK(controller_update_queue(&ctl, loop, &st) == NULL);
    CHECK_CONTAINS(st.causes[0].message, "its own ancestor");
    queue_free(loop);
    journal_list_free(&ctl.journal);
    fixture_free(&fx);
}

static void queue_close_waits_for_podgroups(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "allocate");
    struct controller ctl = controller_of(&fx);
    struct api_status st = {0};
    REQUIRE(controller_create_queue(&ctl, new_queue("batch", NULL), &st));
    struct job *job = fixture_job(&fx, "j", "batch", 1, 1, 1000); /* PodGroup Inqueue */

    CHECK(controller_delete_queue(&ctl, "batch", &(uint64_t){0}, &st) == -1);
    CHECK_INT(st.code, 409);
    CHECK_CONTAINS(st.message, "close it first");
    struct queue *q = controller_close_queue(&ctl, "batch", &st);
    REQUIRE(q);
    CHECK_INT(q->state, QUEUE_CLOSING);
    CHECK_STR(last_entry(&ctl)->ev.to_phase, "Closing");
    uint64_t rv = q->resource_version;
    controller_sync_queues(&ctl);
    CHECK_INT(q->state, QUEUE_CLOSING);
    CHECK_INT(q->resource_version, rv); /* nothing changed, nothing recorded */
    CHECK(controller_close_queue(&ctl, "batch", &st) == q);
    CHECK_INT(q->resource_version, rv);

    job->pg.phase = PG_COMPLETED;
    controller_sync_queues(&ctl);
    CHECK_INT(q->state, QUEUE_CLOSED);
    CHECK_STR(last_entry(&ctl)->ev.from_phase, "Closing");
    CHECK_STR(last_entry(&ctl)->ev.to_phase, "Closed");
    CHECK_CONTAINS(last_entry(&ctl)->queue_json, "\"state\":\"Closed\"");

    uint64_t seq = 0;
    int before = fx.c.nqueues;
    CHECK_INT(controller_delete_queue(&ctl, "batch", &seq, &st), 0);
    CHECK_INT(fx.c.nqueues, before - 1);
    CHECK_INT(seq, fx.c.seq);
    CHECK_INT(last_entry(&ctl)->op, JOURNAL_QUEUE_DELETE);
    CHECK_STR(last_entry(&ctl)->queue_name, "batch");
    CHECK(cluster_find_queue(&fx.c, "batch") == NULL);

    memset(&st, 0, sizeof st);
    CHECK(controller_close_queue(&ctl, "default", &st) != NULL); /* nothing runs there: Closed at once */
    CHECK_INT(cluster_find_queue(&fx.c, "default")->state, QUEUE_CLOSED);
    CHECK(controller_delete_queue(&ctl, "default", &seq, &st) == -1);
    CHECK_INT(st.code, 403);
    journal_list_free(&ctl.journal);
    fixture_free(&fx);
}

static void priority_admission(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "allocate");
    struct controller ctl = controller_of(&fx);
    struct job *job = fixture_job(&fx, "j", "default", 1, 1, 1000);
    REQUIRE(controller_finish_objects(&ctl) == 0);
    CHECK_INT(fx.c.npriority_classes, 2);
    CHECK(fx.c.priority_classes[0]->builtin && fx.c.priority_classes[1]->builtin);
    CHECK_INT(last_entry(&ctl)->op, JOURNAL_OBJECT_PUT);
    CHECK_STR(last_entry(&ctl)->object_kind, "PriorityClass");
    CHECK_STR(last_entry(&ctl)->object_ns, "");

    struct api_status st = {0};
    CHECK_INT(controller_admit_priority(&ctl, job, &st), 0);
    CHECK_INT(job->priority, 0); /* no class, no default */
    struct priority_class *high = new_class("high", 1000, true);
    CHECK(controller_create_priority_class(&ctl, high, &st) == high);
    CHECK_INT(fx.c.priority_classes[2]->value, 1000); /* built-ins stay first */
    CHECK_INT(controller_admit_priority(&ctl, job, &st), 0);
    CHECK_INT(job->priority, 1000);
    job->priority_class = strdup("system-node-critical");
    CHECK_INT(controller_admit_priority(&ctl, job, &st), 0);
    CHECK_INT(job->priority, 2000001000);
    free(job->priority_class);
    job->priority_class = strdup("nope");
    CHECK_INT(controller_admit_priority(&ctl, job, &st), -1);
    CHECK_INT(st.code, 422);
    CHECK_STR(st.causes[0].field, "spec.priorityClassName");

    /* A task's own class gives its pods' priority; without one they have the Job's. */
    free(job->priority_class);
    job->priority_class = NULL;
    job->tasks[0].priority_class = strdup("system-node-critical");
    memset(&st, 0, sizeof st);
    CHECK_INT(controller_admit_priority(&ctl, job, &st), 0);
    CHECK_INT(job->priority, 1000); /* the globalDefault */
    CHECK_INT(job->tasks[0].priority, 2000001000);
    free(job->tasks[0].priority_class);
    job->tasks[0].priority_class = strdup("missing");
    CHECK_INT(controller_admit_priority(&ctl, job, &st), -1);
    CHECK_INT(st.code, 422);
    CHECK_STR(st.causes[0].field, "spec.tasks[0].template.spec.priorityClassName");
    CHECK_CONTAINS(st.causes[0].message, "\"missing\"");
    free(job->tasks[0].priority_class);
    job->tasks[0].priority_class = NULL;
    CHECK_INT(controller_admit_priority(&ctl, job, &(struct api_status){0}), 0);
    CHECK_INT(job->tasks[0].priority, 1000);

    memset(&st, 0, sizeof st);
    struct priority_class *second = new_class("second", 5, true);
    CHECK(controller_create_priority_class(&ctl, second, &st) == NULL);
    CHECK_STR(st.causes[0].field, "globalDefault");
    priority_class_free(second);
    memset(&st, 0, sizeof st);
    struct priority_class *changed = new_class("high", 7, true);
    CHECK(controller_update_priority_class(&ctl, changed, &st) == NULL);
    CHECK_CONTAINS(st.causes[0].message, "field is immutable");
    priority_class_free(changed);
    memset(&st, 0, sizeof st);
    uint64_t seq;
    CHECK_INT(controller_delete_priority_class(&ctl, "system-node-critical", &seq, &st), -1);
    CHECK_INT(st.code, 403);
    CHECK_INT(controller_delete_priority_class(&ctl, "high", &seq, &st), 0);
    CHECK_INT(last_entry(&ctl)->op, JOURNAL_OBJECT_DELETE);
    CHECK(last_entry(&ctl)->object_json == NULL);

    /* Seeding again (a restart that restored the built-ins) creates nothing. */
    uint64_t before = fx.c.seq;
    REQUIRE(controller_finish_objects(&ctl) == 0);
    CHECK_INT(fx.c.seq, before);
    CHECK_INT(fx.c.npriority_classes, 2);
    journal_list_free(&ctl.journal);
    fixture_free(&fx);
}

static void namespace_usage_counts_running_replicas(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "allocate");
    fixture_node(&fx, "n", 8000, 8 * GiB);
    struct job *job = fixture_job(&fx, "j", "default", 3, 1, 1500);
    fixture_run(&fx, job, 0, 0, fx.now_ms);
    fixture_run(&fx, job, 1, 0, fx.now_ms);
    struct resvec used;
    controller_namespace_usage(&fx.c, job->ns, &used);
    CHECK_INT(used.v[RES_CPU], 3000);
    CHECK_INT(used.v[RES_PODS], 2);
    controller_namespace_usage(&fx.c, "elsewhere", &used);
    CHECK_INT(used.v[RES_CPU], 0);
    fixture_free(&fx);
}

TEST_MAIN(TEST_CASE(queue_create_checks_and_records), TEST_CASE(queue_close_waits_for_podgroups),
          TEST_CASE(priority_admission), TEST_CASE(namespace_usage_counts_running_replicas))
