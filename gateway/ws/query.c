/* A WebSocket subscriber's query (namespace, job or pod, since) and the filter it makes, both pure so
 * unit tests hold them; the handshake (handshake.c) feeds the parameters libwebsockets parsed. */
#include "gateway/ws/query.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(struct api_status *st, const char *param, const char *cause_reason, const char *why)
{
    api_add_cause(st, param, cause_reason, 0, 0, "%s", why);
    return api_fail(st, 400, "BadRequest", "%s: %s", param, why);
}

/* The value slot of a known parameter, or NULL. */
static char *slot_of(struct ws_subscription *sub, const char *key, size_t keylen, size_t *cap)
{
    static const char *const names[] = {"namespace", "job", "pod"};
    char *slots[] = {sub->ns, sub->job, sub->pod};
    for (int i = 0; i < 3; i++) {
        if (strlen(names[i]) == keylen && strncmp(names[i], key, keylen) == 0) {
            *cap = WS_NAME_MAX + 1;
            return slots[i];
        }
    }
    return NULL;
}

static int parse_since(const char *value, struct ws_subscription *sub, struct api_status *st)
{
    if (sub->has_since)
        return bad(st, "since", "FieldValueDuplicate", "given more than once");
    char *end;
    errno = 0;
    unsigned long long v = value[0] >= '0' && value[0] <= '9' ? strtoull(value, &end, 10) : 0;
    if (value[0] < '0' || value[0] > '9' || errno || *end || v > INT64_MAX)
        return bad(st, "since", "FieldValueInvalid",
                   "wants the sequence number of the last event received (a whole number), not the value given");
    sub->has_since = true;
    sub->since = (uint64_t)v;
    return 0;
}

int ws_query_parse(const char *const *args, int nargs, struct ws_subscription *sub, struct api_status *st)
{
    memset(sub, 0, sizeof *sub);
    for (int i = 0; i < nargs; i++) {
        const char *arg = args[i], *eq = strchr(arg, '=');
        size_t keylen = eq ? (size_t)(eq - arg) : strlen(arg);
        const char *value = eq ? eq + 1 : "";
        char key[32];
        snprintf(key, sizeof key, "%.*s", (int)(keylen < sizeof key ? keylen : sizeof key - 1), arg);
        if (keylen == 5 && strncmp(arg, "since", 5) == 0) {
            if (parse_since(value, sub, st) != 0)
                return -1;
            continue;
        }
        size_t cap = 0;
        char *slot = slot_of(sub, arg, keylen, &cap);
        if (!slot) {
            api_add_cause(st, key, "FieldValueNotSupported", 0, 0, "unknown query parameter");
            return api_fail(st, 400, "BadRequest",
                            "%s: unknown query parameter; this stream takes namespace, job, pod and since", key);
        }
        if (slot[0])
            return bad(st, key, "FieldValueDuplicate", "given more than once");
        if (!value[0] || strlen(value) >= cap || strchr(value, '/'))
            return bad(st, key, "FieldValueInvalid", "wants a name (1 to 253 characters, no '/')");
        strcpy(slot, value);
    }
    if (sub->job[0] && sub->pod[0])
        return bad(st, "pod", "FieldValueForbidden", "cannot be given with job: follow a job or one of its pods");
    if ((sub->job[0] || sub->pod[0]) && !sub->ns[0])
        return bad(st, "namespace", "FieldValueRequired", sub->job[0] ? "required with job" : "required with pod");
    return 0;
}

bool ws_subscription_matches(const struct ws_subscription *sub, const char *kind, const char *ns, const char *name,
                             const char *job_name)
{
    if (!sub->ns[0])
        return true;
    if (strcmp(sub->ns, ns) != 0)
        return false;
    if (sub->job[0])
        return strcmp(sub->job, job_name) == 0;
    if (sub->pod[0])
        return strcmp(kind, "Pod") == 0 && strcmp(sub->pod, name) == 0;
    return true;
}
