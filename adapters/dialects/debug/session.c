/* The debug session (caldera.io/v1 DebugSession, POST .../namespaces/{ns}/debugsessions): cpu, memory
 * and GPUs held by one pod for as long as someone works in its companions, queued like any job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/debug/debug.h"
#include "adapters/dialects/fields.h"
#include "adapters/intake/meta_limits.h"
#include "common/duration.h"
#include "common/sbuf.h"
#include "common/strv.h"
#include "model/resource.h"

/*
 * The object:
 *
 *   apiVersion: caldera.io/v1
 *   kind: DebugSession
 *   metadata:            name (else generateName, else generateName "debug-"), labels, annotations
 *   spec:
 *     resources:         {cpu: "2", memory: 4Gi, nvidia.com/gpu: 1}: what the session holds (requests =
 *                        limits; names as model/resource.h knows them). Required.
 *     companions:        [jupyter, terminal]: at least one, DNS labels, no repeats; the Volcano Job's
 *                        annotation caldera.io/companions (comma-joined). The core starts them (and
 *                        refuses a type it does not know), each named <job>-<type>.
 *     image:             the container's image (optional).
 *     duration: 8h       or activeDeadlineSeconds: 28800 (not both): the session ends then (default 8h,
 *                        at most 7 days); without either, GET shows activeDeadlineSeconds: 28800.
 *     queue, priorityClassName: the Volcano Job's.
 *     nodeSelector, tolerations: the pod's (a GPU node is often tainted), checked as a pod's are.
 *
 * It becomes a Volcano Job of one task "session" (1 replica, minAvailable 1), whose pod runs
 * `sleep infinity` with restartPolicy Never and the deadline as the pod's activeDeadlineSeconds; the
 * Volcano Job is annotated caldera.io/debug-session: "true". A GET shows the object with its status
 * (status.c).
 */

#define DEFAULT_GENERATE_NAME "debug-"
#define MAX_COMPANIONS 8
#define NAME_MAX_LEN 63
#define CONTAINER ".template.spec.containers[0]"
#define TASK0 "spec.tasks[0]"

static const char *const top_fields[] = {"apiVersion", "kind", "metadata", "spec", NULL};
static const char *const spec_fields[] = {
    "resources", "companions",        "image",        "duration",    "activeDeadlineSeconds",
    "queue",     "priorityClassName", "nodeSelector", "tolerations", NULL};

struct session {
    json_t *resources; /* {requests, limits}, new */
    char *companions;  /* comma-joined, owned */
    const char *image; /* in the source */
    const char *queue; /* in the source */
    const char *priority_class;
    int64_t deadline_s;                  /* resolved */
    json_t *node_selector, *tolerations; /* in the source (shared: the pod's validation finds their lines) */
};

/* spec.resources: a map of quantities, each checked; requests = limits. */
static bool read_resources(struct fields *f, json_t *spec, struct session *s)
{
    json_t *res;
    if (!field_object(f, spec, "resources", "spec.resources", true, &res) || !res)
        return false;
    if (json_object_size(res) == 0) {
        field_invalid(f, spec, "resources", "spec.resources", "a session holds resources: name cpu, memory or a GPU");
        return false;
    }
    json_t *map = json_object();
    bool ok = true;
    const char *name;
    json_t *v;
    json_object_foreach(res, name, v)
    {
        char path[FIELD_PATH_MAX], text[128];
        field_path(path, "spec.resources", name);
        int index = resource_index(name);
        const char *why = NULL;
        int64_t value;
        if (index < 0 || index == RES_PODS) {
            struct sbuf known = {0};
            for (int i = 0; i < resource_count(); i++)
                if (i != RES_PODS)
                    sbuf_printf(&known, "%s%s", known.len ? ", " : "", resource_name(i));
            field_error(f, res, name, path, "FieldValueNotSupported",
                        "Unsupported value: \"%s\": not a resource Caldera knows (%s)", name, sbuf_str(&known));
            sbuf_free(&known);
            ok = false;
        } else if (!intake_scalar_text(v, text, sizeof text)) {
            field_invalid(f, res, name, path, "invalid quantity: must be a string or a number");
            ok = false;
        } else if (resource_parse(index, text, &value, &why) != 0) {
            field_error(f, res, name, path, "FieldValueInvalid", "Invalid value: invalid quantity \"%s\": %s", text,
                        why);
            ok = false;
        } else {
            json_object_set_new(map, name, json_string(text));
        }
    }
    if (ok)
        s->resources = json_pack("{s:O,s:O}", "requests", map, "limits", map);
    json_decref(map);
    return ok;
}

