/* What the backend hears from the cluster: two watch threads (Volcano Jobs, Pods) over the objects that
 * carry the Caldera uid label in every namespace, re-listing on 410 Gone and after the engine comes
 * back; each change of a followed job becomes a report (phases, attempts, gone, removed), posted once. */
#include "runtime/kube/kube_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "runtime/kube/kube_mirror.h"

static void job_ref(const struct kube_job *j, char *ref) { snprintf(ref, BACKEND_REF_MAX, "%s/%s", j->ns, j->name); }

/* A report about j of kind, with its ref. */
static struct backend_update *report(const struct kube_job *j, enum backend_update_kind kind)
{
    char ref[BACKEND_REF_MAX];
    job_ref(j, ref);
    return backend_update_new(kind, j->uid, ref);
}

void kube_engine_up(struct kube_backend *kb)
{
    pthread_mutex_lock(&kb->mu);
    if (kb->engine == -1) {
        kb->up_gen++;
        struct backend_update *u = backend_update_new(BACKEND_ENGINE, NULL, NULL);
        if (u) {
            u->ok = true;
            kube_post(kb, u);
        }
    }
    kb->engine = 1;
    pthread_mutex_unlock(&kb->mu);
}

void kube_engine_down(struct kube_backend *kb, const struct api_status *st, uint64_t since)
{
    pthread_mutex_lock(&kb->mu);
    if (kb->engine != -1 && kb->up_gen == since && !atomic_load(&kb->stop)) {
        struct backend_update *u = backend_update_new(BACKEND_ENGINE, NULL, NULL);
        if (u) {
            snprintf(u->message, sizeof u->message, "the Kubernetes API server does not answer: %s", st->message);
            kube_post(kb, u);
        }
        kb->engine = -1;
    }
    pthread_mutex_unlock(&kb->mu);
}

/* Kept until BACKEND_SENT is posted: the newest event of each object. */
static void hold(struct kube_job *j, const char *key, int type, json_t *obj)
{
    json_object_set_new(j->held, key, json_pack("{s:i,s:O}", "type", type, "object", obj));
}

/* The Job is gone from the cluster: what it means depends on who asked. */
static void job_gone(struct kube_backend *kb, struct kube_job *j)
{
    if (j->stopping) { /* stop(): the job stays, a later send creates it anew */
        j->stopping = false;
        j->kube_uid[0] = '\0';
        j->phase[0] = '\0';
        return;
    }
    struct backend_update *u = report(j, j->removing ? BACKEND_REMOVED : BACKEND_GONE);
    if (u && !j->removing)
        snprintf(u->message, sizeof u->message, "the Volcano Job %s/%s was deleted on the cluster", j->ns, j->name);
    kube_post(kb, u);
    kube_job_drop(kb, j);
}

void kube_observe_job(struct kube_backend *kb, int type, json_t *job)
{
    struct kube_job *j = kube_job_find(kb, kube_mirror_uid(job));
    json_t *meta = json_object_get(job, "metadata");
    const char *name = json_string_value(json_object_get(meta, "name"));
    const char *kube_uid = json_string_value(json_object_get(meta, "uid"));
    if (!j || !name || (j->name[0] && strcmp(j->name, name) != 0))
        return;
    if (j->kube_uid[0] && kube_uid && strcmp(j->kube_uid, kube_uid) != 0)
        return; /* an earlier incarnation's news */
    if (!j->sent && !j->removing) {
        hold(j, "job", type, job);
        return;
    }
    if (type == KUBE_DELETED) {
        job_gone(kb, j);
        return;
    }
    if (!j->sent)
        return;
    struct backend_update now = {0};
    kube_mirror_job(job, &now);
    if (strcmp(now.job_phase, j->phase) == 0 && now.retry_count == j->retry_count)
        return;
    snprintf(j->phase, sizeof j->phase, "%s", now.job_phase);
    j->retry_count = now.retry_count;
    struct backend_update *u = report(j, BACKEND_JOB_PHASE);
    if (u) {
        snprintf(u->job_phase, sizeof u->job_phase, "%s", now.job_phase);
        u->retry_count = now.retry_count;
        snprintf(u->message, sizeof u->message, "%s", now.message);
        kube_post(kb, u);
    }
}

