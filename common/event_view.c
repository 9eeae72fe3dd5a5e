/* The stream JSON of an event: made the same way from the hub and from the database, so a client
 * resuming across the two sees the same bytes. */
#include "common/event_view.h"

#include <jansson.h>

#include "common/clock.h"

char *event_view_json(const struct event_view *ev)
{
    char time[RFC3339_LEN];
    json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "seq", (json_int_t)ev->seq, "time",
                          rfc3339_ms(ev->time_ms, time), "kind", ev->kind, "namespace", ev->ns, "name", ev->name, "job",
                          ev->job_name, "jobUid", ev->job_uid, "from", ev->from, "to", ev->to, "reason", ev->reason,
                          "message", ev->message);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return text;
}
