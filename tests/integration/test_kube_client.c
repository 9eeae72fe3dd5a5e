/* The kube backend's API client (runtime/kube/) against a second jobserver standing in for a cluster
 * (it speaks the same API, watch included), reached through a kubeconfig with a bearer token: a Volcano
 * Job created, watched from its resourceVersion to Completed (bookmarks seen), its pod listed and its
 * log read, deleted, and a too old resourceVersion answered with the re-list signal. The requests sent
 * are compared with golden files in tests/unit/data/kube/<step>.http (the server's address, the token
 * and resourceVersions written as SERVER, TOKEN and RV); after a deliberate change regenerate them with
 *     UPDATE_GOLDEN=1 build/asan/tests/integration/test_kube_client
 * from the repository root, and review the diff. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapters/objects/kubeconfig.h"
#include "common/fs.h"
#include "common/sbuf.h"
#include "runtime/kube/kube_client.h"
#include "tests/lib/job_client.h"
#include "tests/lib/kube_stand_in.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define GOLDEN_DIR "tests/unit/data/kube"
#define VOLCANO "batch.volcano.sh/v1alpha1"
#define JOB_NAME "kjob"
#define JOB_BODY                                                                                                    \
    "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"kjob\"},\"spec\":{"    \
    "\"minAvailable\":1,\"schedulerName\":\"volcano\",\"queue\":\"default\",\"tasks\":[{\"name\":\"w\","            \
    "\"replicas\":1,\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\",\"image\":" \
    "\"busybox\",\"command\":[\"sh\",\"-c\",\"echo hello from the cluster; sleep 1\"]}]}}}]}}"

static const char *const server_args[] = {"--auth", "--schedule-period", "100", "--watch-bookmark-interval",
                                          "200ms",  "--watch-window",    "1s",  NULL};

/* What the client sent since the last step. */
static struct sbuf wire;

static void record(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    sbuf_append(&wire, data, len);
}

/* A kubeconfig naming the server and the token, written into the server's data directory, read back as
 * the backend will read one, and a client on it. */
static struct kube_client *client_for(const struct test_server *s, const char *token)
{
    char path[400], text[2048];
    snprintf(path, sizeof path, "%s/kubeconfig", s->data_dir);
    snprintf(text, sizeof text,
             "apiVersion: v1\nkind: Config\ncurrent-context: stand-in\n"
             "clusters:\n- name: caldera\n  cluster:\n    server: %s\n"
             "contexts:\n- name: stand-in\n  context: {cluster: caldera, user: admin, namespace: default}\n"
             "users:\n- name: admin\n  user:\n    tokenFile: token\n",
             s->url);
    char tpath[400];
    snprintf(tpath, sizeof tpath, "%s/token", s->data_dir);
    if (write_file_atomic(path, text, strlen(text), 0600) != 0 || write_file_atomic(tpath, token, strlen(token), 0600))
        return NULL;
    char *data = NULL, dir[400];
    size_t len = 0;
    snprintf(dir, sizeof dir, "%s", path);
    struct kubeconfig kc;
    struct api_status st = {0};
    struct kube_client *c = NULL;
    struct kube_client_options opt = {.timeout_ms = 10000, .sent = record};
    if (read_file(path, 1 << 20, &data, &len) == 0 && kubeconfig_parse(data, len, dirname(dir), NULL, &kc, &st) == 0) {
        if (kube_client_open(&kc, &opt, &c, &st) != 0)
            fprintf(stderr, "kube_client_open: %s\n", st.message);
        kubeconfig_free(&kc);
    } else {
        fprintf(stderr, "kubeconfig: %s\n", st.message);
    }
    free(data);
    return c;
}

