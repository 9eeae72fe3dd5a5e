/* Status objects into struct api_status: code, reason, message, details (name, group, kind, causes,
 * retryAfterSeconds); a body that is no Status keeps its first line as the message. */
#include "runtime/kube/kube_status.h"

#include <stdio.h>
#include <string.h>

/* The reason client-go gives an answer with no Status of its own. */
static const char *reason_of(long code)
{
    switch (code) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 406: return "NotAcceptable";
    case 409: return "Conflict";
    case 410: return "Expired";
    case 413: return "RequestEntityTooLarge";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 500: return "InternalError";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return "Unknown";
    }
}

static const char *str_or(const json_t *obj, const char *key, const char *fallback)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s && *s ? s : fallback;
}

int kube_status_from_object(const json_t *status, long http_code, struct api_status *st)
{
    json_int_t code = json_integer_value(json_object_get(status, "code"));
    if (code < 300 || code > 599)
        code = http_code;
    const char *reason = str_or(status, "reason", reason_of((long)code));
    api_fail(st, (int)code, reason, "%s", str_or(status, "message", reason));
    json_t *d = json_object_get(status, "details");
    if (!json_is_object(d))
        return -1;
    api_set_details(st, str_or(d, "kind", ""), str_or(d, "group", ""), str_or(d, "name", ""));
    json_int_t retry = json_integer_value(json_object_get(d, "retryAfterSeconds"));
    st->retry_after_s = retry > 0 && retry < 86400 ? (int)retry : 0;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(d, "causes"), i, c)
    {
        api_add_cause(st, str_or(c, "field", ""), str_or(c, "reason", ""), 0, 0, "%s", str_or(c, "message", ""));
    }
    return -1;
}

int kube_status_from_answer(long http_code, const char *body, size_t len, struct api_status *st)
{
    json_t *obj = body ? json_loadb(body, len, 0, NULL) : NULL;
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    if (kind && strcmp(kind, "Status") == 0) {
        kube_status_from_object(obj, http_code, st);
        json_decref(obj);
        return -1;
    }
    json_decref(obj);
    size_t n = 0;
    while (body && n < len && n < 512 && body[n] != '\n' && body[n] != '\0')
        n++;
    const char *reason = reason_of(http_code);
    if (n > 0)
        return api_fail(st, (int)http_code, reason, "the server answered %ld: %.*s", http_code, (int)n, body);
    return api_fail(st, (int)http_code, reason, "the server answered %ld with no Status", http_code);
}
