/* Unit tests of authentication and authorization's pure parts: the token's form and its stored
 * SHA-256, the Token body's rules, the roles' namespace rights, the path -> rule -> decision of
 * gateway/auth/access.c with its Kubernetes-worded 403, the loopback rule, and stored tokens loaded and
 * checked by the authenticator. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/token.h"
#include "common/clock.h"
#include "gateway/auth/access.h"
#include "gateway/auth/auth.h"
#include "store/store.h"
#include "tests/lib/causes.h"
#include "tests/lib/test.h"
#include "tests/lib/tmpdb.h"

/* --- the token's form --------------------------------------------------------------------------- */

static void tokens_are_id_dot_secret_and_never_repeat(void)
{
    char a[TOKEN_LEN + 1], b[TOKEN_LEN + 1], id[TOKEN_ID_LEN + 1];
    REQUIRE(token_generate(a) == 0 && token_generate(b) == 0);
    CHECK_INT(strlen(a), 39);
    CHECK(a[6] == '.');
    CHECK(strspn(a, "abcdefghijklmnopqrstuvwxyz0123456789.") == 39);
    CHECK(strcmp(a, b) != 0);
    CHECK(token_parse(a, strlen(a), id));
    CHECK(strncmp(id, a, 6) == 0 && id[6] == '\0');
    CHECK(!token_parse(a, 38, id));
    CHECK(!token_parse("ABCDEF.0123456789012345678901234567890x", 39, id)); /* upper case */
    CHECK(!token_parse("abcdef-0123456789012345678901234567890x", 39, id));
    CHECK(!token_parse("abc.ef0123456789012345678901234567890x1", 39, id));
}

