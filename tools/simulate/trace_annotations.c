/* The simulator's annotations on Jobs and Queues: caldera.io/arrival, caldera.io/duration,
 * caldera.io/exit-code and caldera.io/namespace. Numbers or duration strings, checked here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/fields.h"
#include "common/duration.h"
#include "tools/simulate/trace_internal.h"

#define PREFIX "caldera.io/"

static bool read_duration(struct fields *f, json_t *ann, const char *key, const char *path, int64_t *ms)
{
    const char *why;
    if (duration_from_json(json_object_get(ann, key), ms, &why) == 0)
        return true;
    field_invalid(f, ann, key, path, why);
    return false;
}

static void read_exit_code(struct fields *f, json_t *ann, const char *key, const char *path, int32_t *code)
{
    char text[32], *end;
    const json_t *v = json_object_get(ann, key);
    long n = -1;
    if ((json_is_integer(v) || json_is_string(v)) && intake_scalar_text(v, text, sizeof text) && text[0]) {
        n = strtol(text, &end, 10);
        if (*end != '\0' || text[0] == '-' || text[0] == '+' || text[0] == ' ')
            n = -1;
    }
    if (n < 0 || n > 255) {
        field_invalid(f, ann, key, path, "must be an exit status between 0 and 255");
        return;
    }
    *code = (int32_t)n;
}

static void read_namespace(struct fields *f, json_t *ann, const char *key, const char *path, const char **ns)
{
    const json_t *v = json_object_get(ann, key);
    if (!json_is_string(v) || !dns1123_label(json_string_value(v))) {
        field_invalid(f, ann, key, path, "must be a namespace name (a lowercase RFC 1123 label)");
        return;
    }
    *ns = json_string_value(v);
}

/* Annotations are strings: `caldera.io/arrival: 90` becomes "90" for the adapters. */
static void stringify_numbers(json_t *ann)
{
    static const char *const keys[] = {ANNOTATION_ARRIVAL, ANNOTATION_DURATION, ANNOTATION_EXIT_CODE};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const json_t *v = json_object_get(ann, keys[i]);
        char text[64];
        if (json_is_number(v) && intake_scalar_text(v, text, sizeof text))
            json_object_set_new(ann, keys[i], json_string(text));
    }
}

/* One caldera.io/ annotation: what it says goes into *out, a bad value or unknown key into a cause. */
static void read_one(struct fields *f, json_t *ann, const char *key, bool job, struct trace_annotations *out)
{
    char path[FIELD_PATH_MAX];
    snprintf(path, sizeof path, "metadata.annotations[%s]", key);
    if (strcmp(key, ANNOTATION_ARRIVAL) == 0) {
        read_duration(f, ann, key, path, &out->arrival_ms);
    } else if (job && strcmp(key, ANNOTATION_DURATION) == 0) {
        out->has_duration = true; /* present: a bad value has a cause of its own */
        read_duration(f, ann, key, path, &out->duration_ms);
    } else if (job && strcmp(key, ANNOTATION_EXIT_CODE) == 0) {
        read_exit_code(f, ann, key, path, &out->exit_code);
    } else if (job && strcmp(key, ANNOTATION_NAMESPACE) == 0) {
        read_namespace(f, ann, key, path, &out->ns);
    } else {
        field_error(f, ann, key, path, "FieldValueNotSupported", "Unsupported value: \"%s\": %s", key,
                    job ? "the simulator reads caldera.io/arrival, caldera.io/duration, caldera.io/exit-code "
                          "and caldera.io/namespace on a Job"
                        : "the simulator reads caldera.io/arrival on a Queue, PriorityClass or ResourceQuota");
    }
}

bool trace_read_annotations(const struct intake_doc *doc, bool job, struct trace_annotations *out,
                            struct api_status *st)
{
    struct fields f = {doc, st};
    int before = st->ncauses;
    *out = (struct trace_annotations){0};
    json_t *meta = json_object_get(doc->root, "metadata");
    json_t *ann = json_is_object(meta) ? json_object_get(meta, "annotations") : NULL;
    if (!json_is_object(ann))
        ann = NULL; /* a wrong type is the adapter's to report */
    const char *key;
    json_t *v;
    json_object_foreach(ann, key, v)
    {
        if (strncmp(key, PREFIX, strlen(PREFIX)) == 0)
            read_one(&f, ann, key, job, out);
    }
    if (job && !out->has_duration) {
        const json_t *at = ann ? ann : json_is_object(meta) ? meta : doc->root;
        field_error(&f, at, NULL, "metadata.annotations[" ANNOTATION_DURATION "]", "FieldValueRequired",
                    "Required value: how long each replica runs once started, such as 90s, 5m or 1h30m");
    }
    if (ann)
        stringify_numbers(ann);
    return st->ncauses == before;
}