/* The longest the Volcano Job's name may be for every companion's name, <job>-<type>, to be a label. */
static bool check_companion_name(struct fields *f, const json_t *arr, size_t i, const char *path, const char *job,
                                 const char *type)
{
    if (!job || strlen(job) + 1 + strlen(type) <= NAME_MAX_LEN)
        return true;
    field_error_at_index(f, arr, i, path, "FieldValueInvalid",
                         "Invalid value: \"%s\": the companion's name \"%s-%s\" would be longer than %d characters",
                         type, job, type, NAME_MAX_LEN);
    return false;
}

/* spec.companions: at least one, each a DNS label, no repeats. */
static bool read_companions(struct fields *f, json_t *spec, const char *job, struct session *s)
{
    char **list = NULL;
    json_t *arr = json_object_get(spec, "companions");
    if (!arr || json_is_null(arr)) {
        field_required(f, spec, "companions", "spec.companions");
        return false;
    }
    if (!field_string_list(f, spec, "companions", "spec.companions", &list))
        return false;
    size_t n = strv_len(list);
    if (n == 0 || n > MAX_COMPANIONS) {
        field_invalid(f, spec, "companions", "spec.companions",
                      n == 0 ? "name at least one companion (jupyter, terminal, ...)" : "at most 8 companions");
        strv_free(list);
        return false;
    }
    struct sbuf joined = {0};
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        char path[FIELD_PATH_MAX];
        field_path_index(path, "spec.companions", i);
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = strcmp(list[i], list[j]) == 0;
        if (!dns1123_label(list[i])) {
            field_error_at_index(f, arr, i, path, "FieldValueInvalid",
                                 "Invalid value: \"%s\": a companion type is a DNS-1123 label (lower-case "
                                 "letters, digits and '-', e.g. jupyter, terminal)",
                                 list[i]);
            ok = false;
        } else if (dup) {
            field_error_at_index(f, arr, i, path, "FieldValueDuplicate", "Duplicate value: \"%s\"", list[i]);
            ok = false;
        } else if (!check_companion_name(f, arr, i, path, job, list[i])) {
            ok = false;
        } else {
            sbuf_printf(&joined, "%s%s", joined.len ? "," : "", list[i]);
        }
    }
    strv_free(list);
    if (ok)
        s->companions = sbuf_take(&joined);
    sbuf_free(&joined);
    return ok && s->companions;
}

