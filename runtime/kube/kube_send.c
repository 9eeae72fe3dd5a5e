/* The backend's writes to the cluster, on its sender thread: the Volcano Job created (labelled with the
 * Caldera uid, never twice), its companions and their token Secret, deletes with Background
 * propagation, and suspend/resume as Volcano's bus Commands (what vcctl creates). */
#include "runtime/kube/kube_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "common/log.h"
#include "runtime/companion.h"
#include "runtime/kube/kube_mirror.h"

static bool retryable(int rc, const struct api_status *st)
{
    return rc == KUBE_UNREACHABLE || st->code >= 500 || st->code == 429;
}

static void post_failed(struct kube_backend *kb, const char *uid, bool retry, const char *fmt, const char *what)
{
    struct backend_update *u = backend_update_new(BACKEND_SEND_FAILED, uid, NULL);
    if (!u)
        return;
    u->retryable = retry;
    snprintf(u->message, sizeof u->message, fmt, what);
    kube_post(kb, u);
}

/* metadata.labels[BACKEND_UID_LABEL] = uid on obj. */
static void label(json_t *obj, const char *uid)
{
    json_t *meta = json_object_get(obj, "metadata");
    if (!json_is_object(meta)) {
        meta = json_object();
        json_object_set_new(obj, "metadata", meta);
    }
    json_t *labels = json_object_get(meta, "labels");
    if (!json_is_object(labels)) {
        labels = json_object();
        json_object_set_new(meta, "labels", labels);
    }
    json_object_set_new(labels, BACKEND_UID_LABEL, json_string(uid));
}

/* The Job and each task template labelled, so that its pods carry the label too. */
static void label_job(json_t *job, const char *uid)
{
    label(job, uid);
    size_t i;
    json_t *task;
    json_array_foreach(json_object_get(json_object_get(job, "spec"), "tasks"), i, task)
    {
        json_t *tmpl = json_object_get(task, "template");
        if (!json_is_object(tmpl)) {
            tmpl = json_object();
            json_object_set_new(task, "template", tmpl);
        }
        label(tmpl, uid);
    }
}

/* The collection a companion object is created in, by its kind. */
static int collection(const json_t *obj, const char *ns, char *path, size_t len)
{
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    static const struct {
        const char *kind, *gv, *plural;
    } kinds[] = {{"Pod", "v1", "pods"},
                 {"Service", "v1", "services"},
                 {"Secret", "v1", "secrets"},
                 {"Ingress", "networking.k8s.io/v1", "ingresses"}};
    for (size_t i = 0; kind && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kind, kinds[i].kind) == 0)
            return kube_path(path, len, kinds[i].gv, ns, kinds[i].plural, NULL, NULL);
    return -1;
}

/* Creates obj in its collection; an object already there counts as made. Its path goes into made. */
static int create_beside(struct kube_backend *kb, json_t *obj, const char *ns, json_t *made, struct api_status *st)
{
    char path[512], item[640];
    if (collection(obj, ns, path, sizeof path) != 0)
        return api_fail(st, 422, "Invalid", "a companion of kind %s cannot be created",
                        json_string_value(json_object_get(obj, "kind")) ?: "(none)");
    char *body = json_dumps(obj, JSON_COMPACT);
    if (!body)
        return api_fail(st, 500, "InternalError", "out of memory");
    int rc = kube_create(kb->client, path, body, NULL, st);
    free(body);
    if (rc == KUBE_ERROR && st->code == 409)
        rc = KUBE_OK;
    const char *name = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
    if (rc == KUBE_OK && name && (size_t)snprintf(item, sizeof item, "%s/%s", path, name) < sizeof item)
        json_array_append_new(made, json_string(item));
    return rc;
}

/* ownerReferences naming the Job get its cluster uid. */
static void own(json_t *obj, const char *kube_uid)
{
    size_t i;
    json_t *ref;
    json_array_foreach(json_object_get(json_object_get(obj, "metadata"), "ownerReferences"), i, ref)
    {
        const char *kind = json_string_value(json_object_get(ref, "kind"));
        if (kind && strcmp(kind, "Job") == 0)
            json_object_set_new(ref, "uid", json_string(kube_uid));
    }
}

