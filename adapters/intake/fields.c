/* Typed access to fields of a parsed document with Kubernetes-style causes. A cause's position is
 * the value's own line and column when the document came as YAML, else none. */
#include "adapters/intake/fields.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/meta_limits.h"
#include "common/strv.h"

/* Paths are built for every field read, and a cause is rare, so they are joined by hand: snprintf
 * cost ten times as much. Like snprintf, put() keeps the text within FIELD_PATH_MAX with its NUL. */
static size_t put(char *out, size_t at, const char *s, size_t n)
{
    size_t room = FIELD_PATH_MAX - 1 - at;
    if (n > room)
        n = room;
    memcpy(out + at, s, n);
    return at + n;
}

void field_path(char *out, const char *parent, const char *key)
{
    size_t at = 0;
    if (parent && *parent) {
        at = put(out, at, parent, strlen(parent));
        at = put(out, at, ".", 1);
    }
    at = put(out, at, key, strlen(key));
    out[at] = '\0';
}

void field_path_index(char *out, const char *parent, size_t index)
{
    char digits[24];
    size_t n = sizeof digits;
    digits[--n] = ']';
    do
        digits[--n] = (char)('0' + index % 10);
    while ((index /= 10) > 0);
    digits[--n] = '[';
    size_t at = put(out, 0, parent, strlen(parent));
    at = put(out, at, digits + n, sizeof digits - n);
    out[at] = '\0';
}

static void locate(const struct fields *f, const json_t *obj, const char *key, struct intake_pos *pos)
{
    pos->line = pos->column = 0;
    if (!f->doc || !obj)
        return;
    if (key && json_object_get(obj, key) && intake_member_pos(f->doc, obj, key, pos))
        return;
    intake_node_pos(f->doc, obj, pos);
}

static void add_cause(struct fields *f, struct intake_pos pos, const char *path, const char *reason, const char *fmt,
                      va_list ap)
{
    char msg[384];
    vsnprintf(msg, sizeof msg, fmt, ap);
    api_add_cause(f->st, path, reason, pos.line, pos.column, "%s", msg);
}

void field_error(struct fields *f, const json_t *obj, const char *key, const char *path, const char *reason,
                 const char *fmt, ...)
{
    struct intake_pos pos;
    locate(f, obj, key, &pos);
    va_list ap;
    va_start(ap, fmt);
    add_cause(f, pos, path, reason, fmt, ap);
    va_end(ap);
}

void field_error_at_index(struct fields *f, const json_t *array, size_t index, const char *path, const char *reason,
                          const char *fmt, ...)
{
    struct intake_pos pos = {0, 0};
    if (f->doc && !intake_index_pos(f->doc, array, index, &pos))
        intake_node_pos(f->doc, array, &pos);
    va_list ap;
    va_start(ap, fmt);
    add_cause(f, pos, path, reason, fmt, ap);
    va_end(ap);
}

json_t *field_each_object(struct fields *f, const json_t *array, size_t i, const char *parent, char *path,
                          const char *detail)
{
    field_path_index(path, parent, i);
    json_t *item = json_array_get(array, i);
    if (json_is_object(item))
        return item;
    field_error_at_index(f, array, i, path, "FieldValueInvalid", "Invalid value: %s", detail);
    return NULL;
}

void field_required(struct fields *f, const json_t *obj, const char *key, const char *path)
{
    field_error(f, obj, key, path, "FieldValueRequired", "Required value");
}

/* Kubernetes quotes the offending value: `Invalid value: "1.5GG": <detail>`. */
static void describe_value(const json_t *v, char *buf, size_t len)
{
    char text[96];
    if (v && intake_scalar_text(v, text, sizeof text))
        snprintf(buf, len, json_is_string(v) ? "\"%s\"" : "%s", text);
    else if (json_is_boolean(v))
        snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
    else if (json_is_null(v) || !v)
        snprintf(buf, len, "null");
    else
        snprintf(buf, len, json_is_object(v) ? "{...}" : "[...]");
}

void field_invalid(struct fields *f, const json_t *obj, const char *key, const char *path, const char *detail)
{
    char value[128];
    describe_value(key ? json_object_get(obj, key) : obj, value, sizeof value);
    field_error(f, obj, key, path, "FieldValueInvalid", "Invalid value: %s: %s", value, detail);
}

