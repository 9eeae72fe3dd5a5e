/* One HTTP request with libcurl, answered as code + body. Each call uses its own easy handle,
 * so threads may call it concurrently once curl_global_init() has run. */
#include "common/http_client.h"

#include <curl/curl.h>
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

int http_do(const struct http_request *req, struct http_response *resp, char *err, size_t errlen)
{
    memset(resp, 0, sizeof *resp);
    CURL *c = curl_easy_init();
    if (!c) {
        snprintf(err, errlen, "libcurl could not start a request");
        return -1;
    }
    struct sbuf body = {0};
    struct curl_slist *headers = NULL;
    char line[4200];
    char curl_err[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(c, CURLOPT_URL, req->url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method ? req->method : "GET");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, req->timeout_ms > 0 ? req->timeout_ms : 30000L);
    if (req->body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
        snprintf(line, sizeof line, "Content-Type: %s", req->content_type ? req->content_type : "application/json");
        headers = curl_slist_append(headers, line);
    }
    if (req->bearer) {
        snprintf(line, sizeof line, "Authorization: Bearer %s", req->bearer);
        headers = curl_slist_append(headers, line);
    }
    headers = curl_slist_append(headers, "Expect:");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);

    CURLcode rc = curl_easy_perform(c);
    int result = 0;
    if (rc != CURLE_OK) {
        snprintf(err, errlen, "%s: %s", req->url, curl_err[0] ? curl_err : curl_easy_strerror(rc));
        sbuf_free(&body);
        result = -1;
    } else {
        char *ct = NULL;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->code);
        curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct);
        if (ct)
            snprintf(resp->content_type, sizeof resp->content_type, "%s", ct);
        resp->len = body.len;
        resp->body = sbuf_take(&body);
        if (!resp->body) {
            snprintf(err, errlen, "out of memory reading the answer");
            result = -1;
        }
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