/* The Secrets a companion Pod reads (env secretKeyRef, secret volumes), added to names. */
static void secrets_of(const json_t *pod, json_t *names)
{
    json_t *spec = json_object_get(pod, "spec"), *c, *e, *v;
    size_t i, k;
    json_array_foreach(json_object_get(spec, "containers"), i, c) json_array_foreach(json_object_get(c, "env"), k, e)
    {
        const char *n = json_string_value(
            json_object_get(json_object_get(json_object_get(e, "valueFrom"), "secretKeyRef"), "name"));
        if (n)
            json_object_set_new(names, n, json_true());
    }
    json_array_foreach(json_object_get(spec, "volumes"), i, v)
    {
        const char *n = json_string_value(json_object_get(json_object_get(v, "secret"), "secretName"));
        if (n)
            json_object_set_new(names, n, json_true());
    }
}

/* The token Secret: a fresh token under key "token", owned by the Job. The token is never logged. */
static json_t *token_secret(const char *name, const char *ns, const json_t *job, const char *kube_uid, const char *uid)
{
    char token[COMPANION_TOKEN_LEN + 1];
    if (companion_token_new(token) != 0)
        return NULL;
    char *b64 = base64_encode(token, strlen(token));
    memset(token, 0, sizeof token);
    if (!b64)
        return NULL;
    const char *job_name = json_string_value(json_object_get(json_object_get(job, "metadata"), "name"));
    json_t *s = json_pack("{s:s,s:s,s:{s:s,s:s,s:[{s:s,s:s,s:s,s:s,s:b,s:b}]},s:s,s:{s:s}}", "apiVersion", "v1", "kind",
                          "Secret", "metadata", "name", name, "namespace", ns, "ownerReferences", "apiVersion",
                          KUBE_VOLCANO, "kind", "Job", "name", job_name ? job_name : "", "uid", kube_uid, "controller",
                          1, "blockOwnerDeletion", 1, "type", "Opaque", "data", "token", b64);
    free(b64);
    if (s)
        label(s, uid);
    return s;
}

/* The companions after the Job: their Secrets first, then each object owned by the Job. */
static int create_companions(struct kube_backend *kb, const char *uid, const json_t *job, json_t *items, const char *ns,
                             const char *kube_uid, json_t *made, struct api_status *st)
{
    json_t *secrets = json_object(), *obj;
    size_t i;
    json_array_foreach(items, i, obj)
    {
        const char *kind = json_string_value(json_object_get(obj, "kind"));
        if (i > 0 && kind && strcmp(kind, "Pod") == 0)
            secrets_of(obj, secrets);
    }
    int rc = KUBE_OK;
    const char *name;
    json_t *unused;
    json_object_foreach(secrets, name, unused)
    {
        json_t *s = token_secret(name, ns, job, kube_uid, uid);
        rc = s ? create_beside(kb, s, ns, made, st) : api_fail(st, 500, "InternalError", "cannot make a token");
        json_decref(s);
        if (rc != KUBE_OK)
            break;
    }
    json_decref(secrets);
    json_array_foreach(items, i, obj)
    {
        if (i == 0 || rc != KUBE_OK)
            continue;
        label(obj, uid);
        own(obj, kube_uid);
        rc = create_beside(kb, obj, ns, made, st);
    }
    return rc;
}

