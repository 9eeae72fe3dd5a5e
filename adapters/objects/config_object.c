/* ConfigMaps and Secrets as Kubernetes validates them (ValidateConfigMap, ValidateSecret): config
 * keys, a ConfigMap's string data and base64 binaryData with no key in both, a Secret's base64 data
 * and write-only stringData merged into it, its type (default Opaque) with the keys the known types
 * require, 1 MiB of data in all. A cause about a Secret's value never shows the value. */
#include "adapters/objects/config_object.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/objects/object_meta.h"
#include "common/base64.h"

static const struct object_type types[] = {
    [CONFIG_MAP] = {CONFIG_API_VERSION, "ConfigMap", "configmaps", ""},
    [CONFIG_SECRET] = {CONFIG_API_VERSION, "Secret", "secrets", ""},
};

#define KEY_WORDS                                                                                        \
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or " \
    "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"

const char *config_kind_name(enum config_kind kind) { return types[kind].kind; }
const char *config_resource_name(enum config_kind kind) { return types[kind].resource; }

bool config_key_valid(const char *key, const char **why)
{
    size_t n = strlen(key);
    *why = NULL;
    if (n > CONFIG_KEY_MAX)
        *why = "must be no more than 253 characters";
    else if (n == 0 || strspn(key, "-._abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != n)
        *why = KEY_WORDS;
    else if (strcmp(key, ".") == 0)
        *why = "must not be '.'";
    else if (strcmp(key, "..") == 0)
        *why = "must not be '..'";
    else if (strncmp(key, "..", 2) == 0)
        *why = "must not start with '..'";
    return *why == NULL;
}

/* The cause of a bad key at map[key] ("data[key]"). The key is a name, not a value: it may be shown. */
static void key_cause(struct fields *f, const json_t *map, const char *map_path, const char *key, const char *why)
{
    char p[FIELD_PATH_MAX];
    snprintf(p, sizeof p, "%s[%s]", map_path, key);
    field_error(f, map, key, p, "FieldValueInvalid", "Invalid value: \"%s\": %s", key, why);
}

/* One map of string values (data, binaryData, stringData): every key valid, every value a string,
 * and base64 when base64 says so (decoded, its length added to *size; else the string's). The
 * values are never shown: secret says the map is a Secret's. */
static bool check_map(struct fields *f, json_t *map, const char *path, bool base64, size_t *size)
{
    bool ok = true;
    const char *key;
    json_t *v;
    json_object_foreach(map, key, v)
    {
        const char *why;
        char p[FIELD_PATH_MAX];
        snprintf(p, sizeof p, "%s[%s]", path, key);
        if (!config_key_valid(key, &why)) {
            key_cause(f, map, path, key, why);
            ok = false;
        }
        if (!json_is_string(v)) {
            field_error(f, map, key, p, "FieldValueInvalid", "Invalid value: must be a string");
            ok = false;
            continue;
        }
        if (!base64) {
            *size += json_string_length(v);
            continue;
        }
        char *bytes;
        long n = base64_decode(json_string_value(v), json_string_length(v), &bytes);
        free(bytes);
        if (n < 0) {
            field_error(f, map, key, p, "FieldValueInvalid",
                        "Invalid value: the value is not valid base64 (illegal base64 data): give it base64-encoded, "
                        "or as stringData");
            ok = false;
        } else {
            *size += (size_t)n;
        }
    }
    return ok;
}

/* A string map member (NULL when absent); false after a cause. */
static bool get_map(struct fields *f, json_t *root, const char *key, json_t **out)
{
    *out = NULL;
    if (!field_object(f, root, key, key, false, out))
        return false;
    if (*out && json_is_null(*out))
        *out = NULL;
    return true;
}

static bool parse_config_map(struct fields *f, json_t *root, json_t *m)
{
    json_t *data, *binary;
    size_t size = 0;
    bool ok = get_map(f, root, "data", &data);
    ok = get_map(f, root, "binaryData", &binary) && ok;
    if (data)
        ok = check_map(f, data, "data", false, &size) && ok;
    if (binary)
        ok = check_map(f, binary, "binaryData", true, &size) && ok;
    const char *key;
    json_t *v;
    json_object_foreach(binary, key, v)
    {
        if (json_object_get(data, key)) {
            char p[FIELD_PATH_MAX];
            snprintf(p, sizeof p, "data[%s]", key);
            field_error(f, data, key, p, "FieldValueInvalid",
                        "Invalid value: \"%s\": duplicate of key present in binaryData", key);
            ok = false;
        }
    }
    if (size > CONFIG_SIZE_MAX) {
        field_error(f, root, "data", "data", "FieldValueTooLong", "Too long: must have at most %d bytes",
                    CONFIG_SIZE_MAX);
        ok = false;
    }
    if (ok && data && json_object_size(data))
        json_object_set(m, "data", data);
    if (ok && binary && json_object_size(binary))
        json_object_set(m, "binaryData", binary);
    return ok;
}

/* The keys a known Secret type requires (ValidateSecret). */
static void check_secret_type(struct fields *f, json_t *root, const char *type, const json_t *data)
{
    static const struct {
        const char *type, *keys[3];
    } required[] = {
        {"kubernetes.io/dockercfg", {".dockercfg", NULL}},
        {"kubernetes.io/dockerconfigjson", {".dockerconfigjson", NULL}},
        {"kubernetes.io/ssh-auth", {"ssh-privatekey", NULL}},
        {"kubernetes.io/tls", {"tls.crt", "tls.key", NULL}},
    };
    char p[FIELD_PATH_MAX];
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (strcmp(type, required[i].type) == 0)
            for (int k = 0; required[i].keys[k]; k++)
                if (!json_object_get(data, required[i].keys[k])) {
                    snprintf(p, sizeof p, "data[%s]", required[i].keys[k]);
                    field_error(f, root, "data", p, "FieldValueRequired", "Required value");
                }
    if (strcmp(type, "kubernetes.io/basic-auth") == 0 && !json_object_get(data, "username") &&
        !json_object_get(data, "password"))
        field_error(f, root, "data", "data[username]", "FieldValueRequired", "Required value");
}

static bool parse_secret(struct fields *f, json_t *root, json_t *m)
{
    json_t *data, *string_data;
    size_t size = 0;
    const char *type = NULL;
    bool ok = get_map(f, root, "data", &data);
    ok = get_map(f, root, "stringData", &string_data) && ok;
    ok = field_string(f, root, "type", "type", false, &type) && ok;
    if (data)
        ok = check_map(f, data, "data", true, &size) && ok;
    size_t string_size = 0;
    if (string_data)
        ok = check_map(f, string_data, "stringData", false, &string_size) && ok;
    if (!ok)
        return false;
    /* stringData is merged into data, its keys winning, and never kept as such (write-only) */
    json_t *merged = data ? json_deep_copy(data) : json_object();
    const char *key;
    json_t *v;
    json_object_foreach(string_data, key, v)
    {
        json_t *old = json_object_get(merged, key);
        if (old) {
            char *bytes;
            long n = base64_decode(json_string_value(old), json_string_length(old), &bytes);
            free(bytes);
            size -= n > 0 ? (size_t)n : 0;
        }
        size += json_string_length(v);
        char *encoded = base64_encode(json_string_value(v), json_string_length(v));
        if (!encoded || json_object_set_new(merged, key, json_string(encoded)) != 0) {
            free(encoded);
            json_decref(merged);
            api_fail(f->st, 500, "InternalError", "out of memory");
            return false;
        }
        free(encoded);
    }
    if (size > CONFIG_SIZE_MAX) {
        field_error(f, root, "data", "data", "FieldValueTooLong", "Too long: must have at most %d bytes",
                    CONFIG_SIZE_MAX);
        json_decref(merged);
        return false;
    }
    type = type && *type ? type : "Opaque";
    int causes = f->st->ncauses;
    check_secret_type(f, root, type, merged);
    if (json_object_size(merged))
        json_object_set(m, "data", merged);
    json_decref(merged);
    json_object_set_new(m, "type", json_string(type));
    return f->st->ncauses == causes;
}

static struct config_object *build(struct fields *f, json_t *root, enum config_kind kind, const char *url_ns)
{
    static const char *const known[2][8] = {
        [CONFIG_MAP] = {"apiVersion", "kind", "metadata", "data", "binaryData", "immutable", NULL},
        [CONFIG_SECRET] = {"apiVersion", "kind", "metadata", "data", "stringData", "type", "immutable", NULL},
    };
    json_t *meta = NULL;
    struct config_object *o = calloc(1, sizeof *o);
    if (!o) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return NULL;
    }
    o->kind = (uint8_t)kind;
    if (object_meta_parse(f, root, url_ns, &meta, &o->resource_version)) {
        const char *ns = json_string_value(json_object_get(meta, "namespace"));
        if (!(o->name = strdup(json_string_value(json_object_get(meta, "name")))) || !(o->ns = strdup(ns ? ns : "")))
            api_fail(f->st, 500, "InternalError", "out of memory");
    }
    json_t *m = json_pack("{s:s, s:s}", "apiVersion", CONFIG_API_VERSION, "kind", types[kind].kind);
    if (f->st->code == 0 && m) {
        field_check_known(f, root, "", known[kind]);
        json_t *imm = json_object_get(root, "immutable");
        if (field_bool(f, root, "immutable", "immutable", &o->immutable) && imm && !json_is_null(imm))
            json_object_set_new(m, "immutable", json_boolean(o->immutable));
        if (kind == CONFIG_MAP)
            parse_config_map(f, root, m);
        else
            parse_secret(f, root, m);
    }
    if (!m || f->st->code != 0 || f->st->ncauses > 0 || !meta) {
        if (!m)
            api_fail(f->st, 500, "InternalError", "out of memory");
        json_decref(meta);
        json_decref(m);
        config_object_free(o);
        return NULL;
    }
    json_object_set_new(m, "metadata", meta);
    o->manifest = m;
    return o;
}

int config_object_from_doc(const struct intake_doc *doc, enum config_kind kind, const char *ns,
                           struct config_object **out, struct api_status *st)
{
    *out = NULL;
    if (!json_is_object(doc->root))
        return api_fail(st, 400, "BadRequest", "the body must be a %s object", types[kind].kind);
    if (object_check_type(doc->root, &types[kind], st) != 0)
        return -1;
    struct fields f = {doc, st, false};
    *out = build(&f, doc->root, kind, ns);
    return *out ? 0 : object_fail_invalid(st, &types[kind], doc->root);
}

static int fail_update(struct api_status *st, const struct config_object *o, const char *path, const char *message)
{
    api_add_cause(st, path, "FieldValueForbidden", 0, 0, "%s", message);
    char kind[32];
    snprintf(kind, sizeof kind, "%s", types[o->kind].kind);
    api_fail_invalid(st, kind, o->name);
    api_set_details(st, types[o->kind].kind, "", o->name);
    return -1;
}

int config_object_check_update(const struct config_object *old, const struct config_object *o, struct api_status *st)
{
    static const char *const data_keys[] = {"data", "binaryData"};
    if (o->kind == CONFIG_SECRET &&
        !json_equal(json_object_get(old->manifest, "type"), json_object_get(o->manifest, "type"))) {
        api_add_cause(st, "type", "FieldValueInvalid", 0, 0, "Invalid value: \"%s\": field is immutable",
                      json_string_value(json_object_get(o->manifest, "type")));
        api_fail_invalid(st, types[o->kind].kind, o->name);
        api_set_details(st, types[o->kind].kind, "", o->name);
        return -1;
    }
    if (!old->immutable)
        return 0;
    if (!o->immutable)
        return fail_update(st, o, "immutable", "Forbidden: field is immutable when `immutable` is set");
    for (size_t i = 0; i < sizeof data_keys / sizeof data_keys[0]; i++) {
        const json_t *a = json_object_get(old->manifest, data_keys[i]), *b = json_object_get(o->manifest, data_keys[i]);
        if (!(a ? b && json_equal(a, b) : !b))
            return fail_update(st, o, data_keys[i], "Forbidden: field is immutable when `immutable` is set");
    }
    return 0;
}

json_t *config_object_render(const struct config_object *o)
{
    return object_manifest_render(o->manifest, o->uid, o->created_ms, o->resource_version);
}

char *config_object_to_store_json(const struct config_object *o) { return object_store_text(config_object_render(o)); }

struct config_object *config_object_from_store_json(const char *json, enum config_kind kind)
{
    json_t *root = json_loads(json, 0, NULL);
    struct api_status st = {0};
    struct fields f = {NULL, &st, true};
    const char *ns = json_string_value(json_object_get(json_object_get(root, "metadata"), "namespace"));
    struct config_object *o = json_is_object(root) && ns ? build(&f, root, kind, ns) : NULL;
    if (o) {
        object_meta_restore(root, o->uid, &o->created_ms);
    }
    json_decref(root);
    return o;
}

int config_object_value(const struct config_object *o, const char *key, char **value, size_t *len)
{
    *value = NULL;
    *len = 0;
    const json_t *v = o->kind == CONFIG_MAP ? json_object_get(json_object_get(o->manifest, "data"), key) : NULL;
    if (v) {
        *len = json_string_length(v);
        *value = malloc(*len + 1);
        if (!*value)
            return -1;
        memcpy(*value, json_string_value(v), *len + 1);
        return 0;
    }
    v = json_object_get(json_object_get(o->manifest, o->kind == CONFIG_MAP ? "binaryData" : "data"), key);
    if (!v)
        return 1;
    long n = base64_decode(json_string_value(v), json_string_length(v), value);
    if (n < 0)
        return -1; /* validated when accepted: only memory can fail */
    *len = (size_t)n;
    return 0;
}

int config_object_each_key(const struct config_object *o, int (*fn)(void *ctx, const char *key), void *ctx)
{
    static const char *const maps[] = {"data", "binaryData"};
    for (int i = 0; i < 2; i++) {
        const char *key;
        json_t *v;
        json_object_foreach(json_object_get(o->manifest, maps[i]), key, v)
        {
            int rc = fn(ctx, key);
            if (rc)
                return rc;
        }
    }
    return 0;
}
