/* A GET whose 2xx answer goes to a sink as its bytes arrive (a followed log), unchanged: libcurl
 * directly, since the shared client's stream splits lines and drops blank ones. Any other answer is
 * collected whole, for its Status. */
#ifndef CALDERA_JOBCTL_LOG_STREAM_H
#define CALDERA_JOBCTL_LOG_STREAM_H

#include <stddef.h>

#include "common/http_client.h"
#include "tools/jobctl/args.h"

/* Called with each piece of a 2xx answer; returns 0 to go on, non-zero to stop. */
typedef int (*log_sink)(void *ctx, const char *data, size_t len);

/* GETs path on a->server with no overall timeout (a followed log lasts as long as its attempt).
 * Returns JOBCTL_OK once an answer came (resp->code says which; on a 2xx its body went to sink and
 * resp->body is empty; free resp with http_response_free), JOBCTL_FAIL after saying on stderr why
 * the server could not be reached. */
int log_stream_get(const struct jobctl_args *a, const char *path, log_sink sink, void *ctx, struct http_response *resp);

#endif