/* POST the Job; a Job of that name already there is ours when it carries our uid. *created gets it. */
static int create_job(struct kube_backend *kb, const char *uid, json_t *job, const char *path, json_t **created,
                      bool *existed, struct api_status *st)
{
    *existed = false;
    char *body = json_dumps(job, JSON_COMPACT);
    if (!body)
        return api_fail(st, 500, "InternalError", "out of memory");
    int rc = kube_create(kb->client, path, body, created, st);
    free(body);
    if (rc != KUBE_ERROR || st->code != 409)
        return rc;
    char one[768];
    const char *name = json_string_value(json_object_get(json_object_get(job, "metadata"), "name"));
    if ((size_t)snprintf(one, sizeof one, "%s/%s", path, name ? name : "") >= sizeof one)
        return KUBE_ERROR;
    struct api_status conflict = *st;
    rc = kube_get(kb->client, one, created, st);
    if (rc != KUBE_OK)
        return rc;
    char theirs[UUID_STR_LEN + 32];
    snprintf(theirs, sizeof theirs, "%s", kube_mirror_uid(*created) ? kube_mirror_uid(*created) : "missing");
    if (strcmp(theirs, uid) == 0) {
        *existed = true;
        return KUBE_OK; /* sent before (a resend after a timeout): not again */
    }
    json_decref(*created);
    *created = NULL;
    *st = conflict;
    snprintf(st->message, sizeof st->message,
             "a Volcano Job named %s already exists in namespace %s and is not this job's (its %s label is %s)",
             name ? name : "",
             json_string_value(json_object_get(json_object_get(job, "metadata"), "namespace")) ?: kb->ns,
             BACKEND_UID_LABEL, theirs);
    return KUBE_ERROR;
}

int kube_send_now(struct kube_backend *kb, const char *uid, json_t *manifest)
{
    json_t *job = manifest, *items = NULL;
    const char *kind = json_string_value(json_object_get(manifest, "kind"));
    if (kind && strcmp(kind, "List") == 0) {
        items = json_object_get(manifest, "items");
        job = json_array_get(items, 0);
    }
    kind = json_string_value(json_object_get(job, "kind"));
    json_t *meta = json_object_get(job, "metadata");
    const char *name = json_string_value(json_object_get(meta, "name"));
    if (!kind || strcmp(kind, "Job") != 0 || !name) {
        post_failed(kb, uid, false, "%s", "the manifest is not a Volcano Job with a metadata.name");
        return 0;
    }
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    if (!ns)
        ns = kb->ns;
    char path[512];
    if (kube_path(path, sizeof path, KUBE_VOLCANO, ns, "jobs", NULL, NULL) != 0) {
        post_failed(kb, uid, false, "the namespace %s is too long", ns);
        return 0;
    }
    label_job(job, uid);

    pthread_mutex_lock(&kb->mu);
    struct kube_job *j = kube_job_track(kb, uid);
    if (j) {
        snprintf(j->ns, sizeof j->ns, "%s", ns);
        snprintf(j->name, sizeof j->name, "%s", name);
        if (!j->kube_uid[0]) /* created anew (after stop()): what the watches see waits for SENT */
            j->sent = false;
    }
    pthread_mutex_unlock(&kb->mu);
    if (!j) {
        post_failed(kb, uid, true, "%s", "out of memory");
        return 0;
    }

    struct api_status st = {0};
    json_t *created = NULL, *made = json_array();
    bool existed = false;
    int rc = create_job(kb, uid, job, path, &created, &existed, &st);
    const char *kube_uid = json_string_value(json_object_get(json_object_get(created, "metadata"), "uid"));
    char companions_failed[600] = "";
    if (rc == KUBE_OK && items && json_array_size(items) > 1) {
        struct api_status cst = {0};
        if (create_companions(kb, uid, job, items, ns, kube_uid ? kube_uid : "", made, &cst) != KUBE_OK) {
            snprintf(companions_failed, sizeof companions_failed, "the companions were not all created: %s",
                     cst.message);
            log_warn("kubernetes: job %s/%s: %s", ns, name, companions_failed);
        }
    }
    pthread_mutex_lock(&kb->mu);
    j = kube_job_find(kb, uid);
    if (rc != KUBE_OK) {
        if (j && !j->sent)
            kube_job_drop(kb, j);
        pthread_mutex_unlock(&kb->mu);
        post_failed(kb, uid, retryable(rc, &st), "%s", st.message);
    } else if (j) {
        snprintf(j->kube_uid, sizeof j->kube_uid, "%s", kube_uid ? kube_uid : "");
        json_array_extend(j->companions, made);
        kube_mark_sent(kb, j);
        pthread_mutex_unlock(&kb->mu);
        if (companions_failed[0])
            log_warn("kubernetes: job %s/%s sent without all its companions", ns, name);
        char ref[BACKEND_REF_MAX];
        snprintf(ref, sizeof ref, "%s/%s", ns, name);
        if (existed) /* it may have moved on since that first send: its state as it is now */
            kube_adopt_now(kb, uid, ref);
    } else {
        pthread_mutex_unlock(&kb->mu);
    }
    json_decref(made);
    json_decref(created);
    return 0;
}

