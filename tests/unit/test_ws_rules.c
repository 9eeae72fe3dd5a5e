/* Unit tests of the WebSocket gateway's pure parts: the subscription query (each refusal naming its
 * parameter), which events a subscription follows, the bearer token from the Authorization header or
 * the browser's subprotocol, and a database row's message being the hub's, byte for byte. */
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "gateway/watch/hub.h"
#include "gateway/ws/internal.h"
#include "gateway/ws/query.h"
#include "gateway/ws/token.h"
#include "store/history.h"
#include "tests/lib/test.h"

static int parse(struct ws_subscription *sub, struct api_status *st, const char *a, const char *b, const char *c)
{
    const char *args[3] = {a, b, c};
    int n = c ? 3 : b ? 2 : a ? 1 : 0;
    memset(st, 0, sizeof *st);
    return ws_query_parse(args, n, sub, st);
}

static void queries_parse(void)
{
    struct ws_subscription sub;
    struct api_status st;
    CHECK_INT(parse(&sub, &st, NULL, NULL, NULL), 0);
    CHECK_STR(sub.ns, "");
    CHECK(!sub.has_since);
    CHECK_INT(parse(&sub, &st, "namespace=team-a", "job=train", "since=42"), 0);
    CHECK_STR(sub.ns, "team-a");
    CHECK_STR(sub.job, "train");
    CHECK(sub.has_since);
    CHECK_INT(sub.since, 42);
    CHECK_INT(parse(&sub, &st, "pod=train-worker-0", "namespace=team-a", NULL), 0);
    CHECK_STR(sub.pod, "train-worker-0");
    CHECK_INT(parse(&sub, &st, "since=0", NULL, NULL), 0);
    CHECK(sub.has_since);
    CHECK_INT(sub.since, 0);
}

