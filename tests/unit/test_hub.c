/* Unit tests of the hub: committed entries become items in sequence order with their event JSON and
 * watch lines; readers resume after any sequence number they hold, are told when the ring no longer
 * holds what they ask for, wait for news, and keep items alive past their eviction. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/watch/hub.h"
#include "tests/lib/test.h"

static struct journal_entry *entry(uint64_t seq, const char *kind, const char *name)
{
    struct journal_entry *e = journal_entry_new(JOURNAL_EVENT);
    e->ev.seq = seq;
    e->ev.time_ms = 1764000000123LL;
    e->ev.kind = strdup(kind);
    e->ev.ns = strdup("team-a");
    e->ev.name = strdup(name);
    e->ev.job_uid = strdup("uid-1");
    e->ev.job_name = strdup("train");
    e->ev.from_phase = strdup("Pending");
    e->ev.to_phase = strdup("Running");
    e->ev.reason = strdup("Started");
    e->ev.message = strdup("a \"quoted\" message");
    return e;
}

static void publish(struct hub *h, uint64_t first, uint64_t last)
{
    struct journal_list l = {0};
    for (uint64_t s = first; s <= last; s++)
        journal_list_push(&l, entry(s, "Pod", "train-worker-0"));
    hub_publish(h, &l);
    journal_list_free(&l);
}

static void items_come_in_order_and_resume_after_any_seq(void)
{
    struct hub *h = hub_new(100, 1 << 20);
    hub_set_floor(h, 10);
    CHECK_INT(hub_head(h), 10);
    publish(h, 11, 15);
    CHECK_INT(hub_head(h), 15);
    const struct hub_item *items[10];
    int n = hub_read(h, 10, items, 10);
    CHECK_INT(n, 5);
    for (int i = 0; i < n; i++) {
        CHECK_INT(items[i]->seq, 11 + i);
        hub_item_unref(items[i]);
    }
    n = hub_read(h, 13, items, 10);
    CHECK_INT(n, 2);
    CHECK_INT(items[0]->seq, 14);
    CHECK_STR(items[0]->job_name, "train");
    for (int i = 0; i < n; i++)
        hub_item_unref(items[i]);
    CHECK_INT(hub_read(h, 15, items, 10), 0);
    CHECK_INT(hub_read(h, 9, items, 10), -1); /* before the hub started */
    hub_close(h);
    hub_free(h);
}

static void a_full_ring_forgets_the_oldest_and_says_so(void)
{
    struct hub *h = hub_new(4, 1 << 20);
    publish(h, 1, 10);
    CHECK_INT(hub_floor(h), 6);
    const struct hub_item *items[10];
    CHECK_INT(hub_read(h, 5, items, 10), -1);
    int n = hub_read(h, 6, items, 10);
    CHECK_INT(n, 4);
    CHECK_INT(items[0]->seq, 7);
    publish(h, 11, 20); /* evicts what the reader holds: its references keep them */
    CHECK_STR(items[0]->name, "train-worker-0");
    CHECK_INT(items[3]->seq, 10);
    for (int i = 0; i < n; i++)
        hub_item_unref(items[i]);
    hub_free(h);
}

static void the_event_json_says_everything_once(void)
{
    struct hub *h = hub_new(8, 1 << 20);
    publish(h, 1, 1);
    const struct hub_item *it;
    REQUIRE(hub_read(h, 0, &it, 1) == 1);
    size_t len;
    const char *json = hub_item_event_json(it, &len);
    CHECK_STR(json,
              "{\"seq\":1,\"time\":\"2025-11-24T16:00:00.123Z\",\"kind\":\"Pod\",\"namespace\":\"team-a\","
              "\"name\":\"train-worker-0\",\"job\":\"train\",\"jobUid\":\"uid-1\",\"from\":\"Pending\","
              "\"to\":\"Running\",\"reason\":\"Started\",\"message\":\"a \\\"quoted\\\" message\"}");
    CHECK_INT(len, strlen(json));
    CHECK(hub_item_event_json(it, NULL) == json); /* made once */
    hub_item_unref(it);
    hub_free(h);
}

