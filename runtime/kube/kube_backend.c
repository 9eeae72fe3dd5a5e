/* The Kubernetes + Volcano backend (runtime/backend.h): a client for the kubeconfig it is given
 * (adapters/objects/kube_backend_open.c reads the file), a sender thread that does the queued writes in
 * order and two watch threads (kube_observe.c); logs() reads a pod's log on the caller's (gateway)
 * thread. The core's calls only queue work. */
#include "runtime/kube/kube_backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/sbuf.h"

#define REQUEST_TIMEOUT_MS 10000

static int queue(struct kube_backend *kb, enum backend_op_kind kind, const char *uid, const char *ref, json_t *manifest,
                 enum backend_action action)
{
    struct backend_op *op = backend_op_new(kind, uid, ref, manifest, action);
    if (!op)
        return -1;
    pthread_mutex_lock(&kb->mu);
    if (kb->tail)
        kb->tail->next = op;
    else
        kb->head = op;
    kb->tail = op;
    pthread_cond_broadcast(&kb->cv);
    pthread_mutex_unlock(&kb->mu);
    return 0;
}

static int do_op(struct kube_backend *kb, struct backend_op *op)
{
    switch (op->kind) {
    case BACKEND_OP_SEND: return kube_send_now(kb, op->uid, op->manifest);
    case BACKEND_OP_REMOVE: return kube_remove_now(kb, op->uid, op->ref, false);
    case BACKEND_OP_STOP: return kube_remove_now(kb, op->uid, op->ref, true);
    case BACKEND_OP_ACT: return kube_act_now(kb, op->uid, op->ref, op->action);
    case BACKEND_OP_ADOPT: return kube_adopt_now(kb, op->uid, op->ref);
    }
    return 0;
}

/* The sender: one queued write at a time, in order. A write the cluster did not answer (remove, stop,
 * act, adopt; a send reports SEND_FAILED instead) goes to the queue's end after a bounded back-off. */
static void *sender_main(void *arg)
{
    struct kube_backend *kb = arg;
    pthread_mutex_lock(&kb->mu);
    while (!atomic_load(&kb->stop)) {
        struct backend_op *op = kb->head;
        if (!op) {
            pthread_cond_wait(&kb->cv, &kb->mu);
            continue;
        }
        kb->head = op->next;
        if (!kb->head)
            kb->tail = NULL;
        op->next = NULL;
        pthread_mutex_unlock(&kb->mu);
        int rc = do_op(kb, op);
        pthread_mutex_lock(&kb->mu);
        if (rc == 0) {
            backend_op_free(op);
            continue;
        }
        int64_t ms = (int64_t)KUBE_BACKOFF_MIN_MS << (op->tries < 5 ? op->tries : 5);
        op->tries++;
        if (kube_wait(kb, ms < KUBE_BACKOFF_MAX_MS ? ms : KUBE_BACKOFF_MAX_MS)) {
            backend_op_free(op);
            break;
        }
        if (kb->tail)
            kb->tail->next = op;
        else
            kb->head = op;
        kb->tail = op;
    }
    pthread_mutex_unlock(&kb->mu);
    return NULL;
}

static int kb_send(void *ctx, const char *job_uid, json_t *manifest)
{
    return queue(ctx, BACKEND_OP_SEND, job_uid, NULL, manifest, BACKEND_SUSPEND);
}

static int kb_remove(void *ctx, const char *job_uid, const char *ref)
{
    return queue(ctx, BACKEND_OP_REMOVE, job_uid, ref, NULL, BACKEND_SUSPEND);
}

static int kb_stop(void *ctx, const char *job_uid, const char *ref)
{
    return queue(ctx, BACKEND_OP_STOP, job_uid, ref, NULL, BACKEND_SUSPEND);
}

static int kb_act(void *ctx, const char *job_uid, const char *ref, enum backend_action action)
{
    return queue(ctx, BACKEND_OP_ACT, job_uid, ref, NULL, action);
}

static int kb_adopt(void *ctx, const char *job_uid, const char *ref)
{
    return queue(ctx, BACKEND_OP_ADOPT, job_uid, ref, NULL, BACKEND_SUSPEND);
}

