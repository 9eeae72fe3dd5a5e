/* A Queue document of a trace: parsed and validated by adapters/queue, arriving at
 * caldera.io/arrival (default 0). */
#include "adapters/objects/queue.h"
#include "tools/simulate/trace_internal.h"

int trace_load_queue(const struct intake_doc *doc, struct trace_queue *out, struct api_status *st)
{
    struct trace_annotations ann;
    *out = (struct trace_queue){0};
    if (!trace_read_annotations(doc, false, &ann, st)) {
        const char *name = json_string_value(json_object_get(json_object_get(doc->root, "metadata"), "name"));
        return api_fail_invalid(st, "Queue.scheduling.volcano.sh", name ? name : "");
    }
    if (queue_from_doc(doc, &out->queue, st) != 0)
        return -1;
    out->arrival_ms = ann.arrival_ms;
    return 0;
}