static void sha256_hex(const char *text, char out[65])
{
    unsigned char d[32];
    unsigned int n;
    EVP_Digest(text, strlen(text), d, &n, EVP_sha256(), NULL);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* A stored token holds the SHA-256 of the token, never the token, and reads back whole. */
static void a_token_is_stored_as_its_sha256(void)
{
    const char *text = "abc123.0123456789abcdefghijklmnopqrstuv";
    char *namespaces[] = {"team-a", "team-b", NULL};
    struct token t = {
        .id = "abc123",
        .created_ms = 1790000000000,
        .spec = {.user = "alice", .namespaces = namespaces, .uid = 1001, .gid = 1002, .role = TOKEN_ROLE_USER}};
    unsigned int n;
    EVP_Digest(text, strlen(text), t.digest, &n, EVP_sha256(), NULL);
    char *json = token_to_store_json(&t);
    REQUIRE(json);
    char hex[65];
    sha256_hex(text, hex);
    CHECK_CONTAINS(json, hex);
    CHECK(!strstr(json, "0123456789abcdefghijklmnopqrstuv"));
    struct token back;
    REQUIRE(token_from_store_json(json, &back) == 0);
    CHECK_STR(back.id, "abc123");
    CHECK_STR(back.spec.user, "alice");
    CHECK_STR(back.spec.namespaces[1], "team-b");
    CHECK_INT(back.spec.uid, 1001);
    CHECK_INT(back.spec.gid, 1002);
    CHECK_INT(back.spec.role, TOKEN_ROLE_USER);
    CHECK_INT(back.created_ms, 1790000000000);
    CHECK(memcmp(back.digest, t.digest, 32) == 0);
    token_clear(&back);
    /* Shown: the spec, never a hash; the token only when asked to (its creation's answer). */
    json_t *shown = token_render(&t, NULL);
    char *text_shown = json_dumps(shown, 0);
    CHECK(!strstr(text_shown, hex) && !strstr(text_shown, "\"status\""));
    free(text_shown);
    json_decref(shown);
    shown = token_render(&t, text);
    CHECK_STR(json_string_value(json_object_get(json_object_get(shown, "status"), "token")), text);
    json_decref(shown);
    free(json);
    CHECK(token_from_store_json("{\"metadata\":{\"name\":\"abc123\"}}", &back) != 0);
}

/* --- the Token body ----------------------------------------------------------------------------- */

/* A cause on field whose message holds text. */
#define HAS_CAUSE(st, field, text)                                                           \
    do {                                                                                     \
        const struct api_cause *c_ = cause_on(st, field);                                    \
        if (!c_)                                                                             \
            test_fail(__FILE__, __LINE__, "no cause on %s in \"%s\"", field, (st)->message); \
        else                                                                                 \
            CHECK_CONTAINS(c_->message, text);                                               \
    } while (0)

static int parse_spec(const char *body, struct token_spec *spec, struct api_status *st)
{
    struct intake in;
    memset(st, 0, sizeof *st);
    if (intake_parse(body, strlen(body), INTAKE_SNIFF, &in, st) != 0)
        return -1;
    int rc = token_spec_from_doc(&in.docs[0], spec, st);
    intake_free(&in);
    return rc;
}

static void token_bodies_flat_or_as_objects(void)
{
    struct token_spec s;
    struct api_status st;
    REQUIRE(parse_spec("{\"user\":\"alice\",\"namespaces\":[\"team-a\"],\"uid\":1001,\"gid\":1001,\"role\":\"user\"}",
                       &s, &st) == 0);
    CHECK_STR(s.user, "alice");
    CHECK_STR(s.namespaces[0], "team-a");
    CHECK_INT(s.uid, 1001);
    CHECK_INT(s.role, TOKEN_ROLE_USER);
    token_spec_clear(&s);
    REQUIRE(parse_spec("apiVersion: caldera.io/v1\nkind: Token\nspec:\n  user: ops@example.com\n  role: admin\n", &s,
                       &st) == 0);
    CHECK_INT(s.role, TOKEN_ROLE_ADMIN);
    CHECK_STR(s.namespaces[0], "*"); /* an admin's namespaces: every one */
    CHECK_INT(s.uid, -1);
    token_spec_clear(&s);
    REQUIRE(parse_spec("{\"user\":\"dash\",\"namespaces\":[\"*\"],\"role\":\"viewer\"}", &s, &st) == 0);
    CHECK_INT(s.role, TOKEN_ROLE_VIEWER);
    token_spec_clear(&s);
}

static void token_rules_name_the_field(void)
{
    struct token_spec s;
    struct api_status st;
    CHECK(parse_spec("{\"user\":\"bob\",\"namespaces\":[\"team-a\"],\"uid\":1,\"gid\":1,\"role\":\"root\"}", &s, &st) !=
          0);
    CHECK_INT(st.code, 422);
    HAS_CAUSE(&st, "spec.role", "Unsupported value: \"root\": supported values: \"admin\", \"user\", \"viewer\"");
    CHECK_INT(st.ncauses, 1);
    CHECK_CONTAINS(st.message, "Token.caldera.io is invalid");

    CHECK(parse_spec("{\"user\":\"bob\",\"namespaces\":[\"team-a\"]}", &s, &st) != 0); /* role user: ids needed */
    HAS_CAUSE(&st, "spec.uid", "Required value");
    HAS_CAUSE(&st, "spec.gid", "Required value");
    CHECK(parse_spec("{\"user\":\"bob\",\"namespaces\":[\"team-a\"],\"uid\":1001}", &s, &st) != 0);
    HAS_CAUSE(&st, "spec.gid", "uid and gid go together");
    CHECK(parse_spec("{\"user\":\"bob\",\"namespaces\":[\"team-a\"],\"uid\":0,\"gid\":0}", &s, &st) != 0);
    HAS_CAUSE(&st, "spec.uid", "must be between 1 and 2147483646");
    CHECK(parse_spec("{\"user\":\"bob\",\"role\":\"viewer\"}", &s, &st) != 0);
    HAS_CAUSE(&st, "spec.namespaces", "Required value");
    CHECK(parse_spec("{\"user\":\"bob\",\"role\":\"viewer\",\"namespaces\":[\"*\",\"team-a\"]}", &s, &st) != 0);
    HAS_CAUSE(&st, "spec.namespaces[0]", "comes alone");
    CHECK(parse_spec("{\"user\":\"bob\",\"role\":\"viewer\",\"namespaces\":[\"Team_A\"]}", &s, &st) != 0);
    HAS_CAUSE(&st, "spec.namespaces[0]", "DNS-1123");
    CHECK(parse_spec("{\"user\":\"b o b\",\"role\":\"admin\"}", &s, &st) != 0);
    HAS_CAUSE(&st, "spec.user", "Invalid value");
    CHECK(parse_spec("{\"role\":\"admin\",\"group\":\"x\"}", &s, &st) != 0);
    HAS_CAUSE(&st, "spec.user", "Required value");
    HAS_CAUSE(&st, "spec.group", "unknown field");
    CHECK(
        parse_spec("{\"kind\":\"Token\",\"metadata\":{\"name\":\"mine\"},\"spec\":{\"user\":\"a\",\"role\":\"admin\"}}",
                   &s, &st) != 0);
    HAS_CAUSE(&st, "metadata.name", "the server chooses");
    CHECK(parse_spec("{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"spec\":{}}", &s, &st) != 0);
    CHECK_INT(st.code, 400);
    /* YAML causes say where */
    CHECK(parse_spec("user: bob\nrole: viewer\nnamespaces: [team-a]\nuid: -4\ngid: 5\n", &s, &st) != 0);
    const struct api_cause *c = cause_on(&st, "spec.uid");
    CHECK(c && c->line == 4);
}

/* --- roles and namespaces ------------------------------------------------------------------------ */

static void roles_read_and_write_their_namespaces(void)
{
    char *team_a[] = {"team-a", "team-c", NULL}, *every[] = {"*", NULL};
    struct principal *viewer = principal_new("v", TOKEN_ROLE_VIEWER, team_a, -1, -1, "aaaaaa", PRINCIPAL_TOKEN);
    struct principal *user = principal_new("alice", TOKEN_ROLE_USER, team_a, 1001, 1001, "bbbbbb", PRINCIPAL_TOKEN);
    struct principal *admin = principal_new("root", TOKEN_ROLE_ADMIN, team_a, -1, -1, NULL, PRINCIPAL_WEBHOOK);
    struct principal *watcher = principal_new("dash", TOKEN_ROLE_VIEWER, every, -1, -1, NULL, PRINCIPAL_TOKEN);
    REQUIRE(viewer && user && admin && watcher);
    CHECK(principal_reads_namespace(viewer, "team-c") && !principal_writes_namespace(viewer, "team-c"));
    CHECK(principal_reads_namespace(user, "team-a") && principal_writes_namespace(user, "team-a"));
    CHECK(!principal_reads_namespace(user, "team-b") && !principal_writes_namespace(user, "team-b"));
    CHECK(principal_writes_namespace(admin, "anything") && principal_is_admin(admin));
    CHECK(principal_all_namespaces(admin) && !principal_all_namespaces(user));
    CHECK(principal_all_namespaces(watcher) && principal_reads_namespace(watcher, "team-z"));
    CHECK(!principal_writes_namespace(watcher, "team-z") && !principal_is_admin(watcher));
    CHECK(principal_visible(admin) == NULL && principal_visible(watcher) == NULL);
    const struct namespace_set *v = principal_visible(user);
    CHECK(v && v->n == 2 && namespace_set_has(v, "team-c") && !namespace_set_has(v, "team-b"));
    CHECK(!principal_reads_namespace(NULL, "team-a") && !principal_is_admin(NULL));
    CHECK(principal_ref(user) == user);
    principal_release(user); /* the ref */
    CHECK_STR(principal_user(user), "alice");
    principal_release(viewer);
    principal_release(user);
    principal_release(admin);
    principal_release(watcher);
}

/* --- the path -> rule -> decision ---------------------------------------------------------------- */

static enum access_rule rule(const char *method, const char *path, struct access_request *r)
{
    access_describe(method, path, r);
    return access_rule_of(r);
}

static void paths_read_as_kubernetes_reads_them(void)
{
    struct access_request r;
    CHECK_INT(rule("GET", "/apis/batch.volcano.sh/v1alpha1/namespaces/team-b/jobs/x", &r), ACCESS_NS_READ);
    CHECK_STR(r.verb, "get");
    CHECK_STR(r.group, "batch.volcano.sh");
    CHECK_STR(r.resource, "jobs");
    CHECK_STR(r.ns, "team-b");
    CHECK_STR(r.name, "x");
    CHECK_INT(rule("GET", "/api/v1/namespaces/team-b/pods/x-w-0/log", &r), ACCESS_NS_READ);
    CHECK_STR(r.group, "");
    CHECK_STR(r.subresource, "log");
    CHECK_INT(rule("GET", "/apis/caldera.io/v1/namespaces/t/jobs/x/history/pods/p/attempts/1/log", &r), ACCESS_NS_READ);
    CHECK_STR(r.subresource, "history");
    CHECK_INT(rule("POST", "/apis/batch.volcano.sh/v1alpha1/namespaces/t/jobs", &r), ACCESS_NS_WRITE);
    CHECK_STR(r.verb, "create");
    CHECK_INT(rule("POST", "/apis/caldera.io/v1/namespaces/t/jobs/x/suspend", &r), ACCESS_NS_WRITE);
    CHECK_INT(rule("DELETE", "/api/v1/namespaces/t/pods/x", &r), ACCESS_NS_WRITE);
    CHECK_INT(rule("PUT", "/api/v1/namespaces/t/resourcequotas/q", &r), ACCESS_ADMIN); /* the platform's */
    CHECK_INT(rule("GET", "/api/v1/namespaces/t/resourcequotas/q", &r), ACCESS_NS_READ);
    CHECK_INT(rule("POST", "/apis/kubeflow.org/v1/namespaces/t/pytorchjobs", &r), ACCESS_NS_WRITE);
    /* across namespaces and cluster-scoped: anyone reads (lists are filtered), admins change */
    CHECK_INT(rule("GET", "/apis/batch.volcano.sh/v1alpha1/jobs", &r), ACCESS_ANY);
    CHECK_STR(r.verb, "list");
    CHECK_INT(rule("GET", "/apis/ray.io/v1/rayjobs", &r), ACCESS_ANY);
    CHECK_INT(rule("GET", "/apis/scheduling.volcano.sh/v1beta1/queues/default", &r), ACCESS_ANY);
    CHECK_INT(rule("POST", "/apis/scheduling.volcano.sh/v1beta1/queues", &r), ACCESS_ADMIN);
    CHECK_INT(rule("POST", "/apis/caldera.io/v1/queues/q/close", &r), ACCESS_ADMIN);
    CHECK_INT(rule("DELETE", "/apis/caldera.io/v1/tokens/abc123", &r), ACCESS_ADMIN);
    CHECK_INT(rule("GET", "/apis/caldera.io/v1/tokens", &r), ACCESS_ANY);
    CHECK_INT(rule("HEAD", "/api/v1/nodes", &r), ACCESS_ANY);
    /* not resources */
    CHECK_INT(rule("GET", "/metrics", &r), ACCESS_ALL_NAMESPACES);
    CHECK(!r.is_resource);
    CHECK_INT(rule("GET", "/apis/batch.volcano.sh/v1alpha1", &r), ACCESS_ANY);
    CHECK(!r.is_resource);
    CHECK_INT(rule("GET", "/openapi/v3", &r), ACCESS_ANY);
    CHECK(access_public_pattern("/ui/{file}") && access_public_pattern("/healthz") && !access_public_pattern("/api"));
}

static bool allowed(const struct principal *p, const char *method, const char *path, char *why)
{
    struct access_request r;
    access_describe(method, path, &r);
    return access_allowed(p, &r, access_rule_of(&r), why, 300);
}

static void decisions_and_their_403(void)
{
    char *team_a[] = {"team-a", NULL}, *every[] = {"*", NULL}, why[300];
    struct principal *alice = principal_new("alice", TOKEN_ROLE_USER, team_a, 1001, 1001, NULL, PRINCIPAL_TOKEN);
    struct principal *viewer = principal_new("val", TOKEN_ROLE_VIEWER, team_a, -1, -1, NULL, PRINCIPAL_TOKEN);
    struct principal *dash = principal_new("dash", TOKEN_ROLE_VIEWER, every, -1, -1, NULL, PRINCIPAL_TOKEN);
    REQUIRE(alice && viewer && dash);
    CHECK(allowed(alice, "GET", "/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs/x", why));
    CHECK(allowed(alice, "POST", "/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs", why));
    CHECK(!allowed(alice, "GET", "/apis/batch.volcano.sh/v1alpha1/namespaces/team-b/jobs/x", why));
    CHECK_CONTAINS(why, "team-a");
    CHECK(!allowed(viewer, "POST", "/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs", why));
    CHECK_CONTAINS(why, "viewer");
    CHECK(!allowed(alice, "POST", "/apis/scheduling.volcano.sh/v1beta1/queues", why));
    CHECK(!allowed(alice, "GET", "/metrics", why));
    CHECK(allowed(dash, "GET", "/metrics", why));
    CHECK(allowed(alice, "GET", "/apis/scheduling.volcano.sh/v1beta1/queues", why));
    CHECK(!allowed(NULL, "GET", "/api/v1/nodes", why));

    struct access_request r;
    struct api_status st = {0};
    access_describe("GET", "/apis/batch.volcano.sh/v1alpha1/namespaces/team-b/jobs/x", &r);
    access_forbidden(alice, &r, NULL, &st);
    CHECK_INT(st.code, 403);
    CHECK_STR(st.reason, "Forbidden");
    CHECK_STR(st.message,
              "jobs.batch.volcano.sh \"x\" is forbidden: User \"alice\" cannot get resource \"jobs\" in "
              "API group \"batch.volcano.sh\" in the namespace \"team-b\"");
    CHECK_STR(st.kind, "jobs");
    CHECK_STR(st.group, "batch.volcano.sh");
    CHECK_STR(st.name, "x");
    access_describe("GET", "/api/v1/namespaces/team-b/pods", &r);
    access_forbidden(alice, &r, "the token's namespaces are team-a", &st);
    CHECK_STR(st.message,
              "pods is forbidden: User \"alice\" cannot list resource \"pods\" in API group \"\" in the "
              "namespace \"team-b\": the token's namespaces are team-a");
    access_describe("POST", "/apis/scheduling.volcano.sh/v1beta1/queues", &r);
    access_forbidden(alice, &r, NULL, &st);
    CHECK_CONTAINS(st.message,
                   "cannot create resource \"queues\" in API group \"scheduling.volcano.sh\" at the "
                   "cluster scope");
    access_describe("GET", "/metrics", &r);
    access_forbidden(alice, &r, NULL, &st);
    CHECK_STR(st.message, "forbidden: User \"alice\" cannot get path \"/metrics\"");
    principal_release(alice);
    principal_release(viewer);
    principal_release(dash);
}

/* --- loopback and the anonymous rule ------------------------------------------------------------- */

static bool loopback4(const char *addr)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    inet_pton(AF_INET, addr, &sa.sin_addr);
    return auth_address_is_loopback((const struct sockaddr *)&sa);
}