static void watch_objects_become_stream_lines(void)
{
    struct hub *h = hub_new(8, 1 << 20);
    struct journal_list l = {0};
    struct journal_entry *e = entry(3, "Job", "train");
    journal_entry_add_watch(e, watch_object_new(WATCH_ADDED, "batch.volcano.sh/v1alpha1", "Job", "team-a", "train",
                                                json_pack("{s:s}", "kind", "Job")));
    journal_entry_add_watch(
        e, watch_object_new(WATCH_DELETED, "v1", "Pod", "team-a", "train-worker-0", json_pack("{s:s}", "kind", "Pod")));
    journal_list_push(&l, e);
    hub_publish(h, &l);
    CHECK(e->watch == NULL); /* taken */
    journal_list_free(&l);
    const struct hub_item *it;
    REQUIRE(hub_read(h, 0, &it, 1) == 1);
    const struct watch_object *w = it->objects;
    REQUIRE(w && w->next && !w->next->next);
    size_t len;
    CHECK_STR(hub_object_line(it, w, &len), "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Job\"}}\n");
    CHECK_INT(len, strlen("{\"type\":\"ADDED\",\"object\":{\"kind\":\"Job\"}}\n"));
    CHECK_STR(hub_object_line(it, w->next, NULL), "{\"type\":\"DELETED\",\"object\":{\"kind\":\"Pod\"}}\n");
    CHECK_STR(w->next->kind, "Pod");
    hub_item_unref(it);
    hub_free(h);
}

/* The byte budget evicts too, but never the newest item. */
static void the_byte_budget_keeps_the_newest(void)
{
    struct hub *h = hub_new(100, 1);
    publish(h, 1, 3);
    const struct hub_item *items[4];
    CHECK_INT(hub_read(h, 2, items, 4), 1);
    hub_item_unref(items[0]);
    CHECK_INT(hub_floor(h), 2);
    hub_free(h);
}

struct waiter {
    struct hub *h;
    bool got;
};

static void *wait_for_news(void *arg)
{
    struct waiter *w = arg;
    w->got = hub_wait(w->h, 1, 5000);
    return NULL;
}

static void a_waiter_wakes_on_publish_and_close_wakes_everyone(void)
{
    struct hub *h = hub_new(8, 1 << 20);
    publish(h, 1, 1);
    CHECK(!hub_wait(h, 1, 10));
    struct waiter w = {h, false};
    pthread_t t;
    pthread_create(&t, NULL, wait_for_news, &w);
    publish(h, 2, 2);
    pthread_join(t, NULL);
    CHECK(w.got);
    struct waiter w2 = {h, false};
    pthread_create(&t, NULL, wait_for_news, &w2);
    hub_close(h);
    pthread_join(t, NULL);
    CHECK(w2.got); /* seq 2 > 1: there is news */
    CHECK(hub_closed(h));
    CHECK(!hub_wait(h, 2, 5000)); /* closed: returns at once, nothing newer */
    hub_free(h);
}

static int notified;
static void count_notify(void *ctx)
{
    (void)ctx;
    notified++;
}

static void publishing_notifies(void)
{
    struct hub *h = hub_new(8, 1 << 20);
    hub_set_notify(h, count_notify, NULL);
    publish(h, 1, 3);
    CHECK_INT(notified, 1); /* once per batch */
    hub_free(h);
}

TEST_MAIN(TEST_CASE(items_come_in_order_and_resume_after_any_seq),
          TEST_CASE(a_full_ring_forgets_the_oldest_and_says_so), TEST_CASE(the_event_json_says_everything_once),
          TEST_CASE(watch_objects_become_stream_lines), TEST_CASE(the_byte_budget_keeps_the_newest),
          TEST_CASE(a_waiter_wakes_on_publish_and_close_wakes_everyone), TEST_CASE(publishing_notifies))
