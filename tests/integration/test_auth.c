/* Authentication and authorization on real servers (loopback only): --auth refuses requests without
 * a valid token; the bootstrap admin token (0600) creates tenants; two tenants cannot see each other's
 * jobs, pods, logs or history by GET or list; roles, admin-only objects and the tasks' uid/gid
 * (`id -u` in the task's log) hold; deletion revokes at once; tokens survive a restart; refusals are
 * audited; jobctl speaks with tokens; a TokenReview webhook resolves tokens the server does not know. */
#include <microhttpd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "common/sbuf.h"
#include "common/uuid.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"
#include "tests/lib/tmpdb.h"

#define VCJOBS "/apis/batch.volcano.sh/v1alpha1"
#define TOKENS "/apis/caldera.io/v1/tokens"
#define QUEUES "/apis/scheduling.volcano.sh/v1beta1/queues"
#define TOKEN_MAX 128

static const char *const auth_args[] = {"--auth", NULL};

/* A job printing the uid and gid its task runs as. */
static const char *const ids_job =
    "apiVersion: batch.volcano.sh/v1alpha1\n"
    "kind: Job\n"
    "metadata: {name: %s}\n"
    "spec:\n"
    "  tasks:\n"
    "  - name: w\n"
    "    replicas: 1\n"
    "    template:\n"
    "      spec:\n"
    "%s"
    "        containers:\n"
    "        - name: c\n"
    "          command: [sh, -c, 'id -u; id -g']\n";

static json_t *call(const struct test_server *s, const char *token, const char *method, const char *path,
                    const char *body, long *code)
{
    return server_request_as(s, token, method, path, body, body ? "application/yaml" : NULL, code);
}

/* The code of a request, its body dropped. */
static long code_of(const struct test_server *s, const char *token, const char *method, const char *path,
                    const char *body)
{
    long code = 0;
    json_decref(call(s, token, method, path, body, &code));
    return code;
}

static const char *str_at(json_t *v, const char *path) { return json_string_value(server_json_at(v, path)); }

/* The admin creates a token; its text goes into out. Returns the HTTP code. */
static long make_token(const struct test_server *s, const char *admin, const char *body, char out[TOKEN_MAX])
{
    long code = 0;
    json_t *answer = server_request_as(s, admin, "POST", TOKENS, body, "application/json", &code);
    const char *token = str_at(answer, "status.token");
    snprintf(out, TOKEN_MAX, "%s", token ? token : "");
    json_decref(answer);
    return code;
}

static bool read_admin_token(const struct test_server *s, char out[TOKEN_MAX], mode_t *mode)
{
    char path[400], *data = NULL;
    size_t len = 0;
    struct stat st;
    snprintf(path, sizeof path, "%s/admin.token", s->data_dir);
    if (stat(path, &st) != 0 || read_file(path, TOKEN_MAX, &data, &len) != 0)
        return false;
    *mode = st.st_mode & 07777;
    while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == ' '))
        data[--len] = '\0';
    snprintf(out, TOKEN_MAX, "%s", data);
    free(data);
    return len > 0;
}

/* Whether a list's items hold an object of that name. */
/* Whether the list at path shows the object name (a job's PodGroup: "<name>-<job uid>"). */
static bool lists(const struct test_server *s, const char *token, const char *path, const char *name)
{
    json_t *list = call(s, token, "GET", path, NULL, NULL);
    bool found = false;
    size_t i, n = strlen(name);
    json_t *item;
    json_array_foreach(json_object_get(list, "items"), i, item)
    {
        const char *have = str_at(item, "metadata.name") ? str_at(item, "metadata.name") : "";
        found = found || (strncmp(have, name, n) == 0 &&
                          (have[n] == '\0' || (have[n] == '-' && strlen(have + n + 1) == UUID_STR_LEN - 1)));
    }
    json_decref(list);
    return found;
}

static long long audits(const struct test_server *s, const char *user, const char *reason, const char *ns)
{
    char db[400], sql[400];
    snprintf(db, sizeof db, "%s/caldera.db", s->data_dir);
    snprintf(sql, sizeof sql,
             "SELECT COUNT(*) FROM events WHERE kind = 'Audit' AND name = '%s' AND reason = '%s' AND namespace = '%s'",
             user, reason, ns);
    long long n = 0;
    for (int i = 0; i < 100 && (n = tmp_db_query_int(db, sql)) <= 0; i++) { /* posted without waiting */
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
    }
    return n;
}