static int kb_logs(void *ctx, const char *job_uid, const char *ref, const struct backend_log_query *q, char **out,
                   size_t *len, struct api_status *st)
{
    struct kube_backend *kb = ctx;
    char ns[BACKEND_NAME_MAX], name[BACKEND_REF_MAX], path[512];
    (void)job_uid;
    if (kube_split_ref(kb, ref, ns, sizeof ns, name, sizeof name) != 0)
        snprintf(ns, sizeof ns, "%s", kb->ns);
    if (!q || !q->pod || !*q->pod)
        return api_fail(st, 400, "BadRequest", "a log read names no pod");
    if (kube_path(path, sizeof path, "v1", ns, "pods", q->pod, "log") != 0)
        return api_fail(st, 400, "BadRequest", "the pod name %s is too long", q->pod);
    struct sbuf query = {0};
    if (q->tail_lines >= 0)
        sbuf_printf(&query, "tailLines=%lld&", (long long)q->tail_lines);
    if (q->limit_bytes >= 0)
        sbuf_printf(&query, "limitBytes=%lld&", (long long)q->limit_bytes);
    if (q->timestamps)
        sbuf_puts(&query, "timestamps=true&");
    if (query.failed) {
        sbuf_free(&query);
        return api_fail(st, 500, "InternalError", "out of memory");
    }
    char *qs = query.len ? query.data : NULL;
    if (qs)
        qs[query.len - 1] = '\0'; /* the last '&' */
    int rc = kube_get_text(kb->client, path, qs, out, len, st);
    sbuf_free(&query);
    return rc == KUBE_OK ? 0 : -1;
}

static void kb_close(void *ctx)
{
    struct kube_backend *kb = ctx;
    if (!kb)
        return;
    pthread_mutex_lock(&kb->mu);
    atomic_store(&kb->stop, true);
    pthread_cond_broadcast(&kb->cv);
    pthread_mutex_unlock(&kb->mu);
    if (kb->nthreads > 0)
        pthread_join(kb->sender, NULL);
    if (kb->nthreads > 1)
        pthread_join(kb->job_watch, NULL);
    if (kb->nthreads > 2)
        pthread_join(kb->pod_watch, NULL);
    while (kb->head) {
        struct backend_op *op = kb->head;
        kb->head = op->next;
        json_decref(op->manifest);
        free(op);
    }
    while (kb->njobs > 0)
        kube_job_drop(kb, kb->jobs[kb->njobs - 1]);
    free(kb->jobs);
    kube_client_close(kb->client);
    pthread_cond_destroy(&kb->cv);
    pthread_mutex_destroy(&kb->mu);
    free(kb);
}

int kube_backend_start(const struct kubeconfig *kc, const struct backend_host *host,
                       const struct kube_client_options *opt, struct backend **out, struct api_status *st)
{
    *out = NULL;
    struct kube_backend *kb = calloc(1, sizeof *kb);
    if (!kb)
        return api_fail(st, 500, "InternalError", "out of memory");
    struct kube_client_options o = {.timeout_ms = REQUEST_TIMEOUT_MS, .connect_timeout_ms = 3000};
    if (opt)
        o = *opt;
    if (kube_client_open(kc, &o, &kb->client, st) != 0) {
        free(kb);
        return -1;
    }
    snprintf(kb->ns, sizeof kb->ns, "%s", kube_client_namespace(kb->client));
    kb->host = *host;
    pthread_mutex_init(&kb->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&kb->cv, &ca);
    pthread_condattr_destroy(&ca);
    kb->be = (struct backend){.kind = BACKEND_KUBERNETES,
                              .name = "kubernetes",
                              .engine_runs_policies = true,
                              .ctx = kb,
                              .send = kb_send,
                              .remove = kb_remove,
                              .stop = kb_stop,
                              .act = kb_act,
                              .adopt = kb_adopt,
                              .logs = kb_logs,
                              .close = kb_close};
    if (pthread_create(&kb->sender, NULL, sender_main, kb) == 0)
        kb->nthreads++;
    if (kb->nthreads == 1 && pthread_create(&kb->job_watch, NULL, kube_job_watch_main, kb) == 0)
        kb->nthreads++;
    if (kb->nthreads == 2 && pthread_create(&kb->pod_watch, NULL, kube_pod_watch_main, kb) == 0)
        kb->nthreads++;
    if (kb->nthreads < 3) {
        kb_close(kb);
        return api_fail(st, 500, "InternalError", "cannot start the kubernetes backend's threads");
    }
    *out = &kb->be;
    return 0;
}
