/* One HTTP request with libcurl, answered as code + body. Each call uses its own easy handle,
 * so threads may call it concurrently once curl_global_init() has run. */
#include "common/http_client.h"

#include <curl/curl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sbuf.h"

static size_t collect(char *data, size_t size, size_t nmemb, void *userp)
{
    struct sbuf *b = userp;
    sbuf_append(b, data, size * nmemb);
    return b->failed ? 0 : size * nmemb;
}

/* The streamed answer's state: the whole body while it is not a 2xx, else the line being read. */
struct stream {
    CURL *c;
    struct sbuf body;
    int (*on_line)(void *ctx, const char *line, size_t len);
    void *ctx;
    bool stopped;
};

static size_t stream_lines(char *data, size_t size, size_t nmemb, void *userp)
{
    struct stream *s = userp;
    size_t n = size * nmemb;
    long code = 0;
    curl_easy_getinfo(s->c, CURLINFO_RESPONSE_CODE, &code);
    sbuf_append(&s->body, data, n);
    if (s->body.failed)
        return 0;
    if (code < 200 || code > 299)
        return n; /* a Status: collected whole */
    size_t start = 0;
    for (size_t i = 0; i < s->body.len; i++) {
        if (s->body.data[i] != '\n')
            continue;
        if (i > start && s->on_line(s->ctx, s->body.data + start, i - start) != 0) {
            s->stopped = true;
            return 0;
        }
        start = i + 1;
    }
    memmove(s->body.data, s->body.data + start, s->body.len - start);
    s->body.len -= start;
    return n;
}

static int debug_sent(CURL *c, curl_infotype type, char *data, size_t len, void *userp)
{
    (void)c;
    const struct http_request *req = userp;
    if (type == CURLINFO_HEADER_OUT || type == CURLINFO_DATA_OUT)
        req->sent(req->sent_ctx, data, len);
    return 0;
}

static int cancel_check(void *userp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    return atomic_load((atomic_bool *)userp) ? 1 : 0;
}

/* The optional parts of req: TLS from memory, the connect timeout, a cancel flag and the sent hook. */
static void prepare_options(CURL *c, const struct http_request *req)
{
    const struct http_tls *tls = req->tls;
    if (tls && tls->ca) {
        struct curl_blob blob = {(void *)tls->ca, tls->ca_len, CURL_BLOB_COPY};
        curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob);
    }
    if (tls && tls->cert && tls->key) {
        struct curl_blob cert = {(void *)tls->cert, tls->cert_len, CURL_BLOB_COPY};
        struct curl_blob key = {(void *)tls->key, tls->key_len, CURL_BLOB_COPY};
        curl_easy_setopt(c, CURLOPT_SSLCERT_BLOB, &cert);
        curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
        curl_easy_setopt(c, CURLOPT_SSLKEY_BLOB, &key);
        curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
    }
    if (tls && tls->insecure) {
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (req->connect_timeout_ms > 0)
        curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, req->connect_timeout_ms);
    if (req->cancel) {
        curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, cancel_check);
        curl_easy_setopt(c, CURLOPT_XFERINFODATA, req->cancel);
        curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    }
    if (req->sent) {
        curl_easy_setopt(c, CURLOPT_DEBUGFUNCTION, debug_sent);
        curl_easy_setopt(c, CURLOPT_DEBUGDATA, req);
        curl_easy_setopt(c, CURLOPT_VERBOSE, 1L);
    }
}

/* An easy handle for req (headers into *headers, libcurl's error into curl_err), the answer going to
 * write(userp). NULL when libcurl cannot start one. */
static CURL *prepare(const struct http_request *req, size_t (*write)(char *, size_t, size_t, void *), void *userp,
                     struct curl_slist **headers, char *curl_err, long default_timeout_ms)
{
    CURL *c = curl_easy_init();
    if (!c)
        return NULL;
    char line[4200];
    curl_easy_setopt(c, CURLOPT_URL, req->url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method ? req->method : "GET");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, userp);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, req->timeout_ms > 0 ? req->timeout_ms : default_timeout_ms);
    if (req->body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
        snprintf(line, sizeof line, "Content-Type: %s", req->content_type ? req->content_type : "application/json");
        *headers = curl_slist_append(*headers, line);
    }
    if (req->accept) {
        snprintf(line, sizeof line, "Accept: %s", req->accept);
        *headers = curl_slist_append(*headers, line);
    }
    if (req->bearer) {
        snprintf(line, sizeof line, "Authorization: Bearer %s", req->bearer);
        *headers = curl_slist_append(*headers, line);
    }
    *headers = curl_slist_append(*headers, "Expect:");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, *headers);
    prepare_options(c, req);
    return c;
}

/* The answer's code, content type and (collected) body into resp. */
static int answer(CURL *c, struct sbuf *body, struct http_response *resp, char *err, size_t errlen)
{
    char *ct = NULL;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->code);
    curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct);
    if (ct)
        snprintf(resp->content_type, sizeof resp->content_type, "%s", ct);
    resp->len = body->len;
    resp->body = sbuf_take(body);
    if (resp->body)
        return 0;
    snprintf(err, errlen, "out of memory reading the answer");
    return -1;
}

int http_stream(const struct http_request *req, int (*on_line)(void *ctx, const char *line, size_t len), void *ctx,
                struct http_response *resp, char *err, size_t errlen)
{
    memset(resp, 0, sizeof *resp);
    struct stream s = {.on_line = on_line, .ctx = ctx};
    struct curl_slist *headers = NULL;
    char curl_err[CURL_ERROR_SIZE] = "";
    s.c = prepare(req, stream_lines, &s, &headers, curl_err, 0);
    if (!s.c) {
        snprintf(err, errlen, "libcurl could not start a request");
        return -1;
    }
    CURLcode rc = curl_easy_perform(s.c);
    int result;
    if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && s.stopped)) {
        snprintf(err, errlen, "%s: %s", req->url, curl_err[0] ? curl_err : curl_easy_strerror(rc));
        sbuf_free(&s.body);
        result = -1;
    } else {
        result = answer(s.c, &s.body, resp, err, errlen);
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(s.c);
    return result;
}

int http_do(const struct http_request *req, struct http_response *resp, char *err, size_t errlen)
{
    memset(resp, 0, sizeof *resp);
    struct sbuf body = {0};
    struct curl_slist *headers = NULL;
    char curl_err[CURL_ERROR_SIZE] = "";
    CURL *c = prepare(req, collect, &body, &headers, curl_err, 30000L);
    if (!c) {
        snprintf(err, errlen, "libcurl could not start a request");
        return -1;
    }
    CURLcode rc = curl_easy_perform(c);
    int result;
    if (rc != CURLE_OK) {
        snprintf(err, errlen, "%s: %s", req->url, curl_err[0] ? curl_err : curl_easy_strerror(rc));
        sbuf_free(&body);
        result = -1;
    } else {
        result = answer(c, &body, resp, err, errlen);
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(c);
    return result;
}

void http_response_free(struct http_response *resp)
{
    free(resp->body);
    memset(resp, 0, sizeof *resp);
}
