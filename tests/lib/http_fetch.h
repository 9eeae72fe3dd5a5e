/* One HTTP request with libcurl for the tests that must see everything of an answer: its code, its
 * header lines and its body, with the request's own headers and body, redirects not followed. */
#ifndef CALDERA_TEST_HTTP_FETCH_H
#define CALDERA_TEST_HTTP_FETCH_H

#include <stddef.h>

#include "common/sbuf.h"

struct http_answer {
    long code;        /* 0 when no answer came (the reason is printed as a "#" line) */
    struct sbuf head; /* the status line and header lines as received */
    struct sbuf body;
};

/* method url with extra header lines (NULL-terminated, may be NULL) and body (NULL: none); HEAD asks
 * for no body. 30 s at most. */
struct http_answer http_fetch(const char *method, const char *url, const char *const *headers, const char *body);
void http_answer_free(struct http_answer *a);
/* A libcurl write (or header) callback appending what comes to the struct sbuf ctx. */
size_t http_into_sbuf(char *data, size_t size, size_t n, void *ctx);

#endif
