/* The API client's requests: each a common/http_client.c call with the server's TLS, the bearer token
 * and the content types an API server takes; error answers read as Status (kube_status.c). */
#include "runtime/kube/kube_client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "common/http_client.h"
#include "common/sbuf.h"
#include "runtime/kube/kube_status.h"

#define PEM_MAX (1u << 20)
#define TOKEN_MAX (64u << 10)
#define JSON_ACCEPT "application/json"
#define DELETE_BACKGROUND "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"propagationPolicy\":\"Background\"}"

struct kube_client {
    char *server, *ns, *token, *token_file;
    char *ca, *cert, *key; /* PEM bytes */
    size_t ca_len, cert_len, key_len;
    struct http_tls tls;
    struct kube_client_options opt;
};

/* A PEM from the kubeconfig: its inline bytes, or its file read now. */
static int load_pem(const struct kube_pem *p, const char *what, char **out, size_t *len, struct api_status *st)
{
    if (p->data) {
        if (!(*out = malloc(p->len + 1)))
            return api_fail(st, 500, "InternalError", "out of memory");
        memcpy(*out, p->data, p->len + 1);
        *len = p->len;
        return 0;
    }
    if (p->file && read_file(p->file, PEM_MAX, out, len) != 0)
        return api_fail(st, 400, "BadRequest", "kubeconfig: cannot read the %s %s: %s", what, p->file, strerror(errno));
    return 0;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

int kube_client_open(const struct kubeconfig *kc, const struct kube_client_options *opt, struct kube_client **out,
                     struct api_status *st)
{
    *out = NULL;
    if (!kc->server)
        return api_fail(st, 400, "BadRequest", "kubeconfig: the cluster names no server");
    if (kc->username || kc->password)
        return api_fail(st, 400, "BadRequest",
                        "kubeconfig: basic authentication is not supported (Kubernetes "
                        "removed it in 1.19): give a token or a client certificate");
    if (kc->tls_server_name)
        return api_fail(st, 400, "BadRequest", "kubeconfig: tls-server-name is not supported");
    struct kube_client *c = calloc(1, sizeof *c);
    if (!c)
        return api_fail(st, 500, "InternalError", "out of memory");
    if (opt)
        c->opt = *opt;
    c->server = strdup(kc->server);
    c->ns = strdup(kc->ns ? kc->ns : "default");
    c->token = dup_or_null(kc->token);
    c->token_file = dup_or_null(kc->token_file);
    if (!c->server || !c->ns || (kc->token && !c->token) || (kc->token_file && !c->token_file)) {
        kube_client_close(c);
        return api_fail(st, 500, "InternalError", "out of memory");
    }
    if (load_pem(&kc->ca, "certificate authority", &c->ca, &c->ca_len, st) != 0 ||
        load_pem(&kc->cert, "client certificate", &c->cert, &c->cert_len, st) != 0 ||
        load_pem(&kc->key, "client key", &c->key, &c->key_len, st) != 0) {
        kube_client_close(c);
        return -1;
    }
    c->tls = (struct http_tls){c->ca, c->ca_len, c->cert, c->key, c->cert_len, c->key_len, kc->insecure};
    *out = c;
    return 0;
}

void kube_client_close(struct kube_client *c)
{
    if (!c)
        return;
    free(c->server);
    free(c->ns);
    free(c->token);
    free(c->token_file);
    free(c->ca);
    free(c->cert);
    free(c->key);
    free(c);
}

const char *kube_client_namespace(const struct kube_client *c) { return c->ns; }

int kube_path(char *buf, size_t len, const char *group_version, const char *ns, const char *plural, const char *name,
              const char *sub)
{
    bool core = strcmp(group_version, "v1") == 0;
    int n = snprintf(buf, len, "%s/%s%s%s/%s%s%s%s%s", core ? "/api" : "/apis", group_version, ns ? "/namespaces/" : "",
                     ns ? ns : "", plural, name ? "/" : "", name ? name : "", sub ? "/" : "", sub ? sub : "");
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* A query value, percent-encoded as Go's url.QueryEscape would leave it readable (unreserved kept). */
static void query_param(struct sbuf *b, const char *key, const char *value)
{
    sbuf_printf(b, "%c%s=", strchr(sbuf_str(b), '?') ? '&' : '?', key);
    for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-._~", *p))
            sbuf_append(b, p, 1);
        else
            sbuf_printf(b, "%%%02X", *p);
    }
}

/* The bearer token: the kubeconfig's, or its tokenFile's first line read now. */
static int bearer(const struct kube_client *c, char **token, struct api_status *st)
{
    *token = NULL;
    if (c->token || !c->token_file)
        return 0;
    size_t len = 0;
    if (read_file(c->token_file, TOKEN_MAX, token, &len) != 0)
        return api_fail(st, 401, "Unauthorized", "kubeconfig: cannot read the tokenFile %s: %s", c->token_file,
                        strerror(errno));
    while (len > 0 && strchr(" \t\r\n", (*token)[len - 1]))
        (*token)[--len] = '\0';
    return 0;
}

/* Method on server+url_path (with its query), the answer into resp; KUBE_OK for a 2xx. */
static int request(struct kube_client *c, const char *method, const char *url_path, const char *body,
                   const char *accept, struct http_response *resp, struct api_status *st)
{
    char *file_token = NULL, err[512];
    if (bearer(c, &file_token, st) != 0)
        return KUBE_ERROR;
    struct sbuf url = {0};
    sbuf_printf(&url, "%s%s", c->server, url_path);
    if (url.failed) {
        free(file_token);
        return api_fail(st, 500, "InternalError", "out of memory");
    }
    struct http_request req = {
        .method = method,
        .url = url.data,
        .body = body,
        .body_len = body ? strlen(body) : 0,
        .content_type = body ? "application/json" : NULL,
        .bearer = c->token ? c->token : file_token,
        .timeout_ms = c->opt.timeout_ms > 0 ? c->opt.timeout_ms : 30000,
        .accept = accept,
        .tls = &c->tls,
        .connect_timeout_ms = c->opt.connect_timeout_ms > 0 ? c->opt.connect_timeout_ms : 10000,
        .sent = c->opt.sent,
        .sent_ctx = c->opt.sent_ctx,
    };
    int rc = http_do(&req, resp, err, sizeof err);
    free(file_token);
    sbuf_free(&url);
    if (rc != 0) {
        api_fail(st, 503, "ServiceUnavailable", "%s", err);
        return KUBE_UNREACHABLE;
    }
    if (resp->code < 200 || resp->code > 299) {
        kube_status_from_answer(resp->code, resp->body, resp->len, st);
        return KUBE_ERROR;
    }
    return KUBE_OK;
}

/* request() whose answer is a JSON object, into *out (may be NULL). */
static int request_json(struct kube_client *c, const char *method, const char *url_path, const char *body, json_t **out,
                        struct api_status *st)
{
    if (out)
        *out = NULL;
    struct http_response resp;
    int rc = request(c, method, url_path, body, JSON_ACCEPT, &resp, st);
    if (rc == KUBE_OK && out) {
        json_error_t jerr;
        *out = json_loadb(resp.body, resp.len, 0, &jerr);
        if (!*out)
            rc = api_fail(st, 500, "InternalError", "%s %s: the answer is not JSON: %s", method, url_path, jerr.text);
    }
    http_response_free(&resp);
    return rc;
}

int kube_create(struct kube_client *c, const char *path, const char *body, json_t **out, struct api_status *st)
{
    struct sbuf p = {0};
    sbuf_puts(&p, path);
    query_param(&p, "fieldManager", KUBE_FIELD_MANAGER);
    int rc = p.failed ? api_fail(st, 500, "InternalError", "out of memory")
                      : request_json(c, "POST", p.data, body, out, st);
    sbuf_free(&p);
    return rc;
}

int kube_get(struct kube_client *c, const char *path, json_t **out, struct api_status *st)
{
    return request_json(c, "GET", path, NULL, out, st);
}

int kube_list(struct kube_client *c, const char *path, const char *label_selector, json_t **out, struct api_status *st)
{
    struct sbuf p = {0};
    sbuf_puts(&p, path);
    if (label_selector)
        query_param(&p, "labelSelector", label_selector);
    int rc = p.failed ? api_fail(st, 500, "InternalError", "out of memory")
                      : request_json(c, "GET", p.data, NULL, out, st);
    sbuf_free(&p);
    return rc;
}

int kube_delete(struct kube_client *c, const char *path, json_t **out, struct api_status *st)
{
    return request_json(c, "DELETE", path, DELETE_BACKGROUND, out, st);
}

int kube_get_text(struct kube_client *c, const char *path, const char *query, char **out, size_t *len,
                  struct api_status *st)
{
    *out = NULL;
    *len = 0;
    struct sbuf p = {0};
    sbuf_printf(&p, "%s%s%s", path, query ? "?" : "", query ? query : "");
    if (p.failed)
        return api_fail(st, 500, "InternalError", "out of memory");
    struct http_response resp;
    int rc = request(c, "GET", p.data, NULL, "application/json, */*", &resp, st);
    sbuf_free(&p);
    if (rc == KUBE_OK) {
        *out = resp.body;
        *len = resp.len;
        resp.body = NULL;
    }
    http_response_free(&resp);
    return rc;
}

/* The stream's state between lines: the watch, and the ERROR event's Status when one came. */
struct watch_state {
    struct kube_watch *w;
    json_t *error; /* the Status of an ERROR event */
    bool stopped;
};

static int event_type(const char *t, enum kube_event_type *out)
{
    static const char *const names[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK"};
    for (int i = 0; i < 4; i++) {
        if (strcmp(t, names[i]) == 0) {
            *out = (enum kube_event_type)i;
            return 0;
        }
    }
    return -1;
}

/* One line of the stream: {"type":...,"object":{...}}. Non-zero ends the stream. */
static int watch_line(void *ctx, const char *line, size_t len)
{
    struct watch_state *ws = ctx;
    struct kube_watch *w = ws->w;
    json_t *ev = json_loadb(line, len, 0, NULL);
    const char *type = json_string_value(json_object_get(ev, "type"));
    json_t *obj = json_object_get(ev, "object");
    enum kube_event_type t;
    int stop = 0;
    if (!type || !json_is_object(obj)) {
        ws->error = json_pack("{s:s,s:i,s:s,s:s}", "kind", "Status", "code", 500, "reason", "InternalError", "message",
                              "a watch event that is not {type, object}");
        stop = 1;
    } else if (strcmp(type, "ERROR") == 0) {
        ws->error = json_incref(obj);
        stop = 1;
    } else if (event_type(type, &t) == 0) {
        const char *rv = json_string_value(json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
        if (rv && *rv)
            snprintf(w->resource_version, sizeof w->resource_version, "%s", rv);
        if (t == KUBE_BOOKMARK)
            w->bookmarks++;
        else
            w->events++;
        if (w->on_event && w->on_event(w->ctx, t, obj) != 0) {
            ws->stopped = true;
            stop = 1;
        }
    } /* an unknown type is skipped, as client-go's watcher skips it */
    json_decref(ev);
    return stop;
}

int kube_watch(struct kube_client *c, struct kube_watch *w, struct api_status *st)
{
    char *file_token = NULL, err[512];
    if (bearer(c, &file_token, st) != 0)
        return KUBE_ERROR;
    int timeout_s = w->timeout_s > 0 ? w->timeout_s : 300;
    struct sbuf url = {0};
    sbuf_printf(&url, "%s%s", c->server, w->path);
    query_param(&url, "watch", "true");
    if (w->resource_version[0])
        query_param(&url, "resourceVersion", w->resource_version);
    query_param(&url, "allowWatchBookmarks", "true");
    if (w->label_selector)
        query_param(&url, "labelSelector", w->label_selector);
    if (w->field_selector)
        query_param(&url, "fieldSelector", w->field_selector);
    sbuf_printf(&url, "&timeoutSeconds=%d", timeout_s);
    if (url.failed) {
        free(file_token);
        return api_fail(st, 500, "InternalError", "out of memory");
    }
    struct http_request req = {
        .url = url.data,
        .bearer = c->token ? c->token : file_token,
        .timeout_ms = (timeout_s + 30) * 1000L, /* the server ends it first */
        .accept = JSON_ACCEPT,
        .tls = &c->tls,
        .connect_timeout_ms = c->opt.connect_timeout_ms > 0 ? c->opt.connect_timeout_ms : 10000,
        .cancel = w->cancel,
        .sent = c->opt.sent,
        .sent_ctx = c->opt.sent_ctx,
    };
    struct watch_state ws = {w, NULL, false};
    struct http_response resp;
    int rc = http_stream(&req, watch_line, &ws, &resp, err, sizeof err);
    free(file_token);
    sbuf_free(&url);
    if (rc != 0) {
        json_decref(ws.error);
        api_fail(st, 503, "ServiceUnavailable", "%s", err);
        return KUBE_UNREACHABLE;
    }
    int result = KUBE_OK;
    if (resp.code < 200 || resp.code > 299) {
        kube_status_from_answer(resp.code, resp.body, resp.len, st);
        result = resp.code == 410 ? KUBE_GONE : KUBE_ERROR;
    } else if (ws.error) {
        kube_status_from_object(ws.error, 500, st);
        result = st->code == 410 ? KUBE_GONE : KUBE_ERROR;
    } else if (ws.stopped) {
        result = KUBE_STOPPED;
    }
    json_decref(ws.error);
    http_response_free(&resp);
    return result;
}