static struct kube_pod_slot *slot_for(struct kube_job *j, const char *name)
{
    for (int i = 0; i < j->npods; i++)
        if (strcmp(j->pods[i].name, name) == 0)
            return &j->pods[i];
    if (j->npods == j->pods_cap) {
        int cap = j->pods_cap ? 2 * j->pods_cap : 4;
        struct kube_pod_slot *grown = realloc(j->pods, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        j->pods = grown;
        j->pods_cap = cap;
    }
    struct kube_pod_slot *s = &j->pods[j->npods++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    return s;
}

static bool ended(enum backend_pod_phase p) { return p == BACKEND_POD_SUCCEEDED || p == BACKEND_POD_FAILED; }

static void post_attempt(struct kube_backend *kb, struct kube_pod_slot *s, const struct backend_update *u)
{
    struct backend_update *out = backend_update_new(BACKEND_POD, NULL, NULL);
    if (!out)
        return;
    *out = *u;
    s->last = *u;
    s->posted = true;
    kube_post(kb, out);
}

/* A pod deleted before it ended (Volcano restarting the job, stop(), someone's kubectl): its attempt ended. */
static void pod_deleted(struct kube_backend *kb, struct kube_job *j, struct kube_pod_slot *s)
{
    if (!s->posted || ended(s->last.phase) || j->removing)
        return;
    struct backend_update u = s->last;
    u.phase = BACKEND_POD_FAILED;
    u.exit_code = 137;
    u.term_signal = 9;
    u.end_ms = clock_wall_ms();
    snprintf(u.reason, sizeof u.reason, "Deleted");
    snprintf(u.message, sizeof u.message, "the pod was deleted before it ended");
    post_attempt(kb, s, &u);
}

void kube_observe_pod(struct kube_backend *kb, int type, json_t *pod)
{
    struct kube_job *j = kube_job_find(kb, kube_mirror_uid(pod));
    struct kube_mirror_pod m;
    if (!j || kube_mirror_pod(pod, &m) != 0)
        return;
    if (!j->sent) {
        char key[BACKEND_REF_MAX + 8];
        snprintf(key, sizeof key, "pod/%s", m.name);
        if (!j->removing)
            hold(j, key, type, pod);
        return;
    }
    struct kube_pod_slot *s = slot_for(j, m.name);
    if (!s)
        return;
    if (type == KUBE_DELETED && (s->deleted || strcmp(s->pod_uid, m.pod_uid) != 0))
        return; /* an earlier pod of that name */
    if (!s->pod_uid[0]) {
        s->first_attempt = 1;
    } else if (s->deleted || strcmp(s->pod_uid, m.pod_uid) != 0) { /* recreated: a new attempt */
        if (s->posted && !ended(s->last.phase))
            pod_deleted(kb, j, s);
        s->first_attempt = s->attempt + 1;
        s->restarts = 0;
        s->deleted = false;
    }
    snprintf(s->pod_uid, sizeof s->pod_uid, "%s", m.pod_uid);
    uint32_t attempt = s->first_attempt + (uint32_t)(m.restart_count > 0 ? m.restart_count : 0);
    struct backend_update u = m.u;
    snprintf(u.job_uid, sizeof u.job_uid, "%s", j->uid);
    job_ref(j, u.ref);
    u.attempt = attempt;
    if (s->posted && attempt > s->last.attempt && !ended(s->last.phase) && m.last.set) {
        /* kubelet restarted the container: the run before this one ended as lastState says */
        struct backend_update prev = s->last;
        prev.phase = m.last.exit_code == 0 ? BACKEND_POD_SUCCEEDED : BACKEND_POD_FAILED;
        prev.exit_code = m.last.exit_code;
        prev.term_signal = m.last.term_signal;
        prev.start_ms = m.last.start_ms ? m.last.start_ms : prev.start_ms;
        prev.end_ms = m.last.end_ms;
        snprintf(prev.reason, sizeof prev.reason, "%s", m.last.reason);
        snprintf(prev.message, sizeof prev.message, "%s", m.last.message);
        post_attempt(kb, s, &prev);
    }
    s->restarts = m.restart_count;
    s->attempt = attempt;
    if (s->posted && s->last.attempt == attempt && !u.node[0]) /* a view without it (a deleted pod's last) */
        snprintf(u.node, sizeof u.node, "%s", s->last.node);
    bool news = type != KUBE_DELETED || ended(u.phase); /* a deleted pod: only an end kubelet wrote */
    if (s->posted && s->last.attempt == attempt) {
        if (u.phase < s->last.phase) /* an older view (a list that crossed a watch event) */
            news = false;
        else if (u.phase == s->last.phase && strcmp(u.node, s->last.node) == 0 && u.exit_code == s->last.exit_code &&
                 strcmp(u.reason, s->last.reason) == 0 && u.start_ms == s->last.start_ms && u.end_ms == s->last.end_ms)
            news = false;
    }
    if (news)
        post_attempt(kb, s, &u);
    if (type == KUBE_DELETED) { /* its last state first (an end kubelet wrote), then the deletion itself */
        pod_deleted(kb, j, s);
        s->deleted = true;
    }
}

void kube_mark_sent(struct kube_backend *kb, struct kube_job *j)
{
    char uid[UUID_STR_LEN];
    snprintf(uid, sizeof uid, "%s", j->uid);
    kube_post(kb, report(j, BACKEND_SENT));
    j->sent = true;
    j->epoch = ++kb->epoch;
    const char *key;
    json_t *ev, *held = j->held;
    j->held = json_object();
    json_object_foreach(held, key, ev)
    {
        int type = (int)json_integer_value(json_object_get(ev, "type"));
        json_t *obj = json_object_get(ev, "object");
        if (strcmp(key, "job") == 0)
            kube_observe_job(kb, type, obj);
        else
            kube_observe_pod(kb, type, obj);
        if (!kube_job_find(kb, uid))
            break; /* it is gone already */
    }
    json_decref(held);
}

/* After a Job list begun at gen: a followed job that should be there and is not was deleted meanwhile. */
static void missing_jobs(struct kube_backend *kb, const json_t *items, uint64_t gen)
{
    for (int i = kb->njobs - 1; i >= 0; i--) {
        struct kube_job *j = kb->jobs[i];
        if (j->epoch >= gen || !j->name[0] || !(j->removing || j->stopping || (j->sent && j->kube_uid[0])))
            continue;
        bool found = false;
        size_t k;
        json_t *item;
        json_array_foreach(items, k, item)
        {
            const char *uid = kube_mirror_uid(item);
            found = found || (uid && strcmp(uid, j->uid) == 0);
        }
        if (!found)
            job_gone(kb, j);
    }
}

/* One watched collection: where, and what each object means. */
struct watched {
    struct kube_backend *kb;
    const char *group_version, *plural;
    void (*observe)(struct kube_backend *kb, int type, json_t *obj);
    bool jobs;
};

/* A followed Job that reached an end Volcano does not leave (Completed, Failed, Terminated, Aborted):
 * its pods' last states, read now, so that their ends are reported before the job's. */
static void settle_pods(struct kube_backend *kb, json_t *job)
{
    struct backend_update now = {0};
    kube_mirror_job(job, &now);
    static const char *const ends[] = {"Completed", "Failed", "Terminated", "Aborted"};
    bool end = false;
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++)
        end = end || strcmp(now.job_phase, ends[i]) == 0;
    const char *uid = kube_mirror_uid(job);
    pthread_mutex_lock(&kb->mu);
    struct kube_job *j = kube_job_find(kb, uid);
    bool wanted = end && j && j->sent && strcmp(j->phase, now.job_phase) != 0;
    pthread_mutex_unlock(&kb->mu);
    if (!wanted)
        return;
    char path[512], selector[128];
    const char *ns = json_string_value(json_object_get(json_object_get(job, "metadata"), "namespace"));
    snprintf(selector, sizeof selector, "%s=%s", BACKEND_UID_LABEL, uid);
    struct api_status st = {0};
    json_t *pods = NULL, *pod;
    size_t i;
    if (kube_path(path, sizeof path, "v1", ns ? ns : kb->ns, "pods", NULL, NULL) != 0 ||
        kube_list(kb->client, path, selector, &pods, &st) != KUBE_OK)
        return; /* the pod watch reports them */
    pthread_mutex_lock(&kb->mu);
    json_array_foreach(json_object_get(pods, "items"), i, pod) kube_observe_pod(kb, KUBE_MODIFIED, pod);
    pthread_mutex_unlock(&kb->mu);
    json_decref(pods);
}

static int on_event(void *ctx, enum kube_event_type type, json_t *object)
{
    struct watched *w = ctx;
    if (type == KUBE_BOOKMARK)
        return atomic_load(&w->kb->stop);
    if (w->jobs && type != KUBE_DELETED)
        settle_pods(w->kb, object);
    pthread_mutex_lock(&w->kb->mu);
    w->observe(w->kb, (int)type, object);
    pthread_mutex_unlock(&w->kb->mu);
    return atomic_load(&w->kb->stop);
}

/* Lists the collection and applies every item; rv gets where the watch goes on from. */
static int relist(struct watched *w, const char *path, char *rv, struct api_status *st)
{
    struct kube_backend *kb = w->kb;
    pthread_mutex_lock(&kb->mu);
    uint64_t gen = ++kb->epoch;
    pthread_mutex_unlock(&kb->mu);
    json_t *list = NULL;
    int rc = kube_list(kb->client, path, BACKEND_UID_LABEL, &list, st);
    if (rc != KUBE_OK)
        return rc;
    kube_engine_up(kb); /* before what the list says, which the engine's return made known */
    json_t *items = json_object_get(list, "items"), *item;
    size_t i;
    pthread_mutex_lock(&kb->mu);
    json_array_foreach(items, i, item) w->observe(kb, KUBE_MODIFIED, item);
    if (w->jobs)
        missing_jobs(kb, items, gen);
    pthread_mutex_unlock(&kb->mu);
    const char *v = json_string_value(json_object_get(json_object_get(list, "metadata"), "resourceVersion"));
    snprintf(rv, KUBE_RV_MAX, "%s", v ? v : "");
    json_decref(list);
    return KUBE_OK;
}

static void watch_loop(struct watched *w)
{
    struct kube_backend *kb = w->kb;
    char path[256], rv[KUBE_RV_MAX] = "";
    bool listed = false;
    int64_t backoff = KUBE_BACKOFF_MIN_MS;
    kube_path(path, sizeof path, w->group_version, NULL, w->plural, NULL, NULL);
    uint64_t since = 0; /* kb->up_gen when this connection began: a failure of an older one is stale */
    while (!atomic_load(&kb->stop)) {
        struct api_status st = {0};
        int rc = KUBE_OK;
        if (!listed) {
            pthread_mutex_lock(&kb->mu);
            since = kb->up_gen;
            pthread_mutex_unlock(&kb->mu);
            rc = relist(w, path, rv, &st);
            if (rc == KUBE_ERROR && (st.code == 403 || st.code == 404) && path[1] == 'a' &&
                !strstr(path, "/namespaces/")) { /* no right to every namespace: the context's own */
                log_warn("kubernetes: cannot list %s in every namespace (%s); following namespace %s only", w->plural,
                         st.message, kb->ns);
                kube_path(path, sizeof path, w->group_version, kb->ns, w->plural, NULL, NULL);
                continue;
            }
            listed = rc == KUBE_OK;
        }
        if (rc == KUBE_OK) {
            backoff = KUBE_BACKOFF_MIN_MS;
            struct kube_watch watch = {.path = path,
                                       .label_selector = BACKEND_UID_LABEL,
                                       .timeout_s = w->jobs ? KUBE_JOB_RESYNC_S : KUBE_WATCH_TIMEOUT_S,
                                       .cancel = &kb->stop,
                                       .on_event = on_event,
                                       .ctx = w};
            snprintf(watch.resource_version, sizeof watch.resource_version, "%s", rv);
            rc = kube_watch(kb->client, &watch, &st);
            snprintf(rv, sizeof rv, "%s", watch.resource_version);
            if (rc == KUBE_OK && w->jobs)
                listed = false; /* the Jobs are listed again each resync: one a watch missed is found gone */
            if (rc == KUBE_OK || rc == KUBE_STOPPED)
                continue;
            listed = false; /* 410 Gone, an error, or the engine went away: list again */
            if (rc == KUBE_GONE)
                continue;
        }
        if (atomic_load(&kb->stop))
            break;
        listed = false;
        if (rc == KUBE_UNREACHABLE || st.code >= 500)
            kube_engine_down(kb, &st, since);
        else
            log_limited(LOG_WARN, "kube watch", "kubernetes: watching %s: %s", w->plural, st.message);
        pthread_mutex_lock(&kb->mu);
        kube_wait(kb, backoff);
        pthread_mutex_unlock(&kb->mu);
        backoff = backoff * 2 < KUBE_BACKOFF_MAX_MS ? backoff * 2 : KUBE_BACKOFF_MAX_MS;
    }
}

void *kube_job_watch_main(void *arg)
{
    struct watched w = {arg, KUBE_VOLCANO, "jobs", kube_observe_job, true};
    watch_loop(&w);
    return NULL;
}

void *kube_pod_watch_main(void *arg)
{
    struct watched w = {arg, "v1", "pods", kube_observe_pod, false};
    watch_loop(&w);
    return NULL;
}

int kube_adopt_now(struct kube_backend *kb, const char *uid, const char *ref)
{
    char ns[BACKEND_NAME_MAX], name[BACKEND_NAME_MAX * 4], path[768], selector[128];
    struct api_status st = {0};
    json_t *job = NULL, *pods = NULL;
    int rc = KUBE_ERROR;
    if (kube_split_ref(kb, ref, ns, sizeof ns, name, sizeof name) == 0 &&
        kube_path(path, sizeof path, KUBE_VOLCANO, ns, "jobs", name, NULL) == 0)
        rc = kube_get(kb->client, path, &job, &st);
    if (rc == KUBE_UNREACHABLE || (rc == KUBE_ERROR && st.code >= 500))
        return -1;
    const char *theirs = kube_mirror_uid(job);
    if (rc != KUBE_OK || !theirs || strcmp(theirs, uid) != 0) { /* not there, or not ours any more */
        struct backend_update *u = backend_update_new(BACKEND_GONE, uid, ref);
        if (u)
            snprintf(u->message, sizeof u->message, "the Volcano Job %s is no longer on the cluster", ref);
        json_decref(job);
        kube_post(kb, u);
        return 0;
    }
    snprintf(selector, sizeof selector, "%s=%s", BACKEND_UID_LABEL, uid);
    kube_path(path, sizeof path, "v1", ns, "pods", NULL, NULL);
    rc = kube_list(kb->client, path, selector, &pods, &st);
    if (rc != KUBE_OK) {
        json_decref(job);
        return rc == KUBE_UNREACHABLE || st.code >= 500 ? -1 : 0;
    }
    pthread_mutex_lock(&kb->mu);
    struct kube_job *j = kube_job_track(kb, uid);
    if (j) {
        snprintf(j->ns, sizeof j->ns, "%s", ns);
        snprintf(j->name, sizeof j->name, "%s", name);
        const char *kube_uid = json_string_value(json_object_get(json_object_get(job, "metadata"), "uid"));
        snprintf(j->kube_uid, sizeof j->kube_uid, "%s", kube_uid ? kube_uid : "");
        j->sent = true;
        j->epoch = ++kb->epoch;
        json_object_clear(j->held);
        kube_observe_job(kb, KUBE_MODIFIED, job);
        size_t i;
        json_t *pod;
        json_array_foreach(json_object_get(pods, "items"), i, pod) kube_observe_pod(kb, KUBE_MODIFIED, pod);
    }
    pthread_mutex_unlock(&kb->mu);
    json_decref(job);
    json_decref(pods);
    return 0;
}