static bool loopback6(const char *addr)
{
    struct sockaddr_in6 sa = {.sin6_family = AF_INET6};
    inet_pton(AF_INET6, addr, &sa.sin6_addr);
    return auth_address_is_loopback((const struct sockaddr *)&sa);
}

static void loopback_is_127_slash_8_and_colon_colon_1(void)
{
    CHECK(loopback4("127.0.0.1") && loopback4("127.255.3.4"));
    CHECK(!loopback4("10.0.0.1") && !loopback4("128.0.0.1") && !loopback4("0.0.0.0"));
    CHECK(loopback6("::1") && loopback6("::ffff:127.0.0.1"));
    CHECK(!loopback6("::ffff:10.1.2.3") && !loopback6("2001:db8::1") && !loopback6("::"));
    CHECK(!auth_address_is_loopback(NULL));
}

static void anonymous_requests_only_from_loopback_without_auth(void)
{
    struct auth *open, *closed;
    char err[256];
    const struct auth_config off = {.required = false}, on = {.required = true};
    REQUIRE(auth_new(&off, &open, err, sizeof err) == 0 && auth_new(&on, &closed, err, sizeof err) == 0);
    struct principal *p = NULL;
    struct api_status st = {0};
    CHECK_INT(auth_authenticate_token(open, NULL, 0, true, &p, &st), 0);
    CHECK(principal_is_admin(p) && p->source == PRINCIPAL_ANONYMOUS);
    CHECK_STR(principal_user(p), "anonymous");
    principal_release(p);
    CHECK_INT(auth_authenticate_token(open, NULL, 0, false, &p, &st), -1);
    CHECK_INT(st.code, 401);
    CHECK_CONTAINS(st.message, "only from loopback");
    CHECK_CONTAINS(st.message, "Authorization: Bearer");
    CHECK_INT(auth_authenticate_token(closed, NULL, 0, true, &p, &st), -1);
    CHECK_INT(st.code, 401);
    const char *bad = "zzzzzz.zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz";
    CHECK_INT(auth_authenticate_token(open, bad, strlen(bad), true, &p, &st), -1); /* a token is always checked */
    CHECK_STR(st.reason, "Unauthorized");
    CHECK(p == NULL);
    auth_free(open);
    auth_free(closed);
}

