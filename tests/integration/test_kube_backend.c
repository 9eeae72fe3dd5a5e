/* The Kubernetes backend (runtime/kube/kube_backend.c) against a second jobserver standing in for the
 * cluster, through a kubeconfig with a bearer token: a real Volcano Job sent and its pods' attempts,
 * phases and log reported back, removed; suspended, resumed and stopped; a companion's token Secret
 * created owned by the Job; adopted by a reopened backend
 * without a second create, and resent after a restart (SENT, no second Job); the
 * stand-in restarted mid-job; a job deleted behind the backend's back; an unreachable cluster; a name
 * taken by another job; an invalid spec. The requests sent are compared with golden files
 * tests/unit/data/kube/backend_<step>.http (server, token, uids and resourceVersions normalised);
 * regenerate them with UPDATE_GOLDEN=1 build/asan/tests/integration/test_kube_backend and review the diff. */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "common/sbuf.h"
#include "runtime/backend.h"
#include "adapters/objects/kube_backend_open.h"
#include "tests/lib/job_client.h"
#include "tests/lib/kube_stand_in.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define GOLDEN_DIR "tests/unit/data/kube"
#define WAIT_MS 30000
#define JOB_FMT                                                                                                   \
    "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"%s\",\"namespace\":" \
    "\"default\"},\"spec\":{\"minAvailable\":%d,\"schedulerName\":\"volcano\",\"queue\":\"default\",\"tasks\":[%s]}}"
#define TASK_FMT                                                                                                     \
    "{\"name\":\"%s\",\"replicas\":1,\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":" \
    "\"c\",\"image\":\"busybox\",\"command\":[\"/bin/sh\",\"-c\",\"%s\"]}]}}}"

static const char *const server_args[] = {"--auth", "--schedule-period", "100", "--watch-bookmark-interval",
                                          "200ms",  "--watch-window",    "1s",  NULL};

/* --- what the backend reports -------------------------------------------------------------------- */

struct reports {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct backend_update *u[512];
    int n;
};

static struct reports got = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {0}, 0};