void field_unsupported(struct fields *f, const json_t *obj, const char *key, const char *path, const char *detail)
{
    char value[128];
    describe_value(key ? json_object_get(obj, key) : obj, value, sizeof value);
    field_error(f, obj, key, path, "FieldValueNotSupported", "Unsupported value: %s: %s", value, detail);
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "a list";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

static json_t *member(const json_t *obj, const char *key)
{
    json_t *v = obj ? json_object_get(obj, key) : NULL;
    return json_is_null(v) ? NULL : v; /* an explicit null means "not set", as in Kubernetes */
}

static bool wrong_type(struct fields *f, const json_t *obj, const char *key, const char *path, const char *want)
{
    char detail[96];
    snprintf(detail, sizeof detail, "must be %s, not %s", want, type_name(json_object_get(obj, key)));
    field_invalid(f, obj, key, path, detail);
    return false;
}

/* A member's path as the caller gave it: whole, or as its parent's (joined with the key only when a
 * cause needs it: most reads add none). */
struct member_path {
    const char *whole;
    const char *parent;
};

static const char *path_text(const struct member_path *mp, const char *key, char buf[FIELD_PATH_MAX])
{
    if (mp->whole)
        return mp->whole;
    field_path(buf, mp->parent, key);
    return buf;
}

/* The member under key if it has the wanted type: 1 and *v set; 0 when absent (a Required cause
 * when required); -1 after an Invalid cause for the wrong type. Integers pass for JSON_REAL. */
static int typed_member(struct fields *f, const json_t *obj, const char *key, const struct member_path *mp,
                        bool required, json_type type, const char *want, json_t **v)
{
    char buf[FIELD_PATH_MAX];
    *v = member(obj, key);
    if (!*v) {
        if (required) {
            field_required(f, obj, key, path_text(mp, key, buf));
            return -1;
        }
        return 0;
    }
    bool ok = json_typeof(*v) == type || (type == JSON_TRUE && json_is_boolean(*v));
    if (!ok) {
        wrong_type(f, obj, key, path_text(mp, key, buf), want);
        *v = NULL;
        return -1;
    }
    return 1;
}

static bool string_member(struct fields *f, const json_t *obj, const char *key, const struct member_path *mp,
                          bool required, const char **out)
{
    json_t *v;
    int found = typed_member(f, obj, key, mp, required, JSON_STRING, "a string", &v);
    *out = found > 0 ? json_string_value(v) : NULL;
    return found >= 0;
}

static bool int_member(struct fields *f, const json_t *obj, const char *key, const struct member_path *mp,
                       bool required, int64_t min, int64_t max, int64_t *out)
{
    json_t *v;
    int found = typed_member(f, obj, key, mp, required, JSON_INTEGER, "an integer", &v);
    if (found <= 0)
        return found == 0;
    int64_t n = json_integer_value(v);
    if (n < min || n > max) {
        char detail[96], buf[FIELD_PATH_MAX];
        if (max == INT32_MAX || max == INT64_MAX)
            snprintf(detail, sizeof detail, "must be greater than or equal to %lld", (long long)min);
        else
            snprintf(detail, sizeof detail, "must be between %lld and %lld", (long long)min, (long long)max);
        field_invalid(f, obj, key, path_text(mp, key, buf), detail);
        return false;
    }
    *out = n;
    return true;
}

static bool bool_member(struct fields *f, const json_t *obj, const char *key, const struct member_path *mp, bool *out)
{
    json_t *v;
    int found = typed_member(f, obj, key, mp, false, JSON_TRUE, "a boolean", &v);
    if (found > 0)
        *out = json_is_true(v);
    return found >= 0;
}

bool field_string(struct fields *f, const json_t *obj, const char *key, const char *path, bool required,
                  const char **out)
{
    return string_member(f, obj, key, &(struct member_path){path, NULL}, required, out);
}

bool field_int(struct fields *f, const json_t *obj, const char *key, const char *path, bool required, int64_t min,
               int64_t max, int64_t *out)
{
    return int_member(f, obj, key, &(struct member_path){path, NULL}, required, min, max, out);
}

bool field_bool(struct fields *f, const json_t *obj, const char *key, const char *path, bool *out)
{
    return bool_member(f, obj, key, &(struct member_path){path, NULL}, out);
}

bool field_object(struct fields *f, const json_t *obj, const char *key, const char *path, bool required, json_t **out)
{
    return typed_member(f, obj, key, &(struct member_path){path, NULL}, required, JSON_OBJECT, "an object", out) >= 0;
}

bool field_array(struct fields *f, const json_t *obj, const char *key, const char *path, bool required, json_t **out)
{
    return typed_member(f, obj, key, &(struct member_path){path, NULL}, required, JSON_ARRAY, "a list", out) >= 0;
}

bool field_string_in(struct fields *f, const json_t *obj, const char *key, const char *parent, bool required,
                     const char **out)
{
    return string_member(f, obj, key, &(struct member_path){NULL, parent}, required, out);
}

bool field_int_in(struct fields *f, const json_t *obj, const char *key, const char *parent, bool required, int64_t min,
                  int64_t max, int64_t *out)
{
    return int_member(f, obj, key, &(struct member_path){NULL, parent}, required, min, max, out);
}

bool field_bool_in(struct fields *f, const json_t *obj, const char *key, const char *parent, bool *out)
{
    return bool_member(f, obj, key, &(struct member_path){NULL, parent}, out);
}

bool field_object_in(struct fields *f, const json_t *obj, const char *key, const char *parent, bool required,
                     json_t **out)
{
    return typed_member(f, obj, key, &(struct member_path){NULL, parent}, required, JSON_OBJECT, "an object", out) >= 0;
}

bool field_array_in(struct fields *f, const json_t *obj, const char *key, const char *parent, bool required,
                    json_t **out)
{
    return typed_member(f, obj, key, &(struct member_path){NULL, parent}, required, JSON_ARRAY, "a list", out) >= 0;
}

bool field_string_map(struct fields *f, const json_t *obj, const char *key, const char *path, json_t **out)
{
    if (!field_object(f, obj, key, path, false, out))
        return false;
    if (!*out)
        return true;
    bool ok = true;
    const char *k;
    json_t *v;
    json_object_foreach(*out, k, v)
    {
        if (!json_is_string(v)) {
            char sub[FIELD_PATH_MAX];
            snprintf(sub, sizeof sub, "%s[%s]", path, k);
            wrong_type(f, *out, k, sub, "a string");
            ok = false;
        }
    }
    return ok;
}

static bool string_list_member(struct fields *f, const json_t *obj, const char *key, const struct member_path *mp,
                               char ***out)
{
    json_t *arr;
    *out = NULL;
    if (typed_member(f, obj, key, mp, false, JSON_ARRAY, "a list", &arr) < 0)
        return false;
    if (!arr)
        return true;
    char **v = calloc(json_array_size(arr) + 1, sizeof *v); /* an empty list is still a list */
    if (!v) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return false;
    }
    size_t i;
    json_t *item;
    json_array_foreach(arr, i, item)
    {
        char text[32];
        const char *s = json_is_string(item) ? json_string_value(item) : NULL;
        if (!s && (json_is_integer(item) || json_is_real(item)) && intake_scalar_text(item, text, sizeof text))
            s = text; /* YAML reads `- 100` as a number; Kubernetes would refuse it, we take its text */
        if (!s) {
            char buf[FIELD_PATH_MAX], sub[FIELD_PATH_MAX];
            field_path_index(sub, path_text(mp, key, buf), i);
            field_error_at_index(f, arr, i, sub, "FieldValueInvalid", "Invalid value: must be a string, not %s",
                                 type_name(item));
            strv_free(v);
            return false;
        }
        if (!(v[i] = strdup(s))) {
            strv_free(v);
            api_fail(f->st, 500, "InternalError", "out of memory");
            return false;
        }
    }
    *out = v;
    return true;
}

