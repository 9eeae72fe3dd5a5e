/* Streaming a log with libcurl: bytes of a 2xx answer go to the sink as they come; the body of any
 * other answer is kept for its Status. A connection that stays silent for STALL_S seconds (the
 * server gone without closing it) ends the request: the follower then asks again. */
#include "tools/jobctl/log_stream.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sbuf.h"
#include "tools/jobctl/jobctl.h"

#define STALL_S 600

struct stream_state {
    CURL *curl;
    log_sink sink;
    void *ctx;
    struct sbuf other; /* a non-2xx body */
    bool stopped;
};

static size_t on_data(char *data, size_t size, size_t nmemb, void *userp)
{
    struct stream_state *s = userp;
    size_t n = size * nmemb;
    long code = 0;
    curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &code);
    if (code < 200 || code > 299) {
        sbuf_append(&s->other, data, n);
        return s->other.failed ? 0 : n;
    }
    if (s->sink(s->ctx, data, n) != 0) {
        s->stopped = true;
        return 0;
    }
    return n;
}

int log_stream_get(const struct jobctl_args *a, const char *path, log_sink sink, void *ctx, struct http_response *resp)
{
    char *url = NULL, err[CURL_ERROR_SIZE] = "", auth[4096];
    memset(resp, 0, sizeof *resp);
    CURL *c = curl_easy_init();
    if (!c || asprintf(&url, "%s%s", a->server, path) < 0) {
        if (c)
            curl_easy_cleanup(c);
        fprintf(stderr, "jobctl: out of memory\n");
        return JOBCTL_FAIL;
    }
    struct stream_state s = {.curl = c, .sink = sink, .ctx = ctx};
    struct curl_slist *headers = NULL;
    if (a->token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", a->token);
        headers = curl_slist_append(headers, auth);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, (long)STALL_S);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->code);
    curl_slist_free_all(headers);
    curl_easy_cleanup(c);
    resp->len = s.other.len;
    resp->body = sbuf_take(&s.other);
    if (!resp->body)
        resp->body = strdup("");
    int failed = rc != CURLE_OK && !s.stopped && !(rc == CURLE_OPERATION_TIMEDOUT && resp->code == 200);
    if (failed && resp->code == 0) {
        fprintf(stderr, "jobctl: cannot reach the job server at %s: %s\n", a->server,
                err[0] ? err : curl_easy_strerror(rc));
        free(url);
        http_response_free(resp);
        return JOBCTL_FAIL;
    }
    free(url);
    return JOBCTL_OK;
}
