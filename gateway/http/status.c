/* Kubernetes `Status` objects. Field causes keep their YAML line and column in the message (the
 * Status type has no place for them), so a person reading the error finds the spot. */
#include "gateway/http/status.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/utf8.h"

/* s as a JSON string, repaired when it is not UTF-8 (a client's name in a message, a message cut in
 * the middle of a character): a Status can always be sent. */
static json_t *text(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    char *repaired = utf8_repaired(s);
    j = repaired ? json_string(repaired) : NULL;
    free(repaired);
    return j;
}

static json_t *render_cause(const struct api_cause *c)
{
    char message[512];
    if (c->line > 0)
        snprintf(message, sizeof message, "%s (line %d, column %d)", c->message, c->line, c->column);
    else
        snprintf(message, sizeof message, "%s", c->message);
    return json_pack("{s:o, s:o, s:o}", "reason", text(c->reason), "message", text(message), "field", text(c->field));
}

json_t *status_render(const struct api_status *st)
{
    int code = st->code ? st->code : 500;
    json_t *obj = json_pack("{s:s, s:s, s:{}, s:s, s:o, s:o, s:i}", "kind", "Status", "apiVersion", "v1", "metadata",
                            "status", "Failure", "message", text(st->message), "reason",
                            text(st->reason[0] ? st->reason : "Unknown"), "code", code);
    if (!obj)
        return NULL;
    if (st->name[0] || st->kind[0] || st->ncauses > 0 || st->retry_after_s > 0) {
        json_t *details = json_object();
        if (st->name[0])
            json_object_set_new(details, "name", text(st->name));
        if (st->group[0])
            json_object_set_new(details, "group", text(st->group));
        if (st->kind[0])
            json_object_set_new(details, "kind", text(st->kind));
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

int retry_after_seconds(int code, int hint_s)
{
    if (code != 429 && code != 503)
        return 0;
    return hint_s > 0 ? hint_s : 1;
}