/* Each refusal is a 400 whose message and cause name the parameter. */
static void bad_queries_name_their_parameter(void)
{
    static const struct {
        const char *a, *b, *c, *names;
    } cases[] = {
        {"namespace=a", "colour=red", NULL, "colour"},
        {"namespace=a", "job=x", "pod=y", "pod"},
        {"namespace=a", "since=abc", NULL, "since"},
        {"namespace=a", "since=-1", NULL, "since"},
        {"namespace=a", "since=1", "since=2", "since"},
        {"namespace=a", "since=99999999999999999999999", NULL, "since"},
        {"job=x", NULL, NULL, "namespace"},
        {"pod=x", NULL, NULL, "namespace"},
        {"namespace=a", "namespace=b", NULL, "namespace"},
        {"namespace=", NULL, NULL, "namespace"},
        {"namespace=a/b", NULL, NULL, "namespace"},
        {"namespace", NULL, NULL, "namespace"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ws_subscription sub;
        struct api_status st;
        if (parse(&sub, &st, cases[i].a, cases[i].b, cases[i].c) != -1 || st.code != 400 ||
            strncmp(st.message, cases[i].names, strlen(cases[i].names)) != 0 || st.ncauses != 1 ||
            strcmp(st.causes[0].field, cases[i].names) != 0)
            test_fail(__FILE__, __LINE__, "%s %s %s: %d \"%s\", expected a 400 naming %s", cases[i].a,
                      cases[i].b ? cases[i].b : "", cases[i].c ? cases[i].c : "", st.code, st.message, cases[i].names);
    }
}

static void subscriptions_filter_events(void)
{
    struct ws_subscription all = {0}, ns = {.ns = "team-a"}, job = {.ns = "team-a", .job = "train"},
                           pod = {.ns = "team-a", .pod = "train-worker-0"};
    CHECK(ws_subscription_matches(&all, "Queue", "", "default", ""));
    CHECK(ws_subscription_matches(&all, "Pod", "team-b", "x", "y"));
    CHECK(ws_subscription_matches(&ns, "Job", "team-a", "train", "train"));
    CHECK(!ws_subscription_matches(&ns, "Job", "team-b", "train", "train"));
    CHECK(!ws_subscription_matches(&ns, "Queue", "", "default", ""));
    CHECK(ws_subscription_matches(&job, "Job", "team-a", "train", "train"));
    CHECK(ws_subscription_matches(&job, "Pod", "team-a", "train-worker-0", "train"));
    CHECK(ws_subscription_matches(&job, "PodGroup", "team-a", "train", "train"));
    CHECK(!ws_subscription_matches(&job, "Job", "team-a", "other", "other"));
    CHECK(!ws_subscription_matches(&job, "Job", "team-b", "train", "train"));
    CHECK(ws_subscription_matches(&pod, "Pod", "team-a", "train-worker-0", "train"));
    CHECK(!ws_subscription_matches(&pod, "Pod", "team-a", "train-worker-1", "train"));
    CHECK(!ws_subscription_matches(&pod, "Job", "team-a", "train", "train"));
}

static void tokens_come_from_the_header_or_the_subprotocol(void)
{
    size_t len = 0;
    const char *t = ws_bearer_token("Bearer abc.def", &len);
    REQUIRE(t);
    CHECK_INT(len, 7);
    CHECK(strncmp(t, "abc.def", len) == 0);
    CHECK(ws_bearer_token("bearer  xyz ", &len) && len == 3);
    CHECK(!ws_bearer_token("Basic dXNlcjpwdw==", &len));
    CHECK(!ws_bearer_token("Bearer ", &len));
    CHECK(!ws_bearer_token(NULL, &len));

    struct ws_offer o;
    /* "my-token" in base64url without padding is bXktdG9rZW4 */
    ws_offer_parse("caldera.events.v1, base64url.bearer.authorization.k8s.io.bXktdG9rZW4", WS_PROTOCOL, &o);
    CHECK(o.any && o.events && !o.token_malformed);
    CHECK_INT(o.token_len, 8);
    CHECK_STR(o.token, "my-token");
    ws_offer_parse("base64url.bearer.authorization.k8s.io.bXktdG9rZW4,caldera.events.v1", WS_PROTOCOL, &o);
    CHECK(o.events);
    CHECK_STR(o.token, "my-token");
    ws_offer_parse("base64url.bearer.authorization.k8s.io.bXktdG9rZW4", WS_PROTOCOL, &o);
    CHECK(o.any && !o.events);
    ws_offer_parse("caldera.events.v1, base64url.bearer.authorization.k8s.io.b+/=", WS_PROTOCOL, &o);
    CHECK(o.token_malformed);
    ws_offer_parse(NULL, WS_PROTOCOL, &o);
    CHECK(!o.any && !o.events && o.token_len == 0);
    ws_offer_parse("chat, superchat", WS_PROTOCOL, &o);
    CHECK(o.any && !o.events);

    char out[16];
    CHECK_INT(base64url_decode("-_8", 3, out, sizeof out), 2);
    CHECK_INT((unsigned char)out[0], 0xfb);
    CHECK_INT((unsigned char)out[1], 0xff);
    CHECK_INT(base64url_decode("YQ==", 4, out, sizeof out), 1);
    CHECK_INT(base64url_decode("Y", 1, out, sizeof out), -1);
    CHECK_INT(base64url_decode("YWJjZGVmZ2hpamtsbW5vcHFy", 24, out, 4), -1); /* does not fit */
}

/* A row from the events table becomes exactly the message the hub's item of it gives. */
static void database_rows_read_as_hub_items(void)
{
    struct journal_entry *e = journal_entry_new(JOURNAL_EVENT);
    e->ev.seq = 77;
    e->ev.time_ms = 1764000000123LL;
    e->ev.kind = strdup("Pod");
    e->ev.ns = strdup("team-a");
    e->ev.name = strdup("train-worker-0");
    e->ev.job_uid = strdup("uid-1");
    e->ev.job_name = strdup("train");
    e->ev.from_phase = strdup("Running");
    e->ev.to_phase = strdup("Succeeded");
    e->ev.reason = strdup("Completed");
    e->ev.message = strdup("exit code 0, \"done\" \xc3\xa9");
    struct journal_list l = {0};
    journal_list_push(&l, e);
    struct hub *h = hub_new(10, 1 << 20);
    hub_set_floor(h, 76);
    hub_publish(h, &l);
    journal_list_free(&l);
    const struct hub_item *it;
    REQUIRE(hub_read(h, 76, &it, 1) == 1);
    struct event_view row = {77,
                             1764000000123LL,
                             "Pod",
                             "team-a",
                             "train-worker-0",
                             "uid-1",
                             "train",
                             "Running",
                             "Succeeded",
                             "Completed",
                             "exit code 0, \"done\" \xc3\xa9",
                             ""};
    char *from_db = event_view_json(&row);
    CHECK_STR(from_db, hub_item_event_json(it, NULL));
    free(from_db);
    hub_item_unref(it);
    hub_close(h);
    hub_free(h);
}

TEST_MAIN(TEST_CASE(queries_parse), TEST_CASE(bad_queries_name_their_parameter), TEST_CASE(subscriptions_filter_events),
          TEST_CASE(tokens_come_from_the_header_or_the_subprotocol), TEST_CASE(database_rows_read_as_hub_items))
