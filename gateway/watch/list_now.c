/* The watched list as it is now, from the core once the store has it: where a watch starts, and
 * what catching up compares the database's record with. */
#include <stdlib.h>

#include "gateway/watch/internal.h"
#include "store/store.h"

int watch_list_now(struct watch_stream *w, json_t **body, uint64_t *rv, struct api_status *st)
{
    struct core_request creq = w->list;
    creq.limit = w->gw->list_page_max; /* the core renders no more than a list page would (Jobs, Pods...) */
    if (core_call(w->core, &creq) != 0) {
        *st = creq.status;
        return -1;
    }
    if (creq.more) { /* 410 makes a client list in pages, then watch from that list's resourceVersion */
        json_decref(creq.body);
        return api_fail(st, 410, "Expired",
                        "more than %d objects to start this watch from: list them in pages (limit and continue), "
                        "then watch from the list's resourceVersion",
                        (int)creq.limit);
    }
    if (creq.durable_seq && store_wait(w->gw->store, creq.durable_seq, w->gw->durable_timeout_ms) != 0) {
        json_decref(creq.body);
        return api_fail(st, 503, "ServiceUnavailable", "the job database did not record the list in time");
    }
    const char *text = json_string_value(json_object_get(json_object_get(creq.body, "metadata"), "resourceVersion"));
    *rv = text ? strtoull(text, NULL, 10) : creq.durable_seq;
    *body = creq.body;
    return 0;
}