static char *job_yaml(const char *name, const char *pod_security)
{
    char *yaml = NULL;
    if (asprintf(&yaml, ids_job, name, pod_security) < 0)
        return NULL;
    return yaml;
}

/* --- the cases ----------------------------------------------------------------------------------- */

/* --auth: no token or a wrong one is 401 (audited); /healthz needs none; the bootstrap admin token is
 * 0600 and works; a created token is shown once. */
static void requests_need_a_token_and_the_first_admin_has_one(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, auth_args) == 0);
    CHECK_INT(code_of(&s, NULL, "GET", "/api/v1/nodes", NULL), 401);
    long code;
    json_t *st = call(&s, "abcdef.0123456789012345678901234567890x", "GET", VCJOBS "/jobs", NULL, &code);
    CHECK_INT(code, 401);
    CHECK_STR(str_at(st, "reason"), "Unauthorized");
    CHECK_STR(str_at(st, "kind"), "Status");
    json_decref(st);
    CHECK_INT(code_of(&s, NULL, "GET", "/healthz", NULL), 200);

    char admin[TOKEN_MAX], alice[TOKEN_MAX];
    mode_t mode = 0;
    REQUIRE(read_admin_token(&s, admin, &mode));
    CHECK_INT(mode, 0600);
    CHECK_INT(code_of(&s, admin, "GET", "/api/v1/nodes", NULL), 200);
    CHECK_INT(make_token(&s, admin,
                         "{\"user\":\"alice\",\"namespaces\":[\"team-a\"],\"uid\":1001,\"gid\":1001,"
                         "\"role\":\"user\"}",
                         alice),
              201);
    CHECK_INT(strlen(alice), 39);
    json_t *shown = call(&s, admin, "GET", TOKENS, NULL, &code);
    char *text = json_dumps(shown, JSON_COMPACT);
    CHECK_INT(code, 200);
    CHECK(text && !strstr(text, alice + 7) && !strstr(text, "\"status\"")); /* never again */
    CHECK_CONTAINS(text, "\"user\":\"alice\"");
    free(text);
    json_decref(shown);
    char path[128];
    snprintf(path, sizeof path, TOKENS "/%.6s", alice);
    json_t *one = call(&s, alice, "GET", path, NULL, &code); /* one's own */
    CHECK_INT(code, 200);
    CHECK(server_json_at(one, "status") == NULL);
    CHECK_INT(json_integer_value(server_json_at(one, "spec.uid")), 1001);
    json_decref(one);
    CHECK(audits(&s, "anonymous", "Unauthorized", "") >= 2);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* Two tenants: each sees and acts only in its namespaces, whatever the path; tasks run as the token's
 * ids; roles and admin-only objects hold; a deleted token is refused at once; tokens survive a
 * restart; every refusal is an Audit event. */
