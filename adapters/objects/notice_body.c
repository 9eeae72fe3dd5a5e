/* Notice bodies: the text line shared by the chat formats, and the plain JSON one with every field
 * (times as RFC 3339, absent ones null). */
#include "adapters/objects/notice_body.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"

void notice_text(const struct notice *n, char *buf, size_t len)
{
    char exit[48] = "", pod[320] = "";
    if (n->has_exit_code)
        snprintf(exit, sizeof exit, ", exit code %d", (int)n->exit_code);
    if (n->pod && *n->pod)
        snprintf(pod, sizeof pod, ", pod %s", n->pod);
    const char *reason = n->reason && *n->reason ? n->reason : notice_kind_name(n->kind);
    snprintf(buf, len, "[Caldera] Job %s/%s %s (%s%s%s)%s%s", n->ns, n->job, notice_kind_name(n->kind), reason, exit,
             pod, n->message && *n->message ? ": " : "", n->message ? n->message : "");
}

static json_t *time_or_null(int64_t ms)
{
    if (ms <= 0)
        return json_null();
    char t[RFC3339_LEN];
    rfc3339(ms, t);
    return json_string(t);
}

static json_t *plain(const struct notice *n, const char *text)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "event", notice_kind_name(n->kind),
                          "namespace", n->ns, "job", n->job, "uid", n->uid ? n->uid : "", "user",
                          n->user ? n->user : "", "queue", n->queue ? n->queue : "", "phase", n->phase ? n->phase : "",
                          "reason", n->reason ? n->reason : "", "message", n->message ? n->message : "", "pod",
                          n->pod ? n->pod : "", "text", text);
    if (!o)
        return NULL;
    json_object_set_new(o, "exitCode", n->has_exit_code ? json_integer(n->exit_code) : json_null());
    json_object_set_new(o, "creationTimestamp", time_or_null(n->created_ms));
    json_object_set_new(o, "startTime", time_or_null(n->started_ms));
    json_object_set_new(o, "completionTime", time_or_null(n->finished_ms));
    json_object_set_new(o, "time", time_or_null(n->time_ms));
    return o;
}

char *notice_body(const struct notice *n, enum notify_format format)
{
    char text[2048];
    notice_text(n, text, sizeof text);
    json_t *o = format == NOTIFY_SLACK  ? json_pack("{s:s}", "text", text)
                : format == NOTIFY_LARK ? json_pack("{s:s, s:{s:s}}", "msg_type", "text", "content", "text", text)
                                        : plain(n, text);
    char *body = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return body;
}
