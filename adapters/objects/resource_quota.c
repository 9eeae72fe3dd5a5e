/* ResourceQuotas in and out. Only what the scheduler can count is accepted: the requests of a
 * namespace's running replicas and their number. A limit it could not enforce is refused by name. */
#include "adapters/objects/resource_quota.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/objects/object_meta.h"
#include "adapters/objects/render.h"

#define REQUESTS_PREFIX "requests."

static const struct object_type quota_type = {"v1", "ResourceQuota", "resourcequotas", ""};

static const char *const top_fields[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};
/* ResourceQuotaSpec: hard is honoured; scopes narrow a quota to some pods, which Caldera does not do. */
static const struct field_rule spec_rules[] = {
    {"hard", NULL},
    {"scopes", "Caldera does not implement quota scopes: a quota counts every job of its namespace"},
    {"scopeSelector", "Caldera does not implement quota scopes: a quota counts every job of its namespace"},
    {NULL, NULL},
};

int resource_quota_key_index(const char *key)
{
    if (strcmp(key, "cpu") == 0)
        return RES_CPU;
    if (strcmp(key, "memory") == 0)
        return RES_MEMORY;
    if (strcmp(key, "pods") == 0)
        return RES_PODS;
    if (strncmp(key, REQUESTS_PREFIX, strlen(REQUESTS_PREFIX)) != 0)
        return -1;
    int i = resource_index(key + strlen(REQUESTS_PREFIX));
    return i == RES_PODS ? -1 : i; /* pods are counted as "pods", not requested */
}

/* A quantity as Kubernetes writes it (string or number) in the unit of resource index. */
static bool parse_value(const json_t *v, int index, int64_t *out, char *text, size_t len, const char **why)
{
    *why = "must be a quantity (a string or a number)";
    return intake_scalar_text(v, text, len) && resource_parse(index, text, out, why) == 0;
}

static void refuse_key(struct fields *f, json_t *hard, const char *key, const char *path)
{
    bool requests = strncmp(key, REQUESTS_PREFIX, strlen(REQUESTS_PREFIX)) == 0;
    field_error(f, hard, key, path, "FieldValueNotSupported", "Unsupported value: \"%s\": %s", key,
                requests ? "no node offers this resource, so no request of it can be counted"
                         : "Caldera enforces only cpu, memory, pods and requests.<resource> (requests of cpu, "
                           "memory, nvidia.com/gpu or an extended resource)");
}

static void parse_hard(struct fields *f, json_t *spec, struct resource_quota *q)
{
    json_t *hard;
    if (!field_object(f, spec, "hard", "spec.hard", false, &hard) || !hard)
        return;
    const char *key;
    json_t *v;
    json_object_foreach(hard, key, v)
    {
        char path[FIELD_PATH_MAX], text[128];
        snprintf(path, sizeof path, "spec.hard[%s]", key);
        int index = resource_quota_key_index(key);
        if (index < 0) {
            refuse_key(f, hard, key, path);
            continue;
        }
        int64_t value;
        const char *why;
        if (!parse_value(v, index, &value, text, sizeof text, &why)) {
            field_invalid(f, hard, key, path, why);
            continue;
        }
        /* "cpu" and "requests.cpu" name the same requests: both limits hold, so the lower one does. */
        if (!q->limited[index] || value < q->hard.v[index])
            q->hard.v[index] = value;
        q->limited[index] = true;
    }
}

static struct resource_quota *build(struct fields *f, json_t *root, const char *url_ns)
{
    json_t *meta = NULL, *spec = NULL;
    struct resource_quota *q = calloc(1, sizeof *q);
    if (!q) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return NULL;
    }
    field_check_known(f, root, "", top_fields);
    if (object_meta_parse(f, root, url_ns, &meta, &q->resource_version) &&
        (!(q->name = strdup(json_string_value(json_object_get(meta, "name")))) || !(q->ns = strdup(url_ns))))
        api_fail(f->st, 500, "InternalError", "out of memory");
    if (f->st->code == 0 && field_object(f, root, "spec", "spec", false, &spec) && spec) {
        field_check_rules(f, spec, "spec", spec_rules);
        parse_hard(f, spec, q);
    }
    if (f->st->code != 0 || f->st->ncauses > 0 || !meta) {
        json_decref(meta);
        resource_quota_free(q);
        return NULL;
    }
    /* status is the server's to write, as for every object with a status */
    q->manifest = json_pack("{s:o, s:o}", "metadata", meta, "spec", spec ? json_incref(spec) : json_object());
    if (!q->manifest) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        resource_quota_free(q);
        return NULL;
    }
    return q;
}

int resource_quota_from_doc(const struct intake_doc *doc, const char *url_ns, struct resource_quota **out,
                            struct api_status *st)
{
    *out = NULL;
    if (!json_is_object(doc->root))
        return api_fail(st, 400, "BadRequest", "the body must be a ResourceQuota object");
    if (object_check_type(doc->root, &quota_type, st) != 0)
        return -1;
    struct fields f = {doc, st};
    *out = build(&f, doc->root, url_ns);
    return *out ? 0 : object_fail_invalid(st, &quota_type, doc->root);
}

static json_t *render_status(const struct resource_quota *q, const struct resvec *used)
{
    json_t *hard = json_object(), *in_use = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(json_object_get(q->manifest, "spec"), "hard"), key, v)
    {
        int index = resource_quota_key_index(key);
        int64_t value;
        char text[128], buf[48];
        const char *why;
        if (index < 0 || !parse_value(v, index, &value, text, sizeof text, &why))
            continue; /* cannot happen: the manifest was validated */
        resource_format(index, value, buf, sizeof buf);
        json_object_set_new(hard, key, json_string(buf));
        resource_format(index, used->v[index], buf, sizeof buf);
        json_object_set_new(in_use, key, json_string(buf));
    }
    return json_pack("{s:o, s:o}", "hard", hard, "used", in_use);
}

static json_t *render(const struct resource_quota *q, const struct resvec *used)
{
    json_t *meta = object_meta_render(json_object_get(q->manifest, "metadata"), q->uid, q->created_ms,
                                      q->resource_version);
    json_t *obj = json_pack("{s:s, s:s, s:o, s:O}", "apiVersion", "v1", "kind", "ResourceQuota", "metadata", meta,
                            "spec", json_object_get(q->manifest, "spec"));
    if (obj && used)
        json_object_set_new(obj, "status", render_status(q, used));
    return obj;
}

json_t *resource_quota_render(const struct resource_quota *q, const struct resvec *used) { return render(q, used); }

char *resource_quota_to_store_json(const struct resource_quota *q) { return object_store_text(render(q, NULL)); }

struct resource_quota *resource_quota_from_store_json(const char *json)
{
    json_t *root = json_loads(json, 0, NULL);
    const char *ns = json_string_value(json_object_get(json_object_get(root, "metadata"), "namespace"));
    struct api_status st = {0};
    struct fields f = {NULL, &st};
    struct resource_quota *q = json_is_object(root) && ns ? build(&f, root, ns) : NULL;
    if (q)
        object_meta_restore(root, q->uid, &q->created_ms);
    json_decref(root);
    return q;
}