/* The recorded requests with what changes between runs written as SERVER, TOKEN and RV. */
static char *normalised(const struct test_server *s, const char *token)
{
    struct sbuf out = {0};
    const char *host = s->url + strlen("http://");
    const char *p = sbuf_str(&wire);
    while (*p) {
        if (strncmp(p, host, strlen(host)) == 0) {
            sbuf_puts(&out, "SERVER");
            p += strlen(host);
        } else if (strncmp(p, token, strlen(token)) == 0) {
            sbuf_puts(&out, "TOKEN");
            p += strlen(token);
        } else if (strncmp(p, "resourceVersion=", 16) == 0 && p[16] >= '0' && p[16] <= '9') {
            sbuf_puts(&out, "resourceVersion=RV");
            for (p += 16; *p >= '0' && *p <= '9'; p++)
                ;
        } else if (*p == '\r') {
            p++; /* the files keep plain newlines */
        } else {
            sbuf_append(&out, p++, 1);
        }
    }
    sbuf_free(&wire);
    return sbuf_take(&out);
}

/* Compares what was sent since the last step with GOLDEN_DIR/<name>.http, or writes it under UPDATE_GOLDEN=1. */
static void check_sent(const char *name, const struct test_server *s, const char *token)
{
    char *text = normalised(s, token), path[256];
    REQUIRE(text);
    snprintf(path, sizeof path, "%s/%s.http", GOLDEN_DIR, name);
    if (getenv("UPDATE_GOLDEN")) {
        CHECK(mkdir_p(GOLDEN_DIR, 0755) == 0);
        CHECK(write_file_atomic(path, text, strlen(text), 0644) == 0);
        free(text);
        return;
    }
    char *want = NULL;
    size_t len = 0;
    if (read_file(path, 1u << 20, &want, &len) != 0)
        test_fail(__FILE__, __LINE__, "%s is missing (UPDATE_GOLDEN=1 writes it); the client sent:\n%s", path, text);
    else if (strcmp(want, text) != 0)
        test_fail(__FILE__, __LINE__, "%s differs from what the client sent (UPDATE_GOLDEN=1 rewrites it):\n%s", path,
                  text);
    free(want);
    free(text);
}

struct phases {
    long added, modified, deleted;
    bool completed;
};

static int follow_job(void *ctx, enum kube_event_type type, json_t *object)
{
    struct phases *ph = ctx;
    if (type == KUBE_ADDED)
        ph->added++;
    else if (type == KUBE_MODIFIED)
        ph->modified++;
    else if (type == KUBE_DELETED)
        ph->deleted++;
    const char *phase = jv_str(object, "status.state.phase");
    ph->completed = type != KUBE_BOOKMARK && phase && strcmp(phase, "Completed") == 0;
    return ph->completed; /* stop there */
}

