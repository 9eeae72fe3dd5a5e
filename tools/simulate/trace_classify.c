/* Telling a trace's documents apart by apiVersion and kind, so each goes to the adapter that
 * parses that kind (nodes, queues, priority classes, quotas, jobs) or to the simulator's settings. */
#include <string.h>

#include "tools/simulate/trace.h"

static const struct {
    const char *api_version;
    const char *kind;
    enum trace_doc_kind doc_kind;
} known_kinds[] = {
    {"v1", "Node", TRACE_DOC_NODE},
    {"v1", "List", TRACE_DOC_NODE_LIST},
    {"scheduling.volcano.sh/v1beta1", "Queue", TRACE_DOC_QUEUE},
    {"batch.volcano.sh/v1alpha1", "Job", TRACE_DOC_JOB},
    {"scheduling.k8s.io/v1", "PriorityClass", TRACE_DOC_PRIORITY_CLASS},
    {"v1", "ResourceQuota", TRACE_DOC_RESOURCE_QUOTA},
    {"caldera.io/v1", "Simulation", TRACE_DOC_SIMULATION},
};

#define NKINDS (sizeof known_kinds / sizeof known_kinds[0])

enum trace_doc_kind trace_classify(const json_t *root)
{
    const char *api_version = json_string_value(json_object_get(root, "apiVersion"));
    const char *kind = json_string_value(json_object_get(root, "kind"));
    if (!api_version || !kind)
        return TRACE_DOC_UNKNOWN;
    for (size_t i = 0; i < NKINDS; i++)
        if (strcmp(known_kinds[i].api_version, api_version) == 0 && strcmp(known_kinds[i].kind, kind) == 0)
            return known_kinds[i].doc_kind;
    return TRACE_DOC_UNKNOWN;
}

const char *trace_doc_kind_name(enum trace_doc_kind kind)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (known_kinds[i].doc_kind == kind)
            return known_kinds[i].kind;
    return "document";
}
