/* core/v1 Namespace objects rendered and read: names checked as the API server checks them
 * (ValidateNamespaceName: a DNS-1123 label), the labels it adds. */
#include "adapters/objects/namespace.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "adapters/intake/meta_limits.h"
#include "common/uuid.h"

/* A stable uid for a namespace nobody created: FNV-1a of the name, in UUID form. */
static void uid_of_name(const char *name, char out[UUID_STR_LEN])
{
    uint64_t h = 14695981039346656037ull;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    snprintf(out, UUID_STR_LEN, "%08x-%04x-4%03x-8%03x-%012llx", (unsigned)(h >> 32), (unsigned)(h >> 16) & 0xffffu,
             (unsigned)(h >> 4) & 0xfffu, (unsigned)h & 0xfffu, (unsigned long long)(h * 31u) & 0xffffffffffffull);
}

json_t *namespace_render(const char *name, const char *uid, const char *created, const json_t *labels)
{
    char made[UUID_STR_LEN];
    if (!uid) {
        uid_of_name(name, made);
        uid = made;
    }
    json_t *all = json_is_object(labels) ? json_deep_copy(labels) : json_object();
    if (all)
        json_object_set_new(all, "kubernetes.io/metadata.name", json_string(name));
    json_t *meta = json_pack("{s:s, s:s, s:o}", "name", name, "uid", uid, "labels", all);
    if (meta && created)
        json_object_set_new(meta, "creationTimestamp", json_string(created));
    return json_pack("{s:s, s:s, s:o, s:{s:[s]}, s:{s:s}}", "apiVersion", "v1", "kind", NAMESPACE_KIND, "metadata",
                     meta, "spec", "finalizers", "kubernetes", "status", "phase", "Active");
}

int namespace_from_json(const json_t *doc, const char *created, json_t **out, struct api_status *st)
{
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    const char *api_version = json_string_value(json_object_get(doc, "apiVersion"));
    const json_t *meta = json_object_get(doc, "metadata");
    const char *name = json_string_value(json_object_get(meta, "name"));
    const json_t *labels = json_object_get(meta, "labels");
    if (!json_is_object(doc) || (kind && strcmp(kind, NAMESPACE_KIND) != 0)) {
        api_add_cause(st, "kind", "FieldValueInvalid", 0, 0, "Invalid value: \"%.64s\": must be Namespace",
                      kind ? kind : "");
        return api_fail(st, 400, "BadRequest", "the body must be a Namespace, not \"%.64s\"", kind ? kind : "");
    }
    if (api_version && strcmp(api_version, "v1") != 0) {
        api_add_cause(st, "apiVersion", "FieldValueInvalid", 0, 0, "Invalid value: \"%.64s\": must be v1", api_version);
        return api_fail(st, 400, "BadRequest", "a Namespace's apiVersion is v1, not \"%.64s\"", api_version);
    }
    const char *why[4];
    char buf[96];
    if (!name || !*name) {
        api_add_cause(st, "metadata.name", "FieldValueRequired", 0, 0, "Required value: name is required");
        api_set_details(st, "namespaces", "", "");
        return api_fail(st, 422, "Invalid",
                        "Namespace \"\" is invalid: metadata.name: Required value: name is required");
    }
    if (meta_dns1123_label_problems(name, why, buf, sizeof buf) > 0) {
        api_add_cause(st, "metadata.name", "FieldValueInvalid", 0, 0, "Invalid value: \"%.64s\": %s", name, why[0]);
        api_set_details(st, "namespaces", "", name);
        return api_fail(st, 422, "Invalid",
                        "Namespace \"%.64s\" is invalid: metadata.name: Invalid value: \"%.64s\": %s", name, name,
                        why[0]);
    }
    if (labels && !json_is_object(labels)) {
        api_add_cause(st, "metadata.labels", "FieldValueInvalid", 0, 0, "Invalid value: must be a map of strings");
        api_set_details(st, "namespaces", "", name);
        return api_fail(st, 422, "Invalid", "Namespace \"%.64s\" is invalid: metadata.labels: must be a map of strings",
                        name);
    }
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)labels, key, value)
    {
        if (!json_is_string(value) || meta_qualified_name_problems(key, why, buf, sizeof buf) > 0 ||
            meta_label_value_problems(json_string_value(value), why, buf, sizeof buf) > 0) {
            api_add_cause(st, "metadata.labels", "FieldValueInvalid", 0, 0,
                          "Invalid value: \"%.64s\": not a valid label", key);
            api_set_details(st, "namespaces", "", name);
            return api_fail(st, 422, "Invalid",
                            "Namespace \"%.64s\" is invalid: metadata.labels: \"%.64s\" is not a valid label", name,
                            key);
        }
    }
    char uid[UUID_STR_LEN];
    uuid_v4(uid);
    *out = namespace_render(name, uid, created, labels);
    return *out ? 0 : api_fail(st, 500, "InternalError", "out of memory reading the Namespace");
}
