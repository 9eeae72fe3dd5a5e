/* Refusing a request whose path names a namespace Kubernetes could not have (not a DNS-1123 label:
 * at most 63 characters of [a-z0-9-]), before its handler, so such a name never reaches the core. */
#include <stdio.h>
#include <string.h>

#include "adapters/intake/meta_limits.h"
#include "gateway/http/http.h"
#include "gateway/limits/gates.h"

/* The index among the route's placeholders of the one after a "namespaces" segment, or -1. */
static int namespace_param(const char *pattern)
{
    int index = 0;
    bool after_namespaces = false;
    for (const char *p = pattern; *p == '/';) {
        const char *seg = p + 1, *end = strchr(seg, '/');
        size_t len = end ? (size_t)(end - seg) : strlen(seg);
        if (len > 1 && seg[0] == '{') {
            if (after_namespaces)
                return index;
            index++;
        }
        after_namespaces = len == 10 && strncmp(seg, "namespaces", 10) == 0;
        p = seg + len;
    }
    return -1;
}

bool gateway_refuse_bad_namespace(struct http_req *req, const char *route_pattern)
{
    int i = namespace_param(route_pattern);
    if (i < 0 || i >= req->nparams)
        return false;
    const char *why[4];
    char buf[96];
    int n = meta_dns1123_label_problems(req->params[i], why, buf, sizeof buf);
    if (n == 0)
        return false;
    struct api_status st = {0};
    api_add_cause(&st, "metadata.namespace", "FieldValueInvalid", 0, 0, "Invalid value: \"%.48s%s\": %s",
                  req->params[i], strlen(req->params[i]) > 48 ? "..." : "", why[0]);
    api_fail(&st, 400, "BadRequest", "the namespace in the request path (\"%.48s%s\") is not valid: %s", req->params[i],
             strlen(req->params[i]) > 48 ? "..." : "", why[0]);
    http_respond_status(req, &st);
    return true;
}
