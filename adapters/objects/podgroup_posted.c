/* Reading a PodGroup posted on its own: the type, metadata, and Volcano's PodGroupSpec fields with
 * their types; the answer stamped with uid, creationTimestamp and a Pending status. */
#include "adapters/objects/podgroup_posted.h"

#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/objects/object_meta.h"
#include "adapters/objects/podgroup.h"

static const struct object_type pg_type = {PODGROUP_API_VERSION, "PodGroup", "podgroups", "scheduling.volcano.sh"};

static const char *const top_fields[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};
static const char *const spec_fields[] = {"minMember",         "minTaskMember",   "queue", "minResources",
                                          "priorityClassName", "networkTopology", NULL};

static json_t *read_spec(struct fields *f, json_t *root)
{
    json_t *spec = NULL, *tasks = NULL, *resources = NULL;
    int64_t min_member = 0;
    const char *queue = NULL, *priority = NULL;
    field_check_known(f, root, "", top_fields);
    if (!field_object(f, root, "spec", "spec", true, &spec) || !spec)
        return NULL;
    field_check_known(f, spec, "spec", spec_fields);
    field_int(f, spec, "minMember", "spec.minMember", true, 0, INT32_MAX, &min_member);
    field_string(f, spec, "queue", "spec.queue", false, &queue);
    field_string(f, spec, "priorityClassName", "spec.priorityClassName", false, &priority);
    field_object(f, spec, "minResources", "spec.minResources", false, &resources);
    if (field_object(f, spec, "minTaskMember", "spec.minTaskMember", false, &tasks) && tasks) {
        const char *task;
        json_t *n;
        json_object_foreach(tasks, task, n)
        {
            int64_t ignored;
            char path[300];
            snprintf(path, sizeof path, "spec.minTaskMember.%.256s", task);
            field_int(f, tasks, task, path, true, 0, INT32_MAX, &ignored);
        }
    }
    json_t *out = json_deep_copy(spec);
    if (out && !queue)
        json_object_set_new(out, "queue", json_string("default"));
    return out;
}

int podgroup_posted_from_doc(const struct intake_doc *doc, const char *ns, const char *created, json_t **out,
                             struct api_status *st)
{
    *out = NULL;
    if (!json_is_object(doc->root))
        return api_fail(st, 400, "BadRequest", "the body must be a PodGroup object");
    if (object_check_type(doc->root, &pg_type, st) != 0)
        return -1;
    struct fields f = {doc, st, false};
    json_t *meta = NULL;
    uint64_t rv = 0;
    object_meta_parse(&f, doc->root, ns, &meta, &rv);
    json_t *spec = f.st->code == 0 ? read_spec(&f, doc->root) : NULL;
    if (st->code != 0 || st->ncauses > 0 || !meta || !spec) {
        json_decref(meta);
        json_decref(spec);
        return object_fail_invalid(st, &pg_type, doc->root);
    }
    char uid[UUID_STR_LEN];
    uuid_v4(uid);
    json_object_set_new(meta, "uid", json_string(uid));
    json_object_set_new(meta, "creationTimestamp", json_string(created));
    *out = json_pack("{s:s, s:s, s:o, s:o, s:{s:s, s:[{s:s, s:s, s:s, s:s, s:s}]}}", "apiVersion", PODGROUP_API_VERSION,
                     "kind", "PodGroup", "metadata", meta, "spec", spec, "status", "phase", "Pending", "conditions",
                     "type", "Unschedulable", "status", "True", "reason", "NoPods", "message",
                     "no pod names this PodGroup: Caldera creates pods for its Jobs only, each with its own PodGroup",
                     "lastTransitionTime", created);
    return *out ? 0 : api_fail(st, 500, "InternalError", "out of memory");
}
