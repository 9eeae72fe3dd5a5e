/* Two tenants on one --auth server cannot see each other through the streams either: a watch of
 * every namespace (live, and resumed from the database) shows only the watcher's own jobs, pods and
 * events; another tenant's namespace is 403 for a watch, the events list and a WebSocket
 * subscription; the cluster's own events (queues, tokens, denials) are an admin's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"
#include "tests/lib/watch_client.h"
#include "tests/lib/ws_client.h"

#define VCJOBS "/apis/batch.volcano.sh/v1alpha1"
#define TOKENS "/apis/caldera.io/v1/tokens"
#define TOKEN_MAX 128
#define WAIT_MS 30000

static const char *const args[] = {"--auth", "--schedule-period", "100", NULL};

static char admin[TOKEN_MAX], alice[TOKEN_MAX], bob[TOKEN_MAX];

static void token_of(const struct test_server *s, const char *body, char out[TOKEN_MAX])
{
    long code = 0;
    json_t *answer = server_request_as(s, admin, "POST", TOKENS, body, "application/json", &code);
    const char *token = jv_str(answer, "status.token");
    snprintf(out, TOKEN_MAX, "%s", code == 201 && token ? token : "");
    json_decref(answer);
}

static int setup(struct test_server *s)
{
    if (server_start(s, NULL, args) != 0)
        return -1;
    char path[400], *data = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/admin.token", s->data_dir);
    if (read_file(path, TOKEN_MAX, &data, &len) != 0)
        return -1;
    while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == ' '))
        data[--len] = '\0';
    snprintf(admin, sizeof admin, "%s", data);
    free(data);
    token_of(s, "{\"user\":\"alice\",\"namespaces\":[\"team-a\"],\"uid\":1001,\"gid\":1001,\"role\":\"user\"}", alice);
    token_of(s, "{\"user\":\"bob\",\"namespaces\":[\"team-b\"],\"uid\":1002,\"gid\":1002,\"role\":\"user\"}", bob);
    return alice[0] && bob[0] ? 0 : -1;
}

static long submit(const struct test_server *s, const char *token, const char *ns, const char *name, const char *cmd)
{
    char path[256], body[1024];
    snprintf(path, sizeof path, VCJOBS "/namespaces/%s/jobs", ns);
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"%s\"},"
             "\"spec\":{\"tasks\":[{\"name\":\"t\",\"replicas\":1,\"template\":{\"spec\":{\"containers\":"
             "[{\"name\":\"c\",\"command\":[\"sh\",\"-c\",\"%s\"]}]}}}]}}",
             name, cmd);
    long code = 0;
    json_decref(server_request_as(s, token, "POST", path, body, "application/json", &code));
    return code;
}

/* Polls GET path as token until field reads want (at most timeout_ms). */
static bool wait_as(const struct test_server *s, const char *token, const char *path, const char *field,
                    const char *want, int timeout_ms)
{
    for (int waited = 0; waited < timeout_ms; waited += 50) {
        json_t *v = server_request_as(s, token, "GET", path, NULL, NULL, NULL);
        const char *got = jv_str(v, field);
        bool done = got && strcmp(got, want) == 0;
        json_decref(v);
        if (done)
            return true;
        usleep(50 * 1000);
    }
    return false;
}

static struct watch_client *watch_as(const struct test_server *s, const char *token, const char *path)
{
    char header[TOKEN_MAX + 32];
    snprintf(header, sizeof header, "Authorization: Bearer %s", token);
    return watch_open(s, path, header);
}

/* No event of the stream is about namespace ns (or, with ns "", about a cluster-scoped object). */
static void check_none_in(struct watch_client *w, const char *ns, const char *what)
{
    json_t *events = watch_events(w);
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        const char *got = jv_str(e, "object.metadata.namespace");
        if (strcmp(got ? got : "", ns) == 0 && strcmp(jv_str(e, "type"), "BOOKMARK") != 0)
            test_fail(__FILE__, __LINE__, "%s: %s %s/%s of namespace \"%s\" leaked", what, jv_str(e, "type"),
                      jv_str(e, "object.kind"), jv_str(e, "object.metadata.name"), ns);
    }
    json_decref(events);
}

