/* jobctl's requests to the job server: one call sends a request, reports any failure on stderr
 * (unreachable server, Status, odd answer) and hands back the body only on success. */
#ifndef CALDERA_JOBCTL_API_H
#define CALDERA_JOBCTL_API_H

#include <jansson.h>
#include <stddef.h>

#include "common/http_client.h"
#include "tools/jobctl/args.h"

struct api_body {
    const char *data; /* NULL: no body */
    size_t len;
    const char *content_type;
};

/* "<group_version>/namespaces/<ns>/<resource>[/<name>][/<sub>]" with ns and name escaped; a heap
 * string (NULL when memory runs out). name and sub may be NULL. */
char *api_ns_path(const char *group_version, const char *ns, const char *resource, const char *name, const char *sub);

/* base (a heap string, taken) with ?key=value&... (or &key=... when base has a query) for each of
 * the n values not NULL, escaped. NULL when base is NULL or memory runs out. */
char *api_with_query(char *base, const char *const *keys, const char *const *values, int n);

/* base (a heap string, taken) with ?limit= and ?continue= when the line gave --limit or --continue:
 * the next page of a list the server answered in pages. NULL when memory runs out. */
char *api_page_path(char *base, const struct jobctl_args *a);

/* Sends method path (+ body) to a->server. Returns JOBCTL_OK with the 2xx answer in *resp (free it
 * with http_response_free), or JOBCTL_FAIL after printing why on stderr. */
int api_call(const struct jobctl_args *a, const char *method, const char *path, const struct api_body *body,
             struct http_response *resp);
/* Sends method path without a body and hands back whatever the server answered (any code) in *resp:
 * JOBCTL_OK once an answer came, JOBCTL_FAIL after saying why none did. */
int api_fetch(const struct jobctl_args *a, const char *method, const char *path, struct http_response *resp);
/* Whether job name exists in a->ns: 1, 0 (404), or -1 after saying why the server could not say. */
int api_job_exists(const struct jobctl_args *a, const char *name);
/* api_call whose answer must be a JSON object, returned in *out (owned by the caller). */
int api_call_json(const struct jobctl_args *a, const char *method, const char *path, const struct api_body *body,
                  json_t **out);
static inline int api_get_json(const struct jobctl_args *a, const char *path, json_t **out)
{
    return api_call_json(a, "GET", path, NULL, out);
}

/* Pretty-prints v on stdout (for -o json). */
void api_print_json(const json_t *v);

#endif