/* --- stored tokens, loaded and checked ----------------------------------------------------------- */

static void store_token(const char *db, const char *text, const char *user, enum token_role role, char **namespaces,
                        int32_t uid)
{
    struct token t = {.created_ms = clock_wall_ms(),
                      .spec = {.user = (char *)user, .namespaces = namespaces, .uid = uid, .gid = uid, .role = role}};
    memcpy(t.id, text, 6);
    unsigned int n;
    EVP_Digest(text, strlen(text), t.digest, &n, EVP_sha256(), NULL);
    char *json = token_to_store_json(&t);
    sqlite3 *h;
    sqlite3_stmt *stmt;
    REQUIRE(json && sqlite3_open(db, &h) == SQLITE_OK);
    REQUIRE(sqlite3_prepare_v2(h, "INSERT INTO objects(kind, namespace, name, json) VALUES ('Token', '', ?1, ?2)", -1,
                               &stmt, NULL) == SQLITE_OK);
    sqlite3_bind_text(stmt, 1, t.id, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, json, -1, SQLITE_STATIC);
    CHECK_INT(sqlite3_step(stmt), SQLITE_DONE);
    sqlite3_finalize(stmt);
    sqlite3_close(h);
    free(json);
}

static void stored_tokens_authenticate_their_users(void)
{
    struct tmp_db db;
    REQUIRE(tmp_db_make(&db));
    struct store *s;
    char err[256];
    REQUIRE(store_open(db.path, &s, err, sizeof err) == 0);
    store_close(s);
    char *team_a[] = {"team-a", NULL}, *every[] = {"*", NULL};
    const char *alice = "alice1.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", *root = "admin1.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    store_token(db.path, alice, "alice", TOKEN_ROLE_USER, team_a, 1001);
    store_token(db.path, root, "admin", TOKEN_ROLE_ADMIN, every, -1);

    struct auth *a;
    const struct auth_config cfg = {.required = true};
    REQUIRE(auth_new(&cfg, &a, err, sizeof err) == 0);
    REQUIRE(auth_load(a, db.path, err, sizeof err) == 0);
    struct principal *p = NULL;
    struct api_status st = {0};
    REQUIRE(auth_authenticate_token(a, alice, strlen(alice), false, &p, &st) == 0);
    CHECK_STR(principal_user(p), "alice");
    CHECK_INT(p->uid, 1001);
    CHECK_STR(p->token_id, "alice1");
    CHECK(principal_writes_namespace(p, "team-a") && !principal_reads_namespace(p, "team-b"));
    principal_release(p);
    const char *wrong = "alice1.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"; /* the id alone is not enough */
    CHECK_INT(auth_authenticate_token(a, wrong, strlen(wrong), true, &p, &st), -1);
    CHECK_INT(st.code, 401);

    /* Lists: an admin sees every token, a user its own; no token text anywhere. */
    REQUIRE(auth_authenticate_token(a, root, strlen(root), false, &p, &st) == 0);
    json_t *list = auth_list_tokens(a, p);
    CHECK_INT(json_array_size(json_object_get(list, "items")), 2);
    char *text = json_dumps(list, 0);
    CHECK(!strstr(text, "aaaaaaaaaaaaaaaa") && !strstr(text, "sha256"));
    free(text);
    json_decref(list);
    principal_release(p);
    REQUIRE(auth_authenticate_token(a, alice, strlen(alice), false, &p, &st) == 0);
    list = auth_list_tokens(a, p);
    CHECK_INT(json_array_size(json_object_get(list, "items")), 1);
    json_decref(list);
    json_t *one = NULL;
    CHECK_INT(auth_get_token(a, "admin1", p, &one, &st), -1);
    CHECK_INT(st.code, 403);
    CHECK_INT(auth_get_token(a, "nope00", p, &one, &st), -1);
    CHECK_INT(st.code, 404);
    CHECK_INT(auth_get_token(a, "alice1", p, &one, &st), 0);
    json_decref(one);
    principal_release(p);
    auth_free(a);
    tmp_db_remove(&db);
}

TEST_MAIN(TEST_CASE(tokens_are_id_dot_secret_and_never_repeat), TEST_CASE(a_token_is_stored_as_its_sha256),
          TEST_CASE(token_bodies_flat_or_as_objects), TEST_CASE(token_rules_name_the_field),
          TEST_CASE(roles_read_and_write_their_namespaces), TEST_CASE(paths_read_as_kubernetes_reads_them),
          TEST_CASE(decisions_and_their_403), TEST_CASE(loopback_is_127_slash_8_and_colon_colon_1),
          TEST_CASE(anonymous_requests_only_from_loopback_without_auth),
          TEST_CASE(stored_tokens_authenticate_their_users))
