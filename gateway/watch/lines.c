/* What a watch shows and the lines it writes: whether the watcher may see a namespace, whether an
 * object of the hub is one the watch shows, and the {"type","object"} and ERROR lines it appends. */
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "gateway/watch/internal.h"

static bool same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

bool watch_may_see(const struct watch_stream *w, const char *ns, bool event)
{
    if (!event && (!ns || !*ns))
        return true; /* cluster-scoped objects: their lists are readable by all */
    return namespace_set_sees_event(w->visible, ns);
}

bool watch_shows_object(const struct watch_stream *w, const struct hub_item *it, const struct watch_object *o)
{
    if (!same(o->kind, w->kind) || !same(o->api_version, w->api_version))
        return false;
    if (w->source_kind && !same(o->source_kind, w->source_kind))
        return false;
    if ((w->ns && !same(o->ns, w->ns)) || !watch_may_see(w, o->ns, false))
        return false;
    if (o->object)
        return selector_match_object(&w->labels, &w->fields, o->kind, o->object);
    if (!selector_match_labels(&w->labels, o->labels))
        return false;
    if (selector_empty(&w->fields))
        return true;
    size_t len;
    const char *text = hub_object_line(it, o, &len);
    json_t *line = text ? json_loadb(text, len, 0, NULL) : NULL;
    bool shown = line && selector_match_fields(&w->fields, o->kind, json_object_get(line, "object"));
    json_decref(line);
    return shown;
}

void watch_append(struct watch_stream *w, const char *type, const json_t *object)
{
    bool change = strcmp(type, "ADDED") == 0 || strcmp(type, "MODIFIED") == 0 || strcmp(type, "DELETED") == 0;
    json_t *table = w->table.wanted && change ? table_from_objects(object, &w->table, clock_wall_ms()) : NULL;
    json_t *line = json_pack("{s:s, s:O}", "type", type, "object", table ? table : (json_t *)object);
    json_decref(table);
    char *text = line ? json_dumps(line, JSON_COMPACT) : NULL;
    json_decref(line);
    if (!text) {
        log_warn("watch: out of memory writing an event; ending the stream");
        w->ended = true;
        return;
    }
    sbuf_puts(&w->out, text);
    sbuf_puts(&w->out, "\n");
    free(text);
}

void watch_append_error(struct watch_stream *w, int code, const char *reason, const char *message)
{
    json_t *status = json_pack("{s:s, s:s, s:{}, s:s, s:s, s:s, s:i}", "kind", "Status", "apiVersion", "v1", "metadata",
                               "status", "Failure", "message", message, "reason", reason, "code", code);
    watch_append(w, "ERROR", status);
    json_decref(status);
}