bool field_string_list(struct fields *f, const json_t *obj, const char *key, const char *path, char ***out)
{
    return string_list_member(f, obj, key, &(struct member_path){path, NULL}, out);
}

bool field_string_list_in(struct fields *f, const json_t *obj, const char *key, const char *parent, char ***out)
{
    return string_list_member(f, obj, key, &(struct member_path){NULL, parent}, out);
}

bool dns1123_label(const char *s)
{
    const char *why[4];
    char buf[96];
    return meta_dns1123_label_problems(s, why, buf, sizeof buf) == 0;
}

bool dns1123_subdomain(const char *s)
{
    const char *why[4];
    char buf[96];
    return meta_dns1123_subdomain_problems(s, why, buf, sizeof buf) == 0;
}

void field_forbidden(struct fields *f, const json_t *obj, const char *key, const char *path, const char *detail)
{
    field_error(f, obj, key, path, "FieldValueForbidden", "Forbidden: %s", detail);
}

bool field_unknown(struct fields *f, const json_t *obj, const char *key, const char *path)
{
    char sub[FIELD_PATH_MAX];
    field_path(sub, path, key);
    enum field_validation mode = f->doc ? f->doc->validation : FIELD_VALIDATION_STRICT;
    if (mode == FIELD_VALIDATION_STRICT) {
        field_error(f, obj, key, sub, "FieldValueNotSupported", "unknown field \"%s\"", sub);
        return false;
    }
    if (mode == FIELD_VALIDATION_WARN && f->doc->warn) {
        char text[FIELD_PATH_MAX + 32];
        snprintf(text, sizeof text, "unknown field \"%s\"", sub);
        f->doc->warn(f->doc->warn_ctx, text);
    }
    return true;
}