static void tenants_cannot_see_each_other(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, auth_args) == 0);
    char admin[TOKEN_MAX], alice[TOKEN_MAX], bob[TOKEN_MAX], val[TOKEN_MAX];
    mode_t mode;
    REQUIRE(read_admin_token(&s, admin, &mode));
    REQUIRE(make_token(&s, admin, "{\"user\":\"alice\",\"namespaces\":[\"team-a\"],\"uid\":1001,\"gid\":1001}",
                       alice) == 201);
    REQUIRE(make_token(&s, admin, "{\"user\":\"bob\",\"namespaces\":[\"team-b\"],\"uid\":1002,\"gid\":1002}", bob) ==
            201);
    REQUIRE(make_token(&s, admin, "{\"user\":\"val\",\"namespaces\":[\"team-a\"],\"role\":\"viewer\"}", val) == 201);

    char *yaml = job_yaml("ids", "");
    CHECK_INT(code_of(&s, alice, "POST", VCJOBS "/namespaces/team-a/jobs", yaml), 201);
    CHECK_INT(
        server_wait_field_as(&s, alice, VCJOBS "/namespaces/team-a/jobs/ids", "status.state.phase", "Completed", 30000),
        0);
    long code;
    char *log = server_request_text_as(&s, alice, "GET", "/api/v1/namespaces/team-a/pods/ids-w-0/log", &code);
    CHECK_INT(code, 200);
    if (geteuid() == 0)
        CHECK_STR(log, "1001\n1001\n"); /* the token's uid and gid, whatever the manifest */
    free(log);
    json_t *job = call(&s, alice, "GET", VCJOBS "/namespaces/team-a/jobs/ids", NULL, &code);
    CHECK_INT(json_integer_value(server_json_at(job, "spec.tasks.0.template.spec.securityContext.runAsUser")), 1001);
    json_decref(job);

    /* bob reads nothing of team-a's, by any path */
    static const char *const team_a_paths[] = {
        VCJOBS "/namespaces/team-a/jobs/ids",
        VCJOBS "/namespaces/team-a/jobs",
        "/api/v1/namespaces/team-a/pods/ids-w-0",
        "/api/v1/namespaces/team-a/pods/ids-w-0/log",
        "/apis/scheduling.volcano.sh/v1beta1/namespaces/team-a/podgroups/ids",
        "/apis/caldera.io/v1/namespaces/team-a/jobs/ids/history",
        "/apis/caldera.io/v1/namespaces/team-a/jobs/ids/history/pods/ids-w-0/attempts/1/log",
        "/apis/caldera.io/v1/namespaces/team-a/jobhistories",
        "/apis/caldera.io/v1/namespaces/team-a/jobs/ids/manifest",
    };
    for (size_t i = 0; i < sizeof team_a_paths / sizeof team_a_paths[0]; i++) {
        json_t *refused = call(&s, bob, "GET", team_a_paths[i], NULL, &code);
        if (code != 403)
            test_fail(__FILE__, __LINE__, "bob GET %s: %ld, expected 403", team_a_paths[i], code);
        CHECK_STR(str_at(refused, "reason"), "Forbidden");
        json_decref(refused);
    }
    json_t *refused = call(&s, bob, "GET", VCJOBS "/namespaces/team-a/jobs/ids", NULL, &code);
    CHECK_STR(str_at(refused, "message"),
              "jobs.batch.volcano.sh \"ids\" is forbidden: User \"bob\" cannot get "
              "resource \"jobs\" in API group \"batch.volcano.sh\" in the namespace "
              "\"team-a\": the token's namespaces are team-b");
    json_decref(refused);
    /* ... nor in lists across namespaces, which alice's show */
    static const char *const lists_all[] = {VCJOBS "/jobs", "/apis/scheduling.volcano.sh/v1beta1/podgroups",
                                            "/apis/caldera.io/v1/jobhistories"};
    for (size_t i = 0; i < sizeof lists_all / sizeof lists_all[0]; i++) {
        CHECK(!lists(&s, bob, lists_all[i], "ids"));
        CHECK(lists(&s, alice, lists_all[i], "ids"));
    }
    CHECK(!lists(&s, bob, "/api/v1/pods", "ids-w-0"));
    CHECK(lists(&s, alice, "/api/v1/pods", "ids-w-0"));
    CHECK(lists(&s, val, VCJOBS "/jobs", "ids")); /* a viewer of team-a */

    /* writes: own namespace only, users only; queues are the admins' */
    char *other = job_yaml("elsewhere", "");
    CHECK_INT(code_of(&s, alice, "POST", VCJOBS "/namespaces/team-b/jobs", other), 403);
    CHECK_INT(code_of(&s, val, "POST", VCJOBS "/namespaces/team-a/jobs", other), 403);
    CHECK_INT(code_of(&s, val, "GET", VCJOBS "/namespaces/team-a/jobs/ids", NULL), 200);
    CHECK_INT(code_of(&s, bob, "DELETE", VCJOBS "/namespaces/team-a/jobs/ids", NULL), 403);
    free(other);
    char *root = job_yaml("as-root", "        securityContext: {runAsUser: 0}\n");
    json_t *st = call(&s, alice, "POST", VCJOBS "/namespaces/team-a/jobs", root, &code);
    CHECK_INT(code, 403);
    CHECK_STR(str_at(st, "details.causes.0.field"), "spec.tasks[0].template.spec.securityContext.runAsUser");
    CHECK_CONTAINS(str_at(st, "details.causes.0.message"), "runs as uid 1001, not 0");
    json_decref(st);
    free(root);
    CHECK_INT(code_of(&s, alice, "GET", QUEUES, NULL), 200);
    CHECK_INT(code_of(&s, alice, "GET", QUEUES "/default", NULL), 200);
    CHECK_INT(code_of(&s, alice, "POST", QUEUES,
                      "{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":\"Queue\",\"metadata\":{\"name\":"
                      "\"mine\"}}"),
              403);
    CHECK_INT(code_of(&s, alice, "POST", "/apis/bus.volcano.sh/v1alpha1/namespaces/team-a/commands",
                      "{\"apiVersion\":\"bus.volcano.sh/v1alpha1\",\"kind\":\"Command\",\"metadata\":{\"name\":\"c\"},"
                      "\"action\":\"CloseQueue\",\"target\":{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\","
                      "\"kind\":\"Queue\",\"name\":\"default\"}}"),
              403);
    CHECK_INT(code_of(&s, alice, "POST", TOKENS, "{\"user\":\"mallory\",\"role\":\"admin\"}"), 403);
    CHECK_INT(code_of(&s, alice, "GET", "/metrics", NULL), 403);
    CHECK_INT(code_of(&s, admin, "GET", "/metrics", NULL), 200);
    CHECK(audits(&s, "bob", "Forbidden", "team-a") >= 9);
    CHECK(audits(&s, "alice", "Forbidden", "team-a") >= 1); /* the root manifest */

    /* a deleted token is refused at once; the others survive a restart */
    char path[128];
    snprintf(path, sizeof path, TOKENS "/%.6s", bob);
    CHECK_INT(code_of(&s, bob, "GET", QUEUES, NULL), 200);
    CHECK_INT(code_of(&s, admin, "DELETE", path, NULL), 200);
    CHECK_INT(code_of(&s, bob, "GET", QUEUES, NULL), 401);
    CHECK_INT(code_of(&s, admin, "DELETE", path, NULL), 404);
    CHECK_INT(server_stop(&s), 0);
    REQUIRE(server_start(&s, s.data_dir, auth_args) == 0);
    char again[TOKEN_MAX];
    REQUIRE(read_admin_token(&s, again, &mode));
    CHECK_STR(again, admin); /* an admin token was stored: none is made anew */
    CHECK_INT(code_of(&s, alice, "GET", VCJOBS "/namespaces/team-a/jobs/ids", NULL), 200);
    CHECK_INT(code_of(&s, val, "GET", VCJOBS "/namespaces/team-a/jobs/ids", NULL), 200);
    CHECK_INT(code_of(&s, bob, "GET", QUEUES, NULL), 401);
    CHECK_INT(code_of(&s, admin, "GET", TOKENS, NULL), 200);
    free(yaml);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* A PyTorchJob's tasks run as its poster too; a refusal names the PyTorchJob's own field. A user
 * whose token has no ids creates nothing. Without --auth, loopback is an admin. */
