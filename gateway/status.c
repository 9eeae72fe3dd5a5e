/* Kubernetes `Status` objects. Field causes keep their YAML line and column in the message (the
 * Status type has no place for them), so a person reading the error finds the spot. */
#include "gateway/status.h"

#include <stdio.h>

static json_t *render_cause(const struct api_cause *c)
{
    char message[512];
    if (c->line > 0)
        snprintf(message, sizeof message, "%s (line %d, column %d)", c->message, c->line, c->column);
    else
        snprintf(message, sizeof message, "%s", c->message);
    return json_pack("{s:s, s:s, s:s}", "reason", c->reason, "message", message, "field", c->field);
}

json_t *status_render(const struct api_status *st)
{
    int code = st->code ? st->code : 500;
    json_t *obj = json_pack("{s:s, s:s, s:{}, s:s, s:s, s:s, s:i}", "kind", "Status", "apiVersion", "v1", "metadata",
                            "status", "Failure", "message", st->message, "reason", st->reason[0] ? st->reason : "Unknown",
                            "code", code);
    if (!obj)
        return NULL;
    if (st->name[0] || st->kind[0] || st->ncauses > 0 || st->retry_after_s > 0) {
        json_t *details = json_object();
        if (st->name[0])
            json_object_set_new(details, "name", json_string(st->name));
        if (st->group[0])
            json_object_set_new(details, "group", json_string(st->group));
        if (st->kind[0])
            json_object_set_new(details, "kind", json_string(st->kind));
        if (st->ncauses > 0) {
            json_t *causes = json_array();
            for (int i = 0; i < st->ncauses && i < API_MAX_CAUSES; i++)
                json_array_append_new(causes, render_cause(&st->causes[i]));
            json_object_set_new(details, "causes", causes);
        }
        if (st->retry_after_s > 0)
            json_object_set_new(details, "retryAfterSeconds", json_integer(st->retry_after_s));
        json_object_set_new(obj, "details", details);
    }
    return obj;
}

char *json_dumps_status(const struct api_status *st)
{
    json_t *obj = status_render(st);
    char *text = obj ? json_dumps(obj, JSON_COMPACT) : NULL;
    json_decref(obj);
    return text;
}