static void watches_show_a_tenant_only_its_own(void)
{
    struct test_server s;
    REQUIRE(setup(&s) == 0);
    json_t *list = server_request_as(&s, bob, "GET", VCJOBS "/jobs", NULL, NULL, NULL);
    char from[32];
    const char *rv = jv_str(list, "metadata.resourceVersion");
    snprintf(from, sizeof from, "%s", rv ? rv : "1");
    json_decref(list);
    struct watch_client *bob_jobs = watch_as(&s, bob, VCJOBS "/jobs?watch=true");
    struct watch_client *bob_pods = watch_as(&s, bob, "/api/v1/pods?watch=true");
    struct watch_client *bob_events = watch_as(&s, bob, "/api/v1/events?watch=true");
    struct watch_client *bob_histories = watch_as(&s, bob, "/apis/caldera.io/v1/jobhistories?watch=true");
    struct watch_client *bob_in_a = watch_as(&s, bob, VCJOBS "/namespaces/team-a/jobs?watch=true");
    usleep(300 * 1000);
    CHECK_INT(submit(&s, alice, "team-a", "secret", "echo alice"), 201);
    CHECK_INT(submit(&s, bob, "team-b", "mine", "echo bob"), 201);
    REQUIRE(wait_as(&s, alice, VCJOBS "/namespaces/team-a/jobs/secret", "status.state.phase", "Completed", WAIT_MS));
    CHECK(watch_wait_for(bob_jobs, 0, "MODIFIED", "mine", "status.state.phase", "Completed", WAIT_MS) >= 0);
    CHECK(watch_wait_for(bob_pods, 0, NULL, "mine-t-0", "status.phase", "Succeeded", WAIT_MS) >= 0);
    CHECK(watch_wait_for(bob_events, 0, "ADDED", NULL, "involvedObject.name", "mine", WAIT_MS) >= 0);
    CHECK(watch_wait_for(bob_histories, 0, NULL, "mine", "phase", "Completed", WAIT_MS) >= 0);
    long code;
    json_decref(server_request_as(&s, alice, "DELETE", VCJOBS "/namespaces/team-a/jobs/secret", NULL, NULL, &code));
    CHECK_INT(code, 200);
    usleep(500 * 1000);
    check_none_in(bob_jobs, "team-a", "bob's watch of every job");
    check_none_in(bob_pods, "team-a", "bob's watch of every pod");
    check_none_in(bob_events, "team-a", "bob's watch of every event");
    check_none_in(bob_events, "", "bob's watch of every event");
    check_none_in(bob_histories, "team-a", "bob's watch of every job history");
    CHECK(watch_wait_end(bob_in_a, WAIT_MS));
    CHECK_INT(watch_status(bob_in_a), 403);
    /* resumed from the database: a fresh watch from before both jobs */
    char path[256];
    snprintf(path, sizeof path, VCJOBS "/jobs?watch=true&resourceVersion=%s", from);
    struct watch_client *resumed = watch_as(&s, bob, path);
    snprintf(path, sizeof path, "/api/v1/events?watch=true&resourceVersion=%s", from);
    struct watch_client *resumed_events = watch_as(&s, bob, path);
    CHECK(watch_wait_for(resumed, 0, NULL, "mine", NULL, NULL, WAIT_MS) >= 0);
    CHECK(watch_wait_for(resumed_events, 0, NULL, NULL, "involvedObject.name", "mine", WAIT_MS) >= 0);
    usleep(300 * 1000);
    check_none_in(resumed, "team-a", "bob's resumed watch of every job");
    check_none_in(resumed_events, "team-a", "bob's resumed watch of every event");
    check_none_in(resumed_events, "", "bob's resumed watch of every event");
    /* the admin sees both, and the cluster's own events */
    struct watch_client *admin_events = watch_as(&s, admin, "/api/v1/events?watch=true&resourceVersion=1");
    CHECK(watch_wait_for(admin_events, 0, NULL, NULL, "involvedObject.name", "secret", WAIT_MS) >= 0);
    CHECK(watch_wait_for(admin_events, 0, NULL, NULL, "involvedObject.kind", "Token", WAIT_MS) >= 0);
    struct watch_client *clients[] = {bob_jobs, bob_pods, bob_events,     bob_histories,
                                      bob_in_a, resumed,  resumed_events, admin_events};
    for (size_t i = 0; i < sizeof clients / sizeof clients[0]; i++)
        watch_close(clients[i]);
    server_cleanup(&s);
}