static void dialects_and_the_anonymous_loopback_admin(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, NULL) == 0); /* no --auth */
    CHECK_INT(code_of(&s, NULL, "GET", VCJOBS "/jobs", NULL), 200);
    CHECK_INT(code_of(&s, "abcdef.0123456789012345678901234567890x", "GET", VCJOBS "/jobs", NULL), 401);
    char admin[TOKEN_MAX], carol[TOKEN_MAX];
    mode_t mode;
    REQUIRE(read_admin_token(&s, admin, &mode)); /* made even without --auth, for a later --auth */
    CHECK_INT(make_token(&s, NULL, "{\"user\":\"carol\",\"namespaces\":[\"team-c\"],\"uid\":1003,\"gid\":1003}", carol),
              201);
    const char *pytorch =
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: mnist}\nspec:\n  pytorchReplicaSpecs:\n"
        "    Master:\n      template:\n        spec:\n          securityContext: {runAsGroup: 0}\n"
        "          containers:\n          - name: pytorch\n            command: [sh, -c, 'id -u']\n";
    long code;
    json_t *st = call(&s, carol, "POST", "/apis/kubeflow.org/v1/namespaces/team-c/pytorchjobs", pytorch, &code);
    CHECK_INT(code, 403);
    CHECK_STR(str_at(st, "details.causes.0.field"),
              "spec.pytorchReplicaSpecs.Master.template.spec.securityContext.runAsGroup");
    CHECK_STR(str_at(st, "details.kind"), "pytorchjobs");
    json_decref(st);
    char viewer_admin[TOKEN_MAX];
    CHECK_INT(make_token(&s, admin, "{\"user\":\"ops\",\"role\":\"admin\"}", viewer_admin), 201);
    char *yaml = job_yaml("by-admin", "        securityContext: {runAsUser: 0}\n");
    CHECK_INT(code_of(&s, viewer_admin, "POST", VCJOBS "/namespaces/any/jobs", yaml), 201); /* no ids: the manifest's */
    free(yaml);
    CHECK_INT(server_stop(&s), 0);
    char log[64 * 1024], path[400];
    snprintf(path, sizeof path, "%s/jobserver.log", s.data_dir);
    char *text = NULL;
    if (read_file(path, sizeof log, &text, NULL) == 0)
        CHECK_CONTAINS(text, "auth: off: anonymous requests are taken from loopback only");
    free(text);
    server_cleanup(&s);
}