/* The Job a uid was sent as, found by its label when nothing else says (a send that never answered). */
static int find_by_label(struct kube_backend *kb, const char *uid, char *ns, size_t ns_len, char *name, size_t name_len,
                         struct api_status *st)
{
    char path[256], selector[128];
    kube_path(path, sizeof path, KUBE_VOLCANO, NULL, "jobs", NULL, NULL);
    snprintf(selector, sizeof selector, "%s=%s", BACKEND_UID_LABEL, uid);
    json_t *list = NULL;
    int rc = kube_list(kb->client, path, selector, &list, st);
    if (rc == KUBE_ERROR && (st->code == 403 || st->code == 404)) { /* no right to list every namespace */
        kube_path(path, sizeof path, KUBE_VOLCANO, kb->ns, "jobs", NULL, NULL);
        rc = kube_list(kb->client, path, selector, &list, st);
    }
    if (rc != KUBE_OK)
        return rc;
    json_t *item = json_array_get(json_object_get(list, "items"), 0);
    const char *n = json_string_value(json_object_get(json_object_get(item, "metadata"), "name"));
    const char *s = json_string_value(json_object_get(json_object_get(item, "metadata"), "namespace"));
    snprintf(ns, ns_len, "%s", s ? s : kb->ns);
    snprintf(name, name_len, "%s", n ? n : "");
    json_decref(list);
    return KUBE_OK;
}

/* After a Job is known gone: remove reports REMOVED and forgets it; stop keeps following its pods. */
static void gone_now(struct kube_backend *kb, const char *uid, bool stop)
{
    pthread_mutex_lock(&kb->mu);
    struct kube_job *j = kube_job_find(kb, uid);
    if (stop) {
        if (j) {
            j->stopping = false;
            j->kube_uid[0] = '\0';
        }
    } else {
        kube_post(kb, backend_update_new(BACKEND_REMOVED, uid, j ? j->name : NULL));
        if (j)
            kube_job_drop(kb, j);
    }
    pthread_mutex_unlock(&kb->mu);
}

int kube_remove_now(struct kube_backend *kb, const char *uid, const char *ref, bool stop)
{
    char ns[BACKEND_NAME_MAX] = "", name[BACKEND_NAME_MAX * 4] = "", path[768];
    json_t *companions = NULL;
    struct api_status st = {0};
    pthread_mutex_lock(&kb->mu);
    struct kube_job *j = kube_job_find(kb, uid);
    if (!j && !stop)
        j = kube_job_track(kb, uid);
    if (j) {
        if (stop)
            j->stopping = true;
        else
            j->removing = true;
        snprintf(ns, sizeof ns, "%s", j->ns);
        snprintf(name, sizeof name, "%s", j->name);
        companions = json_deep_copy(j->companions);
    }
    pthread_mutex_unlock(&kb->mu);
    if (!name[0] && kube_split_ref(kb, ref, ns, sizeof ns, name, sizeof name) != 0) {
        int rc = find_by_label(kb, uid, ns, sizeof ns, name, sizeof name, &st);
        if (rc != KUBE_OK) {
            json_decref(companions);
            return retryable(rc, &st) ? -1 : 0;
        }
    }
    size_t i;
    json_t *c;
    int rc = KUBE_OK;
    json_array_foreach(companions, i, c)
    {
        int one = kube_delete(kb->client, json_string_value(c), NULL, &st);
        if (one != KUBE_OK && !(one == KUBE_ERROR && st.code == 404))
            rc = one;
    }
    json_decref(companions);
    if (rc == KUBE_UNREACHABLE)
        return -1;
    if (!name[0]) { /* never created */
        gone_now(kb, uid, stop);
        return 0;
    }
    if (kube_path(path, sizeof path, KUBE_VOLCANO, ns, "jobs", name, NULL) != 0)
        return 0;
    pthread_mutex_lock(&kb->mu);
    if ((j = kube_job_find(kb, uid)) && !j->name[0]) { /* the watches find it by name now */
        snprintf(j->ns, sizeof j->ns, "%s", ns);
        snprintf(j->name, sizeof j->name, "%s", name);
    }
    pthread_mutex_unlock(&kb->mu);
    rc = kube_delete(kb->client, path, NULL, &st);
    if (rc == KUBE_ERROR && st.code == 404) {
        gone_now(kb, uid, stop);
        return 0;
    }
    if (rc != KUBE_OK) {
        log_warn("kubernetes: delete %s/%s: %s", ns, name, st.message);
        return retryable(rc, &st) ? -1 : 0;
    }
    return 0; /* the watch reports it gone */
}

