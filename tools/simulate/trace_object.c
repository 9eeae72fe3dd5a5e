/* A PriorityClass or ResourceQuota document of a trace: parsed by adapters/priority_class or
 * adapters/resource_quota, arriving at caldera.io/arrival (default 0). */
#include <stdio.h>

#include "adapters/objects/priority_class.h"
#include "adapters/objects/resource_quota.h"
#include "tools/simulate/trace_internal.h"

int trace_load_object(const struct intake_doc *doc, enum trace_doc_kind kind, struct trace_object *out,
                      struct api_status *st)
{
    struct trace_annotations ann;
    const json_t *meta = json_object_get(doc->root, "metadata");
    const char *name = json_string_value(json_object_get(meta, "name"));
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    *out = (struct trace_object){.kind = kind};
    if (!trace_read_annotations(doc, false, &ann, st)) {
        const char *kind_group = kind == TRACE_DOC_PRIORITY_CLASS ? "PriorityClass.scheduling.k8s.io" : "ResourceQuota";
        return api_fail_invalid(st, kind_group, name ? name : "");
    }
    int rc = kind == TRACE_DOC_PRIORITY_CLASS
                 ? priority_class_from_doc(doc, (struct priority_class **)&out->object, st)
                 : resource_quota_from_doc(doc, ns && *ns ? ns : "default", (struct resource_quota **)&out->object, st);
    out->arrival_ms = ann.arrival_ms;
    return rc;
}

const char *trace_object_name(const struct trace_object *o, char *buf, size_t len)
{
    if (o->kind == TRACE_DOC_PRIORITY_CLASS) {
        snprintf(buf, len, "%s", ((const struct priority_class *)o->object)->name);
    } else {
        const struct resource_quota *q = o->object;
        snprintf(buf, len, "%s/%s", q->ns, q->name);
    }
    return buf;
}

void trace_object_free(struct trace_object *o)
{
    if (o->kind == TRACE_DOC_PRIORITY_CLASS)
        priority_class_free(o->object);
    else
        resource_quota_free(o->object);
    o->object = NULL;
}