/* jobctl: --token on every request, token create/list/delete, 401 and 403 in one line each. */
static void jobctl_speaks_with_tokens(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, auth_args) == 0);
    char admin[TOKEN_MAX];
    mode_t mode;
    REQUIRE(read_admin_token(&s, admin, &mode));
    char *out = NULL, *err = NULL;
    const char *create[] = {"--token",     admin,    "token", "create", "--user", "erin", "--namespace", "team-e",
                            "--namespace", "team-f", "--uid", "1005",   "--gid",  "1005", NULL};
    CHECK_INT(server_jobctl(&s, create, &out, &err), 0);
    CHECK_CONTAINS(err, "created for user erin (role user)");
    char erin[TOKEN_MAX];
    snprintf(erin, sizeof erin, "%.*s", (int)strcspn(out ? out : "", "\n"), out ? out : "");
    CHECK_INT(strlen(erin), 39);
    free(out);
    free(err);
    const char *list[] = {"--token", admin, "token", "list", NULL};
    CHECK_INT(server_jobctl(&s, list, &out, &err), 0);
    CHECK_CONTAINS(out, "team-e,team-f");
    CHECK_CONTAINS(out, "erin");
    CHECK(!strstr(out, erin + 7));
    free(out);
    free(err);
    const char *get[] = {"get", NULL};
    CHECK_INT(server_jobctl(&s, get, &out, &err), 1);
    CHECK_CONTAINS(err, "jobctl: not authenticated: ");
    CHECK_CONTAINS(err, "--token");
    CHECK(err && strchr(err, '\n') == err + strlen(err) - 1); /* one line */
    free(out);
    free(err);
    const char *queue[] = {"--token", erin, "queue", "create", "mine", NULL};
    CHECK_INT(server_jobctl(&s, queue, &out, &err), 1);
    CHECK_CONTAINS(err, "jobctl: not allowed: queues.scheduling.volcano.sh is forbidden: User \"erin\"");
    free(out);
    free(err);
    const char *mine[] = {"--token", erin, "-n", "team-f", "get", NULL};
    CHECK_INT(server_jobctl(&s, mine, &out, &err), 0);
    free(out);
    free(err);
    char id[8];
    snprintf(id, sizeof id, "%.6s", erin);
    const char *del[] = {"--token", admin, "token", "delete", id, NULL};
    CHECK_INT(server_jobctl(&s, del, &out, &err), 0);
    CHECK_CONTAINS(out, "deleted");
    free(out);
    free(err);
    CHECK_INT(server_jobctl(&s, mine, &out, &err), 1);
    CHECK_CONTAINS(err, "not authenticated");
    free(out);
    free(err);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* --- a TokenReview webhook in this process -------------------------------------------------------- */

static atomic_int reviews;

static enum MHD_Result review(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                              const char *version, const char *data, size_t *size, void **state)
{
    (void)cls, (void)url, (void)version;
    struct sbuf *body = *state;
    if (!body) {
        *state = calloc(1, sizeof *body);
        return *state ? MHD_YES : MHD_NO;
    }
    if (*size > 0) {
        sbuf_append(body, data, *size);
        *size = 0;
        return MHD_YES;
    }
    atomic_fetch_add(&reviews, 1);
    json_t *req = json_loads(sbuf_str(body), 0, NULL);
    const char *token = str_at(req, "spec.token");
    bool ok = strcmp(method, "POST") == 0 && strcmp(str_at(req, "kind") ? str_at(req, "kind") : "", "TokenReview") == 0;
    if (ok && token && strcmp(token, "slow-token") == 0)
        sleep(5); /* longer than the server waits */
    const char *answer =
        ok && token && strcmp(token, "ldap-carol") == 0
            ? "{\"apiVersion\":\"authentication.k8s.io/"
              "v1\",\"kind\":\"TokenReview\",\"status\":{\"authenticated\":true,"
              "\"user\":{\"username\":\"carol\",\"groups\":[\"staff\",\"caldera:user\"],\"extra\":{"
              "\"caldera.io/namespaces\":[\"team-c\"],\"caldera.io/uid\":[\"1003\"],\"caldera.io/gid\":[\"1004\"]}}}}"
            : "{\"apiVersion\":\"authentication.k8s.io/"
              "v1\",\"kind\":\"TokenReview\",\"status\":{\"authenticated\":false,"
              "\"error\":\"no such token in the directory\"}}";
    json_decref(req);
    struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(answer), (void *)answer, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(resp, "Content-Type", "application/json");
    enum MHD_Result rc = MHD_queue_response(conn, 200, resp);
    MHD_destroy_response(resp);
    return rc;
}