int kube_act_now(struct kube_backend *kb, const char *uid, const char *ref, enum backend_action action)
{
    char ns[BACKEND_NAME_MAX] = "", name[BACKEND_NAME_MAX * 4] = "", path[768];
    pthread_mutex_lock(&kb->mu);
    struct kube_job *j = kube_job_find(kb, uid);
    if (j) {
        snprintf(ns, sizeof ns, "%s", j->ns);
        snprintf(name, sizeof name, "%s", j->name);
    }
    pthread_mutex_unlock(&kb->mu);
    if (!name[0] && kube_split_ref(kb, ref, ns, sizeof ns, name, sizeof name) != 0)
        return 0;
    struct api_status st = {0};
    json_t *job = NULL;
    kube_path(path, sizeof path, KUBE_VOLCANO, ns, "jobs", name, NULL);
    int rc = kube_get(kb->client, path, &job, &st);
    if (rc != KUBE_OK) {
        log_warn("kubernetes: %s %s/%s: %s", action == BACKEND_SUSPEND ? "suspend" : "resume", ns, name, st.message);
        return retryable(rc, &st) ? -1 : 0;
    }
    const char *verb = action == BACKEND_SUSPEND ? "AbortJob" : "ResumeJob";
    const char *kube_uid = json_string_value(json_object_get(json_object_get(job, "metadata"), "uid"));
    char gen[BACKEND_NAME_MAX * 4 + 16];
    snprintf(gen, sizeof gen, "%s-%s-", name, action == BACKEND_SUSPEND ? "abortjob" : "resumejob");
    json_t *owner = json_pack("{s:s,s:s,s:s,s:s,s:b,s:b}", "apiVersion", KUBE_VOLCANO, "kind", "Job", "name", name,
                              "uid", kube_uid ? kube_uid : "", "controller", 1, "blockOwnerDeletion", 1);
    json_t *cmd = json_pack("{s:s,s:s,s:{s:s,s:s,s:[O]},s:s,s:O}", "apiVersion", KUBE_BUS, "kind", "Command",
                            "metadata", "generateName", gen, "namespace", ns, "ownerReferences", owner, "action", verb,
                            "target", owner);
    json_decref(owner);
    json_decref(job);
    if (!cmd)
        return 0;
    label(cmd, uid);
    char *body = json_dumps(cmd, JSON_COMPACT);
    json_decref(cmd);
    kube_path(path, sizeof path, KUBE_BUS, ns, "commands", NULL, NULL);
    rc = body ? kube_create(kb->client, path, body, NULL, &st) : KUBE_OK;
    free(body);
    if (rc != KUBE_OK)
        log_warn("kubernetes: %s %s/%s: %s", verb, ns, name, st.message);
    return rc != KUBE_OK && retryable(rc, &st) ? -1 : 0;
}