/* spec.duration ("8h", "90m", or seconds) or spec.activeDeadlineSeconds, not both; default 8h, max 7d. */
static bool read_deadline(struct fields *f, json_t *spec, struct session *s)
{
    json_t *dur = json_object_get(spec, "duration"), *ads = json_object_get(spec, "activeDeadlineSeconds");
    s->deadline_s = DEBUG_DEFAULT_DEADLINE_S;
    if (dur && ads) {
        field_forbidden(f, spec, "duration", "spec.duration", "spec.activeDeadlineSeconds is given too; give one");
        return false;
    }
    if (ads)
        return field_int(f, spec, "activeDeadlineSeconds", "spec.activeDeadlineSeconds", false, 1, DEBUG_MAX_DEADLINE_S,
                         &s->deadline_s);
    if (!dur)
        return true;
    char text[64];
    int64_t ms = 0;
    const char *why = NULL;
    if (!intake_scalar_text(dur, text, sizeof text) || json_is_boolean(dur)) {
        field_invalid(f, spec, "duration", "spec.duration", "must be a duration such as \"8h\" or \"90m\"");
        return false;
    }
    if (duration_parse(text, &ms, &why) != 0) {
        field_error(f, spec, "duration", "spec.duration", "FieldValueInvalid", "Invalid value: \"%s\": %s", text, why);
        return false;
    }
    if (ms < 1000 || ms % 1000 != 0 || ms / 1000 > DEBUG_MAX_DEADLINE_S) {
        field_error(f, spec, "duration", "spec.duration", "FieldValueInvalid",
                    "Invalid value: \"%s\": must be whole seconds, from 1s to 168h (7 days)", text);
        return false;
    }
    s->deadline_s = ms / 1000;
    return true;
}

static bool read_spec(struct fields *f, json_t *spec, const char *job, struct session *s)
{
    dialect_refuse_fields(f, spec, "spec", spec_fields, NULL);
    bool ok = read_resources(f, spec, s);
    ok = read_companions(f, spec, job, s) && ok;
    ok = read_deadline(f, spec, s) && ok;
    bool image_ok = field_string(f, spec, "image", "spec.image", false, &s->image);
    ok = image_ok && ok;
    if (image_ok && s->image && !*s->image) {
        field_invalid(f, spec, "image", "spec.image", "must not be empty (leave it out for none)");
        ok = false;
    }
    ok = field_string_map(f, spec, "nodeSelector", "spec.nodeSelector", &s->node_selector) && ok;
    ok = field_array(f, spec, "tolerations", "spec.tolerations", false, &s->tolerations) && ok;
    ok = field_string(f, spec, "queue", "spec.queue", false, &s->queue) && ok;
    ok = field_string(f, spec, "priorityClassName", "spec.priorityClassName", false, &s->priority_class) && ok;
    return ok;
}

/* metadata, checked as Kubernetes' ObjectMeta; without name or generateName, generateName "debug-". The
 * Volcano Job's metadata in *out (new). */
static bool read_metadata(struct fields *f, json_t *source, const char **name, json_t **out)
{
    json_t *meta, *labels = NULL, *annotations = NULL;
    const char *gen = NULL;
    *name = NULL;
    *out = NULL;
    if (!field_object(f, source, "metadata", "metadata", false, &meta))
        return false;
    if (!meta) {
        meta = json_object();
        json_object_set_new(source, "metadata", meta);
    }
    bool ok = field_check_rules(f, meta, "metadata", kube_object_meta_rules);
    ok = field_string(f, meta, "name", "metadata.name", false, name) && ok;
    ok = field_string(f, meta, "generateName", "metadata.generateName", false, &gen) && ok;
    ok = field_string_map(f, meta, "labels", "metadata.labels", &labels) && ok;
    ok = field_string_map(f, meta, "annotations", "metadata.annotations", &annotations) && ok;
    if (!ok)
        return false;
    if (*name && !**name)
        *name = NULL;
    if (*name && !dns1123_label(*name) && !meta_check_label_name(f, meta, "name", "metadata.name", *name))
        return false; /* here, where its line is known */
    if (!*name && !gen)
        json_object_set_new(meta, "generateName", json_string(DEFAULT_GENERATE_NAME));
    json_t *vmeta = json_object();
    static const char *const copied[] = {"name", "generateName", "namespace", "labels"};
    for (size_t i = 0; i < sizeof copied / sizeof *copied; i++) {
        json_t *v = json_object_get(meta, copied[i]);
        if (v)
            json_object_set_new(vmeta, copied[i], json_deep_copy(v));
    }
    json_object_set_new(vmeta, "annotations", annotations ? json_deep_copy(annotations) : json_object());
    *out = vmeta;
    return true;
}