static void review_done(void *cls, struct MHD_Connection *conn, void **state, enum MHD_RequestTerminationCode toe)
{
    (void)cls, (void)conn, (void)toe;
    struct sbuf *body = *state;
    if (body)
        sbuf_free(body);
    free(body);
    *state = NULL;
}

static struct MHD_Daemon *start_reviewer(char *url, size_t len)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL,
                                            NULL, review, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                                            MHD_OPTION_NOTIFY_COMPLETED, review_done, NULL, MHD_OPTION_END);
    const union MHD_DaemonInfo *info = d ? MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT) : NULL;
    snprintf(url, len, "http://127.0.0.1:%u/review", info ? (unsigned)info->port : 0u);
    return d;
}

static void a_webhook_resolves_tokens_the_server_does_not_know(void)
{
    char url[128];
    struct MHD_Daemon *reviewer = start_reviewer(url, sizeof url);
    REQUIRE(reviewer);
    struct test_server s;
    const char *args[] = {"--auth", "--auth-webhook", url, NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);
    long code;
    char *yaml = job_yaml("carols", "");
    CHECK_INT(code_of(&s, "ldap-carol", "POST", VCJOBS "/namespaces/team-c/jobs", yaml), 201);
    CHECK_INT(server_wait_field_as(&s, "ldap-carol", VCJOBS "/namespaces/team-c/jobs/carols", "status.state.phase",
                                   "Completed", 30000),
              0);
    char *log = server_request_text_as(&s, "ldap-carol", "GET", "/api/v1/namespaces/team-c/pods/carols-w-0/log", &code);
    if (geteuid() == 0)
        CHECK_STR(log, "1003\n1004\n");
    free(log);
    CHECK_INT(code_of(&s, "ldap-carol", "GET", VCJOBS "/namespaces/team-a/jobs", NULL), 403);
    CHECK_INT(code_of(&s, "ldap-carol", "POST", QUEUES, "{}"), 403);
    CHECK_INT(atomic_load(&reviews), 1); /* asked once, then answered from the cache */
    json_t *st = call(&s, "ldap-nobody", "GET", VCJOBS "/jobs", NULL, &code);
    CHECK_INT(code, 401);
    CHECK_CONTAINS(str_at(st, "message"), "no such token in the directory");
    json_decref(st);
    CHECK_INT(code_of(&s, "ldap-nobody", "GET", VCJOBS "/jobs", NULL), 401);
    CHECK_INT(atomic_load(&reviews), 2); /* refusals are cached too */

    int64_t start = clock_mono_ms();
    st = call(&s, "slow-token", "GET", VCJOBS "/jobs", NULL, &code);
    int64_t took = clock_mono_ms() - start;
    CHECK_INT(code, 401);
    CHECK_CONTAINS(str_at(st, "message"), "could not be asked");
    CHECK(took < 4500); /* the webhook's 3 s, not its 5 */
    json_decref(st);
    MHD_stop_daemon(reviewer);
    st = call(&s, "ldap-dave", "GET", VCJOBS "/jobs", NULL, &code); /* the webhook is gone */
    CHECK_INT(code, 401);
    CHECK_CONTAINS(str_at(st, "message"), "could not be asked");
    json_decref(st);
    free(yaml);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

TEST_MAIN(TEST_CASE(requests_need_a_token_and_the_first_admin_has_one), TEST_CASE(tenants_cannot_see_each_other),
          TEST_CASE(dialects_and_the_anonymous_loopback_admin), TEST_CASE(jobctl_speaks_with_tokens),
          TEST_CASE(a_webhook_resolves_tokens_the_server_does_not_know))
