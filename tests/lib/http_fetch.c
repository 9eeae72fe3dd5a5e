/* One HTTP request with libcurl that keeps the whole answer (code, header lines, body), for tests of
 * the proxy and of what the server sends back verbatim. */
#include "tests/lib/http_fetch.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

size_t http_into_sbuf(char *data, size_t size, size_t n, void *ctx)
{
    sbuf_append(ctx, data, size * n);
    return size * n;
}

struct http_answer http_fetch(const char *method, const char *url, const char *const *headers, const char *body)
{
    struct http_answer a = {0};
    CURL *e = curl_easy_init();
    struct curl_slist *h = NULL;
    for (int i = 0; headers && headers[i]; i++)
        h = curl_slist_append(h, headers[i]);
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, http_into_sbuf);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &a.head);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, http_into_sbuf);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &a.body);
    curl_easy_setopt(e, CURLOPT_TIMEOUT, 30L);
    if (body) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    }
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    CURLcode rc = curl_easy_perform(e);
    if (rc != CURLE_OK)
        fprintf(stderr, "# %s %s: %s\n", method, url, curl_easy_strerror(rc));
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &a.code);
    curl_slist_free_all(h);
    curl_easy_cleanup(e);
    return a;
}

void http_answer_free(struct http_answer *a)
{
    sbuf_free(&a->head);
    sbuf_free(&a->body);
}
