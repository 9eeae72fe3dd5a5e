/* One HTTP request with libcurl, answered as code + body: what jobctl, the tests and later the
 * auth webhook and kube backend use to talk HTTP. Call curl_global_init() once in main. */
#ifndef CALDERA_HTTP_CLIENT_H
#define CALDERA_HTTP_CLIENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* TLS as a kubeconfig gives it: PEM bytes in memory (NULL: libcurl's default trust, no client
 * certificate). */
struct http_tls {
    const char *ca;
    size_t ca_len;
    const char *cert, *key; /* a client certificate and its key, both or neither */
    size_t cert_len, key_len;
    bool insecure; /* no verification of the server's certificate */
};

struct http_request {
    const char *method; /* "GET" when NULL */
    const char *url;
    const char *body; /* may be NULL */
    size_t body_len;
    const char *content_type; /* sent when body is set; default application/json */
    const char *bearer;       /* Authorization: Bearer <token> when set */
    long timeout_ms;          /* whole request; 0 means 30 s */
    /* Optional; zero leaves each out. */
    const char *accept;         /* Accept: <accept> */
    const struct http_tls *tls; /* for https:// URLs */
    long connect_timeout_ms;    /* 0: libcurl's (300 s) */
    atomic_bool *cancel;        /* the request ends (an error) soon after it reads true: another thread's stop */
    /* Each piece of the request as it goes on the wire: the header block, then the body. */
    void (*sent)(void *ctx, const char *data, size_t len);
    void *sent_ctx;
};

struct http_response {
    long code;  /* HTTP status */
    char *body; /* NUL-terminated, never NULL after success */
    size_t len;
    char content_type[128];
};

/* Returns 0 when an HTTP answer came back (any status), or -1 with a sentence in err
 * (connection refused, timeout, ...). */
int http_do(const struct http_request *req, struct http_response *resp, char *err, size_t errlen);
void http_response_free(struct http_response *resp);

/* A streamed answer (a Kubernetes watch): on a 2xx, on_line(ctx, line, len) runs for each line as it
 * arrives (without its newline; blank lines skipped) until the server ends the stream or on_line
 * returns non-zero; any other answer is collected into resp as http_do would. resp->code says which.
 * req->timeout_ms bounds the whole stream (0: none). Returns 0 when an answer came (stopped by
 * on_line included), or -1 with a sentence in err. */
int http_stream(const struct http_request *req, int (*on_line)(void *ctx, const char *line, size_t len), void *ctx,
                struct http_response *resp, char *err, size_t errlen);

#endif