static json_t *volcano_spec(const struct session *s)
{
    json_t *container = json_pack("{s:s,s:[s,s],s:O}", "name", DEBUG_TASK, "command", "sleep", "infinity", "resources",
                                  s->resources);
    if (container && s->image)
        json_object_set_new(container, "image", json_string(s->image));
    json_t *pod = json_pack("{s:[o],s:s,s:I}", "containers", container, "restartPolicy", "Never",
                            "activeDeadlineSeconds", (json_int_t)s->deadline_s);
    if (pod && s->node_selector)
        json_object_set(pod, "nodeSelector", s->node_selector);
    if (pod && s->tolerations)
        json_object_set(pod, "tolerations", s->tolerations);
    json_t *spec = json_pack("{s:i,s:[{s:s,s:i,s:i,s:{s:o}}]}", "minAvailable", 1, "tasks", "name", DEBUG_TASK,
                             "replicas", 1, "minAvailable", 1, "template", "spec", pod);
    if (spec && s->queue)
        json_object_set_new(spec, "queue", json_string(s->queue));
    if (spec && s->priority_class)
        json_object_set_new(spec, "priorityClassName", json_string(s->priority_class));
    return spec;
}

/* Causes the Volcano validation finds, in the session's words. */
static void map_paths(struct dialect_translation *out, const json_t *spec)
{
    dialect_map_path(out, "spec.queue", "spec.queue");
    dialect_map_path(out, "spec.priorityClassName", "spec.priorityClassName");
    dialect_map_path(out, TASK0 CONTAINER ".resources", "spec.resources");
    dialect_map_path(out, TASK0 CONTAINER ".image", "spec.image");
    dialect_map_path(out, TASK0 ".template.spec.nodeSelector", "spec.nodeSelector");
    dialect_map_path(out, TASK0 ".template.spec.tolerations", "spec.tolerations");
    dialect_map_path(out, TASK0 ".template.spec.activeDeadlineSeconds",
                     json_object_get(spec, "duration") ? "spec.duration" : "spec.activeDeadlineSeconds");
}

static void session_free(struct session *s)
{
    json_decref(s->resources);
    free(s->companions);
}

static int debug_translate(struct fields *f, json_t *source, const char *ns, struct dialect_translation *out)
{
    (void)ns; /* metadata.namespace, when given, is checked against it with the Volcano Job */
    struct session s = {0};
    const char *name = NULL;
    json_t *vmeta = NULL, *spec = NULL;
    field_check_known(f, source, "", top_fields);
    bool ok = read_metadata(f, source, &name, &vmeta);
    if (field_object(f, source, "spec", "spec", true, &spec) && spec)
        ok = read_spec(f, spec, name, &s) && ok;
    else
        ok = false;
    if (!ok || f->st->ncauses > 0 || f->st->code != 0) {
        json_decref(vmeta);
        session_free(&s);
        return -1;
    }
    json_t *annotations = json_object_get(vmeta, "annotations");
    json_object_set_new(annotations, DEBUG_COMPANIONS_ANNOTATION, json_string(s.companions));
    json_object_set_new(annotations, DEBUG_SESSION_ANNOTATION, json_string("true"));
    map_paths(out, spec);
    /* what GET shows: the default deadline, when none was given (a stored object read again still has
     * only one of duration and activeDeadlineSeconds) */
    if (!json_object_get(spec, "duration") && !json_object_get(spec, "activeDeadlineSeconds"))
        json_object_set_new(spec, "activeDeadlineSeconds", json_integer(s.deadline_s));
    int rc = dialect_volcano_job(f, vmeta, volcano_spec(&s), out);
    session_free(&s);
    return rc;
}

const struct dialect debug_session_dialect = {
    .group = "caldera.io",
    .version = "v1",
    .kind = "DebugSession",
    .plural = "debugsessions",
    .translate = debug_translate,
    .render_status = debug_render_status,
    .update = debug_update,
    .short_names = "ds",
};