/* The events list: a tenant's across namespaces holds only its own; another's namespace is 403. */
static void the_events_list_shows_a_tenant_only_its_own(void)
{
    struct test_server s;
    REQUIRE(setup(&s) == 0);
    CHECK_INT(submit(&s, alice, "team-a", "hidden", "true"), 201);
    CHECK_INT(submit(&s, bob, "team-b", "shown", "true"), 201);
    REQUIRE(wait_as(&s, alice, VCJOBS "/namespaces/team-a/jobs/hidden", "status.state.phase", "Completed", WAIT_MS));
    REQUIRE(wait_as(&s, bob, VCJOBS "/namespaces/team-b/jobs/shown", "status.state.phase", "Completed", WAIT_MS));
    long code;
    json_t *all = server_request_as(&s, bob, "GET", "/api/v1/events", NULL, NULL, &code);
    CHECK_INT(code, 200);
    size_t i;
    json_t *e;
    bool own = false;
    json_array_foreach(json_object_get(all, "items"), i, e)
    {
        const char *ns = jv_str(e, "metadata.namespace");
        CHECK_STR(ns ? ns : "", "team-b");
        own = own || strcmp(jv_str(e, "involvedObject.name"), "shown") == 0;
    }
    CHECK(own);
    json_decref(all);
    json_decref(server_request_as(&s, bob, "GET", "/api/v1/namespaces/team-a/events", NULL, NULL, &code));
    CHECK_INT(code, 403);
    json_decref(server_request_as(&s, bob, "GET", "/api/v1/namespaces/team-a/events?watch=true", NULL, NULL, &code));
    CHECK_INT(code, 403);
    server_cleanup(&s);
}

static int ws_connect_as(struct ws_client *c, const struct test_server *s, const char *token, const char *query)
{
    char header[TOKEN_MAX + 16];
    snprintf(header, sizeof header, "Bearer %s", token);
    struct ws_client_options o = {.authorization = header};
    *c = (struct ws_client){.fd = -1};
    return ws_client_connect(c, server_ws_url(s), query, &o, 10000);
}

static void websocket_subscribers_see_only_their_namespaces(void)
{
    struct test_server s;
    REQUIRE(setup(&s) == 0);
    struct ws_client c;
    CHECK_INT(ws_connect_as(&c, &s, bob, "namespace=team-a"), 1);
    CHECK_INT(c.http_code, 403);
    ws_client_close(&c);
    CHECK_INT(ws_connect_as(&c, &s, bob, NULL), 1); /* every namespace: an admin's */
    CHECK_INT(c.http_code, 403);
    ws_client_close(&c);
    CHECK_INT(ws_connect_as(&c, &s, "nobody.0000000000000000000000000000000", "namespace=team-b"), 1);
    CHECK_INT(c.http_code, 401);
    ws_client_close(&c);
    struct ws_client mine;
    REQUIRE(ws_connect_as(&mine, &s, bob, "namespace=team-b") == 0);
    CHECK_INT(submit(&s, alice, "team-a", "private", "true"), 201);
    CHECK_INT(submit(&s, bob, "team-b", "public", "true"), 201);
    bool done = false;
    for (int i = 0; i < 400 && !done; i++) {
        struct ws_frame f = ws_client_next(&mine, 100);
        if (f.kind == WS_TEXT) {
            json_t *ev = json_loads(f.text, 0, NULL);
            CHECK_STR(jv_str(ev, "namespace"), "team-b");
            done = strcmp(jv_str(ev, "name"), "public") == 0 && strcmp(jv_str(ev, "to"), "Completed") == 0;
            json_decref(ev);
        }
        ws_frame_clear(&f);
    }
    CHECK(done);
    ws_client_close(&mine);
    server_cleanup(&s);
}

TEST_MAIN(TEST_CASE(watches_show_a_tenant_only_its_own), TEST_CASE(the_events_list_shows_a_tenant_only_its_own),
          TEST_CASE(websocket_subscribers_see_only_their_namespaces))