static void a_job_through_the_client(void)
{
    struct test_server s;
    char token[256], jobs[256], job[256], pods[256], log[256];
    REQUIRE(server_start(&s, NULL, server_args) == 0);
    REQUIRE(stand_in_admin_token(&s, token, sizeof token));
    struct kube_client *c = client_for(&s, token);
    REQUIRE(c);
    CHECK_STR(kube_client_namespace(c), "default");
    const char *ns = kube_client_namespace(c);
    REQUIRE(kube_path(jobs, sizeof jobs, VOLCANO, ns, "jobs", NULL, NULL) == 0);
    REQUIRE(kube_path(job, sizeof job, VOLCANO, ns, "jobs", JOB_NAME, NULL) == 0);
    REQUIRE(kube_path(pods, sizeof pods, "v1", ns, "pods", NULL, NULL) == 0);
    REQUIRE(kube_path(log, sizeof log, "v1", ns, "pods", JOB_NAME "-w-0", "log") == 0);
    sbuf_free(&wire);

    struct api_status st = {0};
    json_t *created = NULL;
    REQUIRE(kube_create(c, jobs, JOB_BODY, &created, &st) == KUBE_OK);
    check_sent("create", &s, token);
    struct kube_watch w = {.path = jobs, .field_selector = "metadata.name=" JOB_NAME, .timeout_s = 60};
    snprintf(w.resource_version, sizeof w.resource_version, "%s", jv_str(created, "metadata.resourceVersion"));
    json_decref(created);

    /* The same name again: the server's Status, read back. */
    CHECK_INT(kube_create(c, jobs, JOB_BODY, NULL, &st), KUBE_ERROR);
    CHECK_INT(st.code, 409);
    CHECK_STR(st.reason, "AlreadyExists");
    CHECK_STR(st.name, JOB_NAME);
    sbuf_free(&wire);

    struct phases ph = {0};
    w.on_event = follow_job;
    w.ctx = &ph;
    memset(&st, 0, sizeof st);
    int rc = kube_watch(c, &w, &st);
    CHECK_INT(rc, KUBE_STOPPED);
    CHECK(ph.completed);
    CHECK(ph.modified >= 2); /* Pending or Running, then Completed */
    CHECK_INT(ph.added, 0);  /* from a resourceVersion: changes only */
    CHECK(w.bookmarks >= 1);
    CHECK_INT(w.events, ph.added + ph.modified + ph.deleted);
    fprintf(stderr, "# watch: %ld events (%ld modified), %ld bookmarks, last resourceVersion %s\n", w.events,
            ph.modified, w.bookmarks, w.resource_version);
    check_sent("watch", &s, token);

    json_t *obj = NULL;
    REQUIRE(kube_get(c, job, &obj, &st) == KUBE_OK);
    CHECK_STR(jv_str(obj, "status.state.phase"), "Completed");
    json_decref(obj);
    check_sent("get", &s, token);

    REQUIRE(kube_list(c, pods, "volcano.sh/job-name=" JOB_NAME, &obj, &st) == KUBE_OK);
    CHECK_INT(json_array_size(json_object_get(obj, "items")), 1);
    CHECK_STR(jv_str(obj, "items.0.metadata.name"), JOB_NAME "-w-0");
    CHECK_STR(jv_str(obj, "items.0.status.phase"), "Succeeded");
    CHECK(jv_str(obj, "metadata.resourceVersion") != NULL);
    json_decref(obj);
    check_sent("list_pods", &s, token);

    char *text = NULL;
    size_t len = 0;
    REQUIRE(kube_get_text(c, log, "container=c", &text, &len, &st) == KUBE_OK);
    CHECK_STR(text, "hello from the cluster\n");
    free(text);
    check_sent("log", &s, token);

    REQUIRE(kube_delete(c, job, &obj, &st) == KUBE_OK);
    json_decref(obj);
    check_sent("delete", &s, token);
    memset(&st, 0, sizeof st);
    CHECK_INT(kube_get(c, job, NULL, &st), KUBE_ERROR);
    CHECK_INT(st.code, 404);
    CHECK_STR(st.reason, "NotFound");
    sbuf_free(&wire);
    kube_client_close(c);

    /* A resourceVersion the server no longer keeps (a restart empties its memory; the window is 1 s). */
    server_stop(&s);
    sleep(2);
    REQUIRE(server_start(&s, s.data_dir, server_args) == 0);
    c = client_for(&s, token);
    REQUIRE(c);
    struct kube_watch old = {.path = jobs, .resource_version = "1", .timeout_s = 10};
    memset(&st, 0, sizeof st);
    CHECK_INT(kube_watch(c, &old, &st), KUBE_GONE);
    CHECK_INT(st.code, 410);
    CHECK_STR(st.reason, "Expired");
    check_sent("watch_gone", &s, token);
    kube_client_close(c);
    server_cleanup(&s);
}

/* No server there: the transport's failure, never a Status the server did not send. */
static void an_unreachable_server(void)
{
    struct kubeconfig kc = {.server = "http://127.0.0.1:1", .ns = "default"};
    struct kube_client_options opt = {.timeout_ms = 2000, .connect_timeout_ms = 1000};
    struct kube_client *c = NULL;
    struct api_status st = {0};
    REQUIRE(kube_client_open(&kc, &opt, &c, &st) == 0);
    CHECK_INT(kube_get(c, "/api/v1/namespaces/default/pods", NULL, &st), KUBE_UNREACHABLE);
    CHECK_INT(st.code, 503);
    CHECK_STR(st.reason, "ServiceUnavailable");
    kube_client_close(c);
}

TEST_MAIN(TEST_CASE(a_job_through_the_client), TEST_CASE(an_unreachable_server))