static void post(void *ctx, struct backend_update *u)
{
    struct reports *r = ctx;
    pthread_mutex_lock(&r->mu);
    if (r->n < (int)(sizeof r->u / sizeof r->u[0]))
        r->u[r->n++] = u;
    else
        backend_update_free(u);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void reports_clear(void)
{
    pthread_mutex_lock(&got.mu);
    for (int i = 0; i < got.n; i++)
        backend_update_free(got.u[i]);
    got.n = 0;
    pthread_mutex_unlock(&got.mu);
}

static const char *kind_name(enum backend_update_kind k)
{
    static const char *const names[] = {"SENT", "SEND_FAILED", "POD", "JOB_PHASE", "GONE", "REMOVED", "ENGINE"};
    return names[k];
}

static void reports_dump(void)
{
    pthread_mutex_lock(&got.mu);
    for (int i = 0; i < got.n; i++) {
        struct backend_update *u = got.u[i];
        fprintf(stderr,
                "#   %d %s %s ref=%s task=%s[%d] attempt=%u phase=%d node=%s exit=%d reason=%s job=%s retry=%d "
                "ok=%d retryable=%d msg=%s\n",
                i, kind_name(u->kind), u->job_uid, u->ref, u->task, u->index, u->attempt, (int)u->phase, u->node,
                u->exit_code, u->reason, u->job_phase, u->retry_count, u->ok, u->retryable, u->message);
    }
    pthread_mutex_unlock(&got.mu);
}

/* What a wanted report looks like: kind, and for BACKEND_POD the task and phase, for JOB_PHASE the phase. */
struct want {
    enum backend_update_kind kind;
    const char *task;
    int phase; /* enum backend_pod_phase; -1 any */
    const char *job_phase;
    int ok; /* BACKEND_ENGINE: 1, 0; -1 any */
};

static bool matches(const struct backend_update *u, const char *uid, const struct want *w)
{
    if (u->kind != w->kind || (uid && u->kind != BACKEND_ENGINE && strcmp(u->job_uid, uid) != 0))
        return false;
    if (w->task && strcmp(u->task, w->task) != 0)
        return false;
    if (w->phase >= 0 && u->kind == BACKEND_POD && (int)u->phase != w->phase)
        return false;
    if (w->job_phase && strcmp(u->job_phase, w->job_phase) != 0)
        return false;
    return w->ok < 0 || u->kind != BACKEND_ENGINE || (int)u->ok == w->ok;
}

/* The index of the first report from `from` on that matches, waiting up to ms; -1 when none came. */
static int wait_report(const char *uid, struct want w, int from, int ms)
{
    struct timespec until = clock_deadline(CLOCK_MONOTONIC, ms);
    int found = -1;
    pthread_mutex_lock(&got.mu);
    for (;;) {
        for (int i = from; i < got.n && found < 0; i++)
            if (matches(got.u[i], uid, &w))
                found = i;
        if (found >= 0 || clock_mono_ms() >= (int64_t)until.tv_sec * 1000 + until.tv_nsec / 1000000)
            break;
        struct timespec step = clock_deadline(CLOCK_REALTIME, 50);
        pthread_cond_timedwait(&got.cv, &got.mu, &step);
    }
    pthread_mutex_unlock(&got.mu);
    if (found < 0) {
        fprintf(stderr, "# no %s report (task %s, phase %d, job phase %s) for %s; the reports:\n", kind_name(w.kind),
                w.task ? w.task : "-", w.phase, w.job_phase ? w.job_phase : "-", uid ? uid : "-");
        reports_dump();
    }
    return found;
}

static int count_reports(const char *uid, struct want w)
{
    int n = 0;
    pthread_mutex_lock(&got.mu);
    for (int i = 0; i < got.n; i++)
        n += matches(got.u[i], uid, &w);
    pthread_mutex_unlock(&got.mu);
    return n;
}

static struct backend_update report_at(int i)
{
    pthread_mutex_lock(&got.mu);
    struct backend_update u = *got.u[i];
    pthread_mutex_unlock(&got.mu);
    return u;
}

#define W(kind) ((struct want){kind, NULL, -1, NULL, -1})
#define WPOD(task, phase) ((struct want){BACKEND_POD, task, phase, NULL, -1})
#define WPHASE(p) ((struct want){BACKEND_JOB_PHASE, NULL, -1, p, -1})
#define WENGINE(ok) ((struct want){BACKEND_ENGINE, NULL, -1, NULL, ok})

/* --- the requests sent ------------------------------------------------------------------------------ */

/* Each request as the client wrote it, its body joined to its header block (by thread: the backend's
 * threads write at once). */
static pthread_mutex_t wire_mu = PTHREAD_MUTEX_INITIALIZER;
static json_t *wire; /* array of {"thread", "text"} */

static void record(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    pthread_mutex_lock(&wire_mu);
    if (!wire)
        wire = json_array();
    char *text = strndup(data, len);
    unsigned long me = (unsigned long)pthread_self();
    bool header = strncmp(text, "GET ", 4) == 0 || strncmp(text, "POST ", 5) == 0 || strncmp(text, "DELETE ", 7) == 0 ||
                  strncmp(text, "PUT ", 4) == 0 || strncmp(text, "PATCH ", 6) == 0;
    json_t *last = NULL;
    for (size_t i = json_array_size(wire); !header && i > 0; i--) {
        json_t *e = json_array_get(wire, i - 1);
        if ((unsigned long)json_integer_value(json_object_get(e, "thread")) == me) {
            last = e;
            break;
        }
    }
    if (last) {
        char *joined = NULL;
        if (asprintf(&joined, "%s%s", json_string_value(json_object_get(last, "text")), text) > 0)
            json_object_set_new(last, "text", json_string(joined));
        free(joined);
    } else {
        json_array_append_new(wire, json_pack("{s:I,s:s}", "thread", (json_int_t)me, "text", text));
    }
    free(text);
    pthread_mutex_unlock(&wire_mu);
}

static void wire_clear(void)
{
    pthread_mutex_lock(&wire_mu);
    json_decref(wire);
    wire = NULL;
    pthread_mutex_unlock(&wire_mu);
}

static bool is_hex(const char *p, int n)
{
    for (int i = 0; i < n; i++)
        if (!isxdigit((unsigned char)p[i]))
            return false;
    return true;
}

/* A request with what changes between runs written as SERVER, TOKEN, UID and RV. */
static char *normalised(const char *text, const struct test_server *s, const char *token)
{
    struct sbuf out = {0};
    const char *host = s->url + strlen("http://");
    for (const char *p = text; *p;) {
        if (strncmp(p, host, strlen(host)) == 0) {
            sbuf_puts(&out, "SERVER");
            p += strlen(host);
        } else if (*token && strncmp(p, token, strlen(token)) == 0) {
            sbuf_puts(&out, "TOKEN");
            p += strlen(token);
        } else if (strlen(p) >= 36 && is_hex(p, 8) && p[8] == '-' && is_hex(p + 9, 4) && p[13] == '-' &&
                   is_hex(p + 14, 4) && p[18] == '-' && is_hex(p + 19, 4) && p[23] == '-' && is_hex(p + 24, 12)) {
            sbuf_puts(&out, "UID");
            p += 36;
        } else if (strncmp(p, "resourceVersion=", 16) == 0 && isdigit((unsigned char)p[16])) {
            sbuf_puts(&out, "resourceVersion=RV");
            for (p += 16; isdigit((unsigned char)*p); p++)
                ;
        } else if (*p == '\r') {
            p++;
        } else {
            sbuf_append(&out, p++, 1);
        }
    }
    return sbuf_take(&out);
}

/* The recorded requests whose first line holds `needle` (each distinct one once, sorted: threads race),
 * compared with GOLDEN_DIR/backend_<name>.http or written there under UPDATE_GOLDEN=1. */
static void check_sent(const char *name, const char *needle, const struct test_server *s, const char *token)
{
    json_t *texts = json_array(), *e;
    size_t i;
    pthread_mutex_lock(&wire_mu);
    json_array_foreach(wire, i, e)
    {
        const char *t = json_string_value(json_object_get(e, "text"));
        const char *eol = strchr(t, '\n');
        if (!eol || !memmem(t, (size_t)(eol - t), needle, strlen(needle)))
            continue;
        char *n = normalised(t, s, token);
        bool seen = false;
        json_t *x;
        size_t k;
        json_array_foreach(texts, k, x) seen = seen || strcmp(json_string_value(x), n) == 0;
        if (!seen)
            json_array_append_new(texts, json_string(n));
        free(n);
    }
    pthread_mutex_unlock(&wire_mu);
    size_t n = json_array_size(texts);
    for (size_t a = 0; a + 1 < n; a++) /* sort */
        for (size_t b = a + 1; b < n; b++)
            if (strcmp(json_string_value(json_array_get(texts, a)), json_string_value(json_array_get(texts, b))) > 0) {
                json_t *ta = json_incref(json_array_get(texts, a));
                json_array_set(texts, a, json_array_get(texts, b));
                json_array_set_new(texts, b, ta);
            }
    struct sbuf all = {0};
    json_array_foreach(texts, i, e)
    {
        sbuf_puts(&all, json_string_value(e));
        sbuf_puts(&all, "\n----\n");
    }
    json_decref(texts);
    char path[256], *want = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/backend_%s.http", GOLDEN_DIR, name);
    CHECK(n > 0);
    if (getenv("UPDATE_GOLDEN")) {
        CHECK(write_file_atomic(path, sbuf_str(&all), all.len, 0644) == 0);
    } else if (read_file(path, 1u << 20, &want, &len) != 0) {
        test_fail(__FILE__, __LINE__, "%s is missing (UPDATE_GOLDEN=1 writes it); the backend sent:\n%s", path,
                  sbuf_str(&all));
    } else if (strcmp(want, sbuf_str(&all)) != 0) {
        test_fail(__FILE__, __LINE__, "%s differs from what the backend sent (UPDATE_GOLDEN=1 rewrites it):\n%s", path,
                  sbuf_str(&all));
    }
    free(want);
    sbuf_free(&all);
}

static int count_sent(const char *method)
{
    int n = 0;
    json_t *e;
    size_t i;
    pthread_mutex_lock(&wire_mu);
    json_array_foreach(wire, i, e)
        n += strncmp(json_string_value(json_object_get(e, "text")), method, strlen(method)) == 0;
    pthread_mutex_unlock(&wire_mu);
    return n;
}

/* --- the stand-in and the backend --------------------------------------------------------------------- */

static struct backend *open_backend(const char *kubeconfig)
{
    struct backend_conf conf = {.default_kind = BACKEND_KUBERNETES, .kubeconfig = (char *)kubeconfig};
    struct backend_host host = {post, &got};
    struct kube_client_options opt = {.timeout_ms = 5000, .connect_timeout_ms = 1000, .sent = record};
    struct backend *b = NULL;
    struct api_status st = {0};
    if (kube_backend_open_with(&conf, &host, &opt, &b, &st) != 0)
        fprintf(stderr, "# kube_backend_open: %s\n", st.message);
    return b;
}

struct stand_in {
    struct test_server s;
    char token[256], kubeconfig[400], node[128];
};

static bool stand_in_start(struct stand_in *c)
{
    if (server_start(&c->s, NULL, server_args) != 0 || !stand_in_admin_token(&c->s, c->token, sizeof c->token))
        return false;
    snprintf(c->kubeconfig, sizeof c->kubeconfig, "%s/kubeconfig", c->s.data_dir);
    json_t *nodes = server_request_as(&c->s, c->token, "GET", "/api/v1/nodes", NULL, NULL, NULL);
    const char *node = jv_str(nodes, "items.0.metadata.name");
    snprintf(c->node, sizeof c->node, "%s", node ? node : "");
    json_decref(nodes);
    return stand_in_kubeconfig(c->kubeconfig, c->s.url, c->token) && c->node[0];
}

static json_t *job_manifest(const char *name, int min, const char *tasks)
{
    char text[4096];
    snprintf(text, sizeof text, JOB_FMT, name, min, tasks);
    json_t *m = json_loads(text, 0, NULL);
    json_object_set_new(json_object_get(m, "metadata"), "labels", json_pack("{s:s}", "app", name));
    return m;
}

static long stand_in_code(const struct stand_in *c, const char *method, const char *path)
{
    long code = 0;
    json_decref(server_request_as(&c->s, c->token, method, path, NULL, NULL, &code));
    return code;
}

#define STAND_IN_JOB JOBS "/"

/* --- the cases ---------------------------------------------------------------------------------------- */

static void a_job_sent_observed_and_removed(void)
{
    struct stand_in c;
    REQUIRE(stand_in_start(&c));
    reports_clear();
    wire_clear();
    struct backend *b = open_backend(c.kubeconfig);
    REQUIRE(b);
    CHECK(b->engine_runs_policies);
    char uid[UUID_STR_LEN], tasks[2048], t1[512], t2[512];
    uuid_v4(uid);
    snprintf(t1, sizeof t1, TASK_FMT, "ok", "echo hello from ok; sleep 1; exit 0");
    snprintf(t2, sizeof t2, TASK_FMT, "bad", "sleep 1; echo failing >&2; exit 3");
    snprintf(tasks, sizeof tasks, "%s,%s", t1, t2);
    REQUIRE(b->send(b->ctx, uid, job_manifest("kbjob", 2, tasks)) == 0);

    int sent = wait_report(uid, W(BACKEND_SENT), 0, WAIT_MS);
    REQUIRE(sent >= 0);
    CHECK_STR(report_at(sent).ref, "default/kbjob");
    int running = wait_report(uid, WPOD("ok", BACKEND_POD_RUNNING), 0, WAIT_MS);
    REQUIRE(running > sent);
    struct backend_update r = report_at(running);
    CHECK_STR(r.node, c.node);
    CHECK_INT(r.index, 0);
    CHECK_INT((int)r.attempt, 1);
    CHECK(r.start_ms > 0);
    int ok = wait_report(uid, WPOD("ok", BACKEND_POD_SUCCEEDED), 0, WAIT_MS);
    REQUIRE(ok > running);
    r = report_at(ok);
    CHECK_INT(r.exit_code, 0);
    CHECK_STR(r.reason, "Completed");
    CHECK(r.end_ms >= r.start_ms);
    int bad = wait_report(uid, WPOD("bad", BACKEND_POD_FAILED), 0, WAIT_MS);
    REQUIRE(bad > sent);
    r = report_at(bad);
    CHECK_INT(r.exit_code, 3);
    CHECK_STR(r.reason, "Error");
    CHECK_INT((int)r.attempt, 1);
    CHECK(wait_report(uid, WPHASE("Running"), sent, WAIT_MS) > sent);
    int end = wait_report(uid, WPHASE("Failed"), sent, WAIT_MS);
    CHECK(end > ok && end > bad); /* the pods' ends first, then the job's */
    /* each change once: no report repeats the one before it for the same pod */
    CHECK_INT(count_reports(uid, WPOD("ok", BACKEND_POD_SUCCEEDED)), 1);
    CHECK_INT(count_reports(uid, WPHASE("Running")), 1);

    char *text = NULL;
    size_t len = 0;
    struct api_status st = {0};
    struct backend_log_query q = {.pod = "kbjob-ok-0", .tail_lines = 10, .limit_bytes = 4096};
    REQUIRE(b->logs(b->ctx, uid, "default/kbjob", &q, &text, &len, &st) == 0);
    CHECK_STR(text, "hello from ok\n");
    free(text);
    q.pod = "kbjob-nosuch-0";
    CHECK_INT(b->logs(b->ctx, uid, "default/kbjob", &q, &text, &len, &st), -1);
    CHECK_INT(st.code, 404);

    /* the same uid again: the Job there is ours, so it counts as sent; another uid on that name fails */
    char other[UUID_STR_LEN];
    uuid_v4(other);
    REQUIRE(b->send(b->ctx, uid, job_manifest("kbjob", 2, tasks)) == 0);
    REQUIRE(b->send(b->ctx, other, job_manifest("kbjob", 2, tasks)) == 0);
    CHECK(wait_report(uid, W(BACKEND_SENT), sent + 1, WAIT_MS) > sent);
    int taken = wait_report(other, W(BACKEND_SEND_FAILED), 0, WAIT_MS);
    REQUIRE(taken >= 0);
    r = report_at(taken);
    CHECK(!r.retryable);
    CHECK_CONTAINS(r.message, "already exists");
    /* an invalid spec: the API server's Status, field and why, and no retry */
    char bad_uid[UUID_STR_LEN];
    uuid_v4(bad_uid);
    REQUIRE(b->send(b->ctx, bad_uid, job_manifest("kbbad", 1, "")) == 0);
    int invalid = wait_report(bad_uid, W(BACKEND_SEND_FAILED), 0, WAIT_MS);
    REQUIRE(invalid >= 0);
    r = report_at(invalid);
    CHECK(!r.retryable);
    CHECK_CONTAINS(r.message, "spec.tasks");

    REQUIRE(b->remove(b->ctx, uid, "default/kbjob") == 0);
    int removed = wait_report(uid, W(BACKEND_REMOVED), 0, WAIT_MS);
    CHECK(removed > end);
    CHECK_INT(stand_in_code(&c, "GET", STAND_IN_JOB "kbjob"), 404);
    CHECK_INT(count_reports(uid, W(BACKEND_GONE)), 0);
    b->close(b->ctx);
    CHECK_INT(count_reports(uid, W(BACKEND_REMOVED)), 1);
    if (getenv("KUBE_BACKEND_DUMP")) /* the reports as they came */
        reports_dump();

    check_sent("create", "POST /apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs?", &c.s, c.token);
    check_sent("watch", "labelSelector=caldera.io%2Fuid", &c.s, c.token);
    check_sent("log", "/log", &c.s, c.token);
    check_sent("delete", "DELETE ", &c.s, c.token);
    server_cleanup(&c.s);
}

/* suspend/resume as Volcano's own Commands (AbortJob, ResumeJob), then stop(): the Job deleted, its
 * running attempt ended, and a later send creating it anew as the next attempt. */
static void suspend_resume_and_stop(void)
{
    struct stand_in c;
    REQUIRE(stand_in_start(&c));
    reports_clear();
    wire_clear();
    struct backend *b = open_backend(c.kubeconfig);
    REQUIRE(b);
    char uid[UUID_STR_LEN], task[512];
    uuid_v4(uid);
    snprintf(task, sizeof task, TASK_FMT, "w", "sleep 60");
    REQUIRE(b->send(b->ctx, uid, job_manifest("kbact", 1, task)) == 0);
    int running = wait_report(uid, WPOD("w", BACKEND_POD_RUNNING), 0, WAIT_MS);
    REQUIRE(running >= 0);
    REQUIRE(b->act(b->ctx, uid, "default/kbact", BACKEND_SUSPEND) == 0);
    int aborted = wait_report(uid, WPHASE("Aborted"), running, WAIT_MS);
    CHECK(aborted > running);
    REQUIRE(b->act(b->ctx, uid, "default/kbact", BACKEND_RESUME) == 0);
    int again = wait_report(uid, WPOD("w", BACKEND_POD_RUNNING), aborted > 0 ? aborted : running + 1, WAIT_MS);
    CHECK(again > aborted);
    CHECK((int)report_at(again).attempt >= 2);
    check_sent("command", "/commands", &c.s, c.token);

    REQUIRE(b->stop(b->ctx, uid, "default/kbact") == 0);
    int ended = wait_report(uid, WPOD("w", BACKEND_POD_FAILED), again, WAIT_MS);
    REQUIRE(ended > again); /* report_at(ended) below reads it */
    CHECK_INT(stand_in_code(&c, "GET", STAND_IN_JOB "kbact"), 404);
    usleep(300 * 1000);
    CHECK_INT(count_reports(uid, W(BACKEND_GONE)), 0);
    CHECK_INT(count_reports(uid, W(BACKEND_REMOVED)), 0);
    uint32_t last = report_at(ended).attempt;
    REQUIRE(b->send(b->ctx, uid, job_manifest("kbact", 1, task)) == 0);
    int resent = wait_report(uid, W(BACKEND_SENT), ended, WAIT_MS);
    int anew = wait_report(uid, WPOD("w", BACKEND_POD_RUNNING), ended, WAIT_MS);
    CHECK(anew > resent && resent > ended);
    CHECK(wait_report(uid, W(BACKEND_JOB_PHASE), ended, WAIT_MS) > resent); /* nothing of the new Job before SENT */
    CHECK_INT((int)report_at(anew).attempt, (int)last + 1);
    REQUIRE(b->remove(b->ctx, uid, "default/kbact") == 0);
    CHECK(wait_report(uid, W(BACKEND_REMOVED), anew, WAIT_MS) > anew);
    if (getenv("KUBE_BACKEND_DUMP"))
        reports_dump();
    b->close(b->ctx);
    server_cleanup(&c.s);
}

/* A List of the Job and a companion's Pod and Service: the token Secret the Pod reads is created first,
 * owned by the created Job (its cluster uid) and labelled; the stand-in serves no Pod or Service
 * creation, so those are refused and the Job is still sent. */
static void companions_beside_the_job(void)
{
    struct stand_in c;
    REQUIRE(stand_in_start(&c));
    reports_clear();
    wire_clear();
    struct backend *b = open_backend(c.kubeconfig);
    REQUIRE(b);
    char uid[UUID_STR_LEN], task[512];
    uuid_v4(uid);
    snprintf(task, sizeof task, TASK_FMT, "w", "sleep 2");
    static const char companions[] =
        "[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"kbcomp-tensorboard\","
        "\"namespace\":\"default\",\"ownerReferences\":[{\"apiVersion\":\"batch.volcano.sh/v1alpha1\","
        "\"kind\":\"Job\",\"name\":\"kbcomp\",\"uid\":\"placeholder\"}]},\"spec\":{\"containers\":[{"
        "\"name\":\"tb\",\"image\":\"tensorboard\",\"env\":[{\"name\":\"CALDERA_COMPANION_TOKEN\","
        "\"valueFrom\":{\"secretKeyRef\":{\"name\":\"kbcomp-tensorboard-token\",\"key\":\"token\"}}}]}]}},"
        "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"kbcomp-tensorboard\","
        "\"namespace\":\"default\"},\"spec\":{\"ports\":[{\"port\":80}]}}]";
    json_t *items = json_loads(companions, 0, NULL);
    REQUIRE(items);
    json_array_insert_new(items, 0, job_manifest("kbcomp", 1, task));
    json_t *list = json_pack("{s:s,s:s,s:o}", "apiVersion", "v1", "kind", "List", "items", items);
    REQUIRE(list);
    REQUIRE(b->send(b->ctx, uid, list) == 0);
    int sent = wait_report(uid, W(BACKEND_SENT), 0, WAIT_MS);
    REQUIRE(sent >= 0);
    json_t *job = server_request_as(&c.s, c.token, "GET", STAND_IN_JOB "kbcomp", NULL, NULL, NULL);
    json_t *secret = server_request_as(&c.s, c.token, "GET",
                                       "/api/v1/namespaces/default/secrets/kbcomp-tensorboard-token", NULL, NULL, NULL);
    CHECK_STR(json_string_value(json_object_get(jv_at(secret, "metadata.labels"), BACKEND_UID_LABEL)), uid);
    const char *data = jv_str(secret, "data.token");
    CHECK(data && strlen(data) == 88); /* 64 hex characters, base64 */
    /* the stand-in keeps no ownerReferences on Secrets: read them from what was sent */
    json_t *sent_secret = NULL, *e;
    size_t i;
    pthread_mutex_lock(&wire_mu);
    json_array_foreach(wire, i, e)
    {
        const char *t = json_string_value(json_object_get(e, "text")), *body = strstr(t, "\r\n\r\n");
        if (!sent_secret && strncmp(t, "POST /api/v1/namespaces/default/secrets?fieldManager=caldera ", 61) == 0 &&
            body)
            sent_secret = json_loads(body + 4, 0, NULL);
    }
    pthread_mutex_unlock(&wire_mu);
    CHECK_STR(jv_str(sent_secret, "metadata.ownerReferences.0.uid"), jv_str(job, "metadata.uid"));
    CHECK_STR(jv_str(sent_secret, "metadata.ownerReferences.0.kind"), "Job");
    CHECK_STR(jv_str(sent_secret, "type"), "Opaque");
    json_decref(sent_secret);
    json_decref(secret);
    json_decref(job);
    REQUIRE(b->remove(b->ctx, uid, "default/kbcomp") == 0);
    CHECK(wait_report(uid, W(BACKEND_REMOVED), sent, WAIT_MS) > sent);
    long code = 0;
    json_decref(server_request_as(&c.s, c.token, "GET", "/api/v1/namespaces/default/secrets/kbcomp-tensorboard-token",
                                  NULL, NULL, &code));
    CHECK_INT(code, 404); /* deleted with the Job */
    b->close(b->ctx);
    server_cleanup(&c.s);
}

/* A backend reopened (a server restart) adopts the job by its ref: its state reported, nothing created. */
static void a_job_adopted_after_reopen(void)
{
    struct stand_in c;
    REQUIRE(stand_in_start(&c));
    reports_clear();
    struct backend *b = open_backend(c.kubeconfig);
    REQUIRE(b);
    char uid[UUID_STR_LEN], task[512];
    uuid_v4(uid);
    snprintf(task, sizeof task, TASK_FMT, "w", "sleep 3; exit 0");
    REQUIRE(b->send(b->ctx, uid, job_manifest("kbadopt", 1, task)) == 0);
    REQUIRE(wait_report(uid, WPOD("w", BACKEND_POD_RUNNING), 0, WAIT_MS) >= 0);
    b->close(b->ctx);
    reports_clear();
    wire_clear();

    b = open_backend(c.kubeconfig);
    REQUIRE(b);
    REQUIRE(b->adopt(b->ctx, uid, "default/kbadopt") == 0);
    int running = wait_report(uid, WPOD("w", BACKEND_POD_RUNNING), 0, WAIT_MS);
    CHECK(running >= 0);
    CHECK(wait_report(uid, WPHASE("Running"), 0, WAIT_MS) >= 0);
    CHECK(wait_report(uid, WPOD("w", BACKEND_POD_SUCCEEDED), 0, WAIT_MS) > running);
    CHECK(wait_report(uid, WPHASE("Completed"), 0, WAIT_MS) >= 0);
    CHECK_INT(count_reports(uid, W(BACKEND_SENT)), 0);
    CHECK_INT(count_sent("POST "), 0);
    /* a ref the cluster no longer has: gone */
    char lost[UUID_STR_LEN];
    uuid_v4(lost);
    REQUIRE(b->adopt(b->ctx, lost, "default/nosuchjob") == 0);
    CHECK(wait_report(lost, W(BACKEND_GONE), 0, WAIT_MS) >= 0);
    b->close(b->ctx);

    /* a resend after a restart (the first send's answer was lost): SENT, the state as it is, no second Job */
    reports_clear();
    wire_clear();
    b = open_backend(c.kubeconfig);
    REQUIRE(b);
    REQUIRE(b->send(b->ctx, uid, job_manifest("kbadopt", 1, task)) == 0);
    int sent = wait_report(uid, W(BACKEND_SENT), 0, WAIT_MS);
    CHECK(sent >= 0);
    CHECK(wait_report(uid, WPOD("w", BACKEND_POD_SUCCEEDED), 0, WAIT_MS) > sent);
    CHECK(wait_report(uid, WPHASE("Completed"), 0, WAIT_MS) > sent);
    CHECK_INT(count_sent("POST "), 1); /* the create the 409 answered */
    json_t *jobs = server_request_as(&c.s, c.token, "GET", JOBS, NULL, NULL, NULL);
    CHECK_INT(json_array_size(json_object_get(jobs, "items")), 1);
    json_decref(jobs);
    b->close(b->ctx);
    server_cleanup(&c.s);
}

/* The stand-in stopped and started again on its port mid-job: ENGINE !ok, then ok, and the end still comes. */
static void the_engine_restarts_mid_job(void)
{
    struct stand_in c;
    REQUIRE(stand_in_start(&c));
    reports_clear();
    struct backend *b = open_backend(c.kubeconfig);
    REQUIRE(b);
    char uid[UUID_STR_LEN], task[512];
    uuid_v4(uid);
    snprintf(task, sizeof task, TASK_FMT, "w", "sleep 4; exit 0");
    REQUIRE(b->send(b->ctx, uid, job_manifest("kbrestart", 1, task)) == 0);
    REQUIRE(wait_report(uid, WPOD("w", BACKEND_POD_RUNNING), 0, WAIT_MS) >= 0);

    const char *port = strrchr(c.s.url, ':') + 1;
    char listen[64];
    snprintf(listen, sizeof listen, "127.0.0.1:%s", port);
    server_stop(&c.s);
    int down = wait_report(NULL, WENGINE(0), 0, WAIT_MS);
    CHECK(down >= 0);
    const char *args[16] = {"--listen", listen, "--ws-listen", "127.0.0.1:0"}; /* port + 1 may be taken */
    for (int i = 0; server_args[i]; i++)
        args[4 + i] = server_args[i];
    REQUIRE(server_start(&c.s, c.s.data_dir, args) == 0);
    CHECK(strstr(c.s.url, listen) != NULL);
    int up = wait_report(NULL, WENGINE(1), down > 0 ? down : 0, WAIT_MS);
    CHECK(up > down);
    int end = wait_report(uid, WPHASE("Completed"), 0, 60000);
    if (end < 0)
        end = wait_report(uid, WPHASE("Failed"), 0, 1000);
    CHECK(end >= 0);
    /* a stopping server may still answer a list between its streams' end and its last breath: each
     * !ok is followed by an ok, and the last word is ok */
    int downs = count_reports(NULL, WENGINE(0)), ups = count_reports(NULL, WENGINE(1));
    CHECK(downs >= 1);
    CHECK_INT(ups, downs);
    if (getenv("KUBE_BACKEND_DUMP"))
        reports_dump();
    b->close(b->ctx);
    server_cleanup(&c.s);
}

/* Deleted on the stand-in by someone else: GONE, once. */
static void a_job_deleted_behind_our_back(void)
{
    struct stand_in c;
    REQUIRE(stand_in_start(&c));
    reports_clear();
    struct backend *b = open_backend(c.kubeconfig);
    REQUIRE(b);
    char uid[UUID_STR_LEN], task[512];
    uuid_v4(uid);
    snprintf(task, sizeof task, TASK_FMT, "w", "sleep 30");
    REQUIRE(b->send(b->ctx, uid, job_manifest("kbgone", 1, task)) == 0);
    REQUIRE(wait_report(uid, WPOD("w", BACKEND_POD_RUNNING), 0, WAIT_MS) >= 0);
    CHECK_INT(stand_in_code(&c, "DELETE", STAND_IN_JOB "kbgone"), 200);
    int gone = wait_report(uid, W(BACKEND_GONE), 0, WAIT_MS);
    REQUIRE(gone >= 0);
    CHECK_CONTAINS(report_at(gone).message, "default/kbgone was deleted on the cluster");
    usleep(500 * 1000);
    CHECK_INT(count_reports(uid, W(BACKEND_GONE)), 1);
    CHECK_INT(count_reports(uid, W(BACKEND_REMOVED)), 0);
    b->close(b->ctx);
    server_cleanup(&c.s);
}

/* No cluster at the kubeconfig's address: the send fails, retryable, and the engine reads unreachable. */
static void an_unreachable_cluster(void)
{
    char dir[] = "/tmp/kubeb-XXXXXX", path[300];
    REQUIRE(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/kubeconfig", dir);
    REQUIRE(stand_in_kubeconfig(path, "http://127.0.0.1:1", "t0ken"));
    reports_clear();
    struct backend *b = open_backend(path);
    REQUIRE(b);
    char uid[UUID_STR_LEN], task[512];
    uuid_v4(uid);
    snprintf(task, sizeof task, TASK_FMT, "w", "exit 0");
    REQUIRE(b->send(b->ctx, uid, job_manifest("kbnowhere", 1, task)) == 0);
    int failed = wait_report(uid, W(BACKEND_SEND_FAILED), 0, WAIT_MS);
    REQUIRE(failed >= 0);
    struct backend_update r = report_at(failed);
    CHECK(r.retryable);
    CHECK(r.message[0] != '\0');
    CHECK(wait_report(NULL, WENGINE(0), 0, WAIT_MS) >= 0);
    b->close(b->ctx);
    unlink(path);
    rmdir(dir);
    /* a kubeconfig that is not there: open fails saying which */
    struct backend_conf conf = {.kubeconfig = "/nonexistent/kubeconfig"};
    struct backend_host host = {post, &got};
    struct api_status st = {0};
    CHECK_INT(kube_backend_open(&conf, &host, &b, &st), -1);
    CHECK_CONTAINS(st.message, "/nonexistent/kubeconfig");
}

TEST_MAIN(TEST_CASE(a_job_sent_observed_and_removed), TEST_CASE(suspend_resume_and_stop),
          TEST_CASE(companions_beside_the_job), TEST_CASE(a_job_adopted_after_reopen),
          TEST_CASE(the_engine_restarts_mid_job), TEST_CASE(a_job_deleted_behind_our_back),
          TEST_CASE(an_unreachable_cluster))