void field_prune(struct fields *f, const json_t *obj, const char *const *keys, size_t n)
{
    if (!f->doc || f->doc->validation == FIELD_VALIDATION_STRICT)
        return;
    for (size_t i = 0; i < n; i++)
        json_object_del((json_t *)obj, keys[i]);
}

/* Unknown members are dropped after the loop over obj that found them (never during it); the keys
 * are copied, since a member's key dies with it. */
#define PRUNE_MAX 32

static void prune_later(char keys[][FIELD_PATH_MAX], size_t *n, const char *key)
{
    if (*n < PRUNE_MAX)
        snprintf(keys[(*n)++], FIELD_PATH_MAX, "%s", key);
}

static void prune_now(struct fields *f, const json_t *obj, char keys[][FIELD_PATH_MAX], size_t n)
{
    const char *list[PRUNE_MAX];
    for (size_t i = 0; i < n; i++)
        list[i] = keys[i];
    field_prune(f, obj, list, n);
}

bool field_check_known(struct fields *f, const json_t *obj, const char *path, const char *const *known)
{
    if (f->admitted)
        return true;
    bool ok = true;
    const char *key;
    json_t *v;
    char unknown[PRUNE_MAX][FIELD_PATH_MAX];
    size_t nunknown = 0;
    json_object_foreach((json_t *)obj, key, v)
    {
        const char *const *k = known;
        while (*k && ((*k)[0] != key[0] || strcmp(*k, key) != 0)) /* most differ at once: no call */
            k++;
        if (!*k && field_unknown(f, obj, key, path))
            prune_later(unknown, &nunknown, key);
        else if (!*k)
            ok = false;
    }
    prune_now(f, obj, unknown, nunknown);
    return ok;
}

/* What omitempty drops: such a value asks for nothing, so even a refused field may carry it. */
static bool empty_value(const json_t *v)
{
    return json_is_null(v) || (json_is_string(v) && json_string_length(v) == 0) ||
           (json_is_array(v) && json_array_size(v) == 0) || (json_is_object(v) && json_object_size(v) == 0);
}

bool field_check_rules(struct fields *f, const json_t *obj, const char *path, const struct field_rule *rules)
{
    if (f->admitted)
        return true;
    bool ok = true;
    const char *key;
    json_t *v;
    char unknown[PRUNE_MAX][FIELD_PATH_MAX];
    size_t nunknown = 0;
    json_object_foreach((json_t *)obj, key, v)
    {
        const struct field_rule *r = rules; /* tables of up to ~80 names, asked for every member */
        while (r->name && (r->name[0] != key[0] || strcmp(r->name, key) != 0))
            r++;
        if (!r->name) {
            if (field_unknown(f, obj, key, path))
                prune_later(unknown, &nunknown, key);
            else
                ok = false;
        } else if (r->refused && !empty_value(v)) {
            char sub[FIELD_PATH_MAX];
            field_path(sub, path, key);
            field_forbidden(f, obj, key, sub, r->refused);
            ok = false;
        }
    }
    prune_now(f, obj, unknown, nunknown);
    return ok;
}

/* ObjectMeta, of a Job, a Queue, a pod template. name, generateName, namespace, labels and
 * annotations are honoured (by the Job's reader; a template's name and namespace are ignored, as the
 * job controller names its pods). The server's own fields are accepted and replaced, as the API
 * server does on create (uid, creationTimestamp, generation, selfLink, managedFields, deletion*);
 * resourceVersion is what an update expects to replace. */
const struct field_rule kube_object_meta_rules[] = {
    {"name", NULL},
    {"generateName", NULL},
    {"namespace", NULL},
    {"labels", NULL},
    {"annotations", NULL},
    {"uid", NULL},
    {"resourceVersion", NULL},
    {"generation", NULL},
    {"creationTimestamp", NULL},
    {"deletionTimestamp", NULL},
    {"deletionGracePeriodSeconds", NULL},
    {"selfLink", NULL},
    {"managedFields", NULL},
    {"ownerReferences", "Caldera has no garbage collector: nothing would delete this object with its owner"},
    {"finalizers", "nothing in Caldera would ever remove a finalizer, so the object could not be deleted"},
    {NULL, NULL},
};
