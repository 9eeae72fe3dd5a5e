/* Metadata and type checks shared by the Queue, PriorityClass and ResourceQuota adapters. The
 * accepted metadata keeps only what a client owns; the server's fields are stamped at rendering. */
#include "adapters/objects/object_meta.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/meta_limits.h"
#include "adapters/objects/render.h"
#include "common/clock.h"

int object_check_type(const json_t *root, const struct object_type *t, struct api_status *st)
{
    const json_t *av = json_object_get(root, "apiVersion"), *kind = json_object_get(root, "kind");
    if (av && (!json_is_string(av) || strcmp(json_string_value(av), t->api_version) != 0))
        return api_fail(st, 400, "BadRequest",
                        "the API version in the data (%s) does not match the expected API version (%s)",
                        json_is_string(av) ? json_string_value(av) : "?", t->api_version);
    if (kind && (!json_is_string(kind) || strcmp(json_string_value(kind), t->kind) != 0))
        return api_fail(st, 400, "BadRequest", "the kind in the data (%s) does not match the expected kind (%s)",
                        json_is_string(kind) ? json_string_value(kind) : "?", t->kind);
    return 0;
}

/* An opaque string in Kubernetes; here always a sequence number. Anything else can never match
 * the object's version, so an update carrying it meets a Conflict, as it would upstream. */
static uint64_t parse_resource_version(const char *s)
{
    if (!s || !*s)
        return 0;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(s, &end, 10);
    if (errno || *end || s[0] < '0' || s[0] > '9' || n == 0)
        return UINT64_MAX;
    return (uint64_t)n;
}

static void check_name(struct fields *f, json_t *meta, const char *name)
{
    if (!name || !*name)
        field_required(f, meta, "name", "metadata.name");
    else
        meta_check_subdomain_name(f, meta, "name", "metadata.name", name);
}

bool object_meta_parse(struct fields *f, json_t *root, const char *url_ns, json_t **meta, uint64_t *resource_version)
{
    json_t *m, *labels = NULL, *annotations = NULL;
    const char *name = NULL, *ns = NULL, *rv = NULL;
    *meta = NULL;
    *resource_version = 0;
    int causes = f->st->ncauses;
    if (!field_object(f, root, "metadata", "metadata", true, &m))
        return false;
    field_string(f, m, "name", "metadata.name", false, &name);
    check_name(f, m, name);
    field_string(f, m, "namespace", "metadata.namespace", false, &ns);
    field_string(f, m, "resourceVersion", "metadata.resourceVersion", false, &rv);
    if (url_ns && ns && *ns)
        meta_check_label_name(f, m, "namespace", "metadata.namespace", ns);
    meta_labels(f, m, "metadata.labels", &labels);
    meta_annotations(f, m, "metadata.annotations", &annotations);
    if (url_ns && ns && *ns && strcmp(ns, url_ns) != 0) {
        api_fail(f->st, 400, "BadRequest",
                 "the namespace of the provided object (%s) does not match the namespace sent on the request (%s)", ns,
                 url_ns);
        return false;
    }
    if (f->st->ncauses > causes || f->st->code != 0)
        return false;
    *resource_version = parse_resource_version(rv);
    *meta = json_pack("{s:s}", "name", name);
    if (!*meta) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return false;
    }
    if (url_ns)
        json_object_set_new(*meta, "namespace", json_string(url_ns));
    render_set(*meta, "labels", json_incref(labels));
    render_set(*meta, "annotations", json_incref(annotations));
    json_t *managed = json_object_get(m, "managedFields"); /* server-side apply's record, kept as given */
    if (json_is_array(managed) && json_array_size(managed) > 0)
        json_object_set(*meta, "managedFields", managed);
    return true;
}

const char *object_doc_name(const json_t *root)
{
    const char *name = json_string_value(json_object_get(json_object_get(root, "metadata"), "name"));
    return name ? name : "";
}

int object_fail_invalid(struct api_status *st, const struct object_type *t, const json_t *root)
{
    if (st->code != 0)
        return -1;
    char kind_group[128];
    snprintf(kind_group, sizeof kind_group, "%s%s%s", t->kind, *t->group ? "." : "", t->group);
    const char *name = object_doc_name(root);
    api_fail_invalid(st, kind_group, name);
    api_set_details(st, t->kind, t->group, name);
    return -1;
}

json_t *object_meta_render(const json_t *meta, const char *uid, int64_t created_ms, uint64_t resource_version)
{
    json_t *out = json_deep_copy(meta);
    if (!out)
        return NULL;
    char rv[24];
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)resource_version);
    json_object_set_new(out, "uid", json_string(uid));
    json_object_set_new(out, "resourceVersion", json_string(rv));
    json_object_set_new(out, "creationTimestamp", render_time(created_ms));
    return out;
}

json_t *object_manifest_render(const json_t *manifest, const char *uid, int64_t created_ms, uint64_t resource_version)
{
    json_t *obj = json_deep_copy(manifest);
    json_t *meta = object_meta_render(json_object_get(manifest, "metadata"), uid, created_ms, resource_version);
    if (!obj || !meta) {
        json_decref(obj);
        json_decref(meta);
        return NULL;
    }
    json_object_set_new(obj, "metadata", meta);
    return obj;
}

void object_meta_restore(const json_t *root, char uid[UUID_STR_LEN], int64_t *created_ms)
{
    const json_t *meta = json_object_get(root, "metadata");
    const char *u = json_string_value(json_object_get(meta, "uid"));
    const char *created = json_string_value(json_object_get(meta, "creationTimestamp"));
    if (u)
        snprintf(uid, UUID_STR_LEN, "%s", u);
    if (created)
        rfc3339_parse(created, created_ms);
}

char *object_store_text(json_t *obj)
{
    char *text = obj ? json_dumps(obj, JSON_COMPACT) : NULL;
    json_decref(obj);
    return text;
}
