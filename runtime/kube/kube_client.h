/* A small Kubernetes API client over libcurl (common/http_client.c), kept to what a real API server
 * takes: JSON bodies, `?fieldManager=` on writes, DeleteOptions with a propagation policy, watches with
 * a resourceVersion and bookmarks, and every error answer read as a Status. One client may be shared
 * by threads: it is never changed after kube_client_open (a tokenFile is read at each request). */
#ifndef CALDERA_KUBE_CLIENT_H
#define CALDERA_KUBE_CLIENT_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>

#include "common/api_status.h"
#include "model/kubeconfig.h"

#define KUBE_FIELD_MANAGER "caldera"
#define KUBE_RV_MAX 64

struct kube_client;

struct kube_client_options {
    long timeout_ms;         /* each request but a watch; 0: 30 s */
    long connect_timeout_ms; /* 0: 10 s */
    /* Each request as it goes on the wire (header block, then body): the golden files' recorder. */
    void (*sent)(void *ctx, const char *data, size_t len);
    void *sent_ctx;
};

/* What a call came to. An error answer fills st from the server's Status; no answer fills st with
 * 503 ServiceUnavailable and the transport's words. */
enum kube_result {
    KUBE_OK = 0,
    KUBE_ERROR = -1,       /* the server answered an error: st */
    KUBE_UNREACHABLE = -2, /* no answer (refused, TLS, timeout, cancelled): st */
    KUBE_GONE = 1,         /* a watch's resourceVersion is too old (410, or an ERROR event of 410): list again */
    KUBE_STOPPED = 2,      /* a watch's callback asked it to stop */
};

/* Opens a client for the kubeconfig's server: reads the certificate authority, client certificate
 * and key files it names (a tokenFile is read at each request, as projected tokens rotate). Returns 0,
 * or -1 with st saying which file or setting failed. opt may be NULL. */
int kube_client_open(const struct kubeconfig *kc, const struct kube_client_options *opt, struct kube_client **out,
                     struct api_status *st);
void kube_client_close(struct kube_client *c);
/* The context's namespace ("default" when it names none). */
const char *kube_client_namespace(const struct kube_client *c);

/* A resource's path: "/api/v1" for group_version "v1", else "/apis/<group_version>"; then
 * "/namespaces/<ns>" when ns is set, "/<plural>", "/<name>" and "/<sub>" when set. Returns 0, or -1
 * when it does not fit. */
int kube_path(char *buf, size_t len, const char *group_version, const char *ns, const char *plural, const char *name,
              const char *sub);

/* POST body (a JSON object's text) to a collection's path with ?fieldManager=caldera; *out (may be
 * NULL) gets the created object. */
int kube_create(struct kube_client *c, const char *path, const char *body, json_t **out, struct api_status *st);
/* GET an object, or a list with an optional labelSelector (NULL: none; the list's
 * metadata.resourceVersion is where a watch goes on from). */
int kube_get(struct kube_client *c, const char *path, json_t **out, struct api_status *st);
int kube_list(struct kube_client *c, const char *path, const char *label_selector, json_t **out, struct api_status *st);
/* DELETE with DeleteOptions {propagationPolicy: Background}: the owner goes at once and the garbage
 * collector takes what it owns. *out (may be NULL) gets the answer (the object, or a Status). */
int kube_delete(struct kube_client *c, const char *path, json_t **out, struct api_status *st);
/* GET of a text answer (a pod's log: path ".../pods/NAME/log", query such as "container=c&tailLines=10"
 * or NULL): *out a heap string of *len bytes. */
int kube_get_text(struct kube_client *c, const char *path, const char *query, char **out, size_t *len,
                  struct api_status *st);

enum kube_event_type { KUBE_ADDED, KUBE_MODIFIED, KUBE_DELETED, KUBE_BOOKMARK };

/* One watch: GET path?watch=true&resourceVersion=RV&allowWatchBookmarks=true&timeoutSeconds=N. */
struct kube_watch {
    const char *path;           /* a collection's path */
    const char *label_selector; /* NULL: none */
    const char *field_selector; /* NULL: none */
    /* In: where to go on from ("" or "0": the list as it is first, each item ADDED). Out: the last
     * resourceVersion seen, bookmarks included: where the next watch goes on from. */
    char resource_version[KUBE_RV_MAX];
    int timeout_s;       /* the server ends the stream after this (0: 300) */
    atomic_bool *cancel; /* NULL, or another thread's stop: the watch ends KUBE_UNREACHABLE soon after */
    /* Each event as it arrives; object is borrowed for the call. Non-zero stops the watch. */
    int (*on_event)(void *ctx, enum kube_event_type type, json_t *object);
    void *ctx;
    long events, bookmarks; /* counted */
};

/* Runs one watch stream to its end. KUBE_OK: the server ended it (timeoutSeconds): watch again from
 * w->resource_version. KUBE_GONE: list again and watch from the list's resourceVersion. KUBE_STOPPED:
 * on_event asked. KUBE_ERROR (an error answer, or an ERROR event other than 410) and KUBE_UNREACHABLE
 * fill st. */
int kube_watch(struct kube_client *c, struct kube_watch *w, struct api_status *st);

#endif
