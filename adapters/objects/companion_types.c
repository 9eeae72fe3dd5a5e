/* The companions file into companion types: each entry read onto a copy of the type it names (or a
 * new one), every mistake a cause with its path and line, and the set changed only when all is well. */
#include "adapters/objects/companion_types.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/intake/meta_limits.h"
#include "adapters/intake/intake.h"
#include "common/duration.h"
#include "common/strv.h"

#define DEFAULT_START_TIMEOUT_MS (2 * 60 * 1000)
#define DEFAULT_IDLE_TIMEOUT_MS (60 * 60 * 1000)

static const char *const entry_keys[] = {"command",      "env",         "headers",     "readinessPath",
                                         "startTimeout", "idleTimeout", "stripPrefix", "activity",
                                         "image",        "port",        NULL};
static const char *const activity_keys[] = {"source", "path", "field", "busyPath", NULL};

static bool oom(struct fields *f)
{
    api_fail(f->st, 500, "InternalError", "out of memory");
    return false;
}

/* A template in obj[key], or in element index of the array obj when key is NULL. */
static bool check_template(struct fields *f, const json_t *obj, const char *key, size_t index, const char *path,
                           const char *tmpl)
{
    char why[256];
    if (companion_template_check(tmpl, why, sizeof why) == 0)
        return true;
    if (key)
        field_error(f, obj, key, path, "FieldValueInvalid", "Invalid value: \"%s\": %s", tmpl, why);
    else
        field_error_at_index(f, obj, index, path, "FieldValueInvalid", "Invalid value: \"%s\": %s", tmpl, why);
    return false;
}

/* An HTTP path template: it must expand to an absolute path, so it starts with '/' or {base_url}. */
static bool read_path(struct fields *f, const json_t *obj, const char *key, const char *parent, bool required,
                      char **out)
{
    char path[FIELD_PATH_MAX];
    const char *s;
    field_path(path, parent, key);
    if (!field_string(f, obj, key, path, required, &s))
        return false;
    if (!s)
        return true;
    if (s[0] != '/' && strncmp(s, "{base_url}", 10) != 0) {
        field_invalid(f, obj, key, path, "an HTTP path must start with '/' or {base_url}");
        return false;
    }
    if (strpbrk(s, " \t\r\n#")) {
        field_invalid(f, obj, key, path, "an HTTP path has no spaces, line breaks or '#'");
        return false;
    }
    if (!check_template(f, obj, key, 0, path, s))
        return false;
    free(*out);
    return (*out = strdup(s)) ? true : oom(f);
}

static bool read_command(struct fields *f, const json_t *entry, const char *parent, struct companion_type *t)
{
    char path[FIELD_PATH_MAX], item[FIELD_PATH_MAX];
    char **argv;
    field_path(path, parent, "command");
    if (!field_string_list(f, entry, "command", path, &argv))
        return false;
    if (!argv)
        return true;
    json_t *arr = json_object_get(entry, "command");
    bool ok = true;
    if (!argv[0]) {
        field_invalid(f, entry, "command", path, "names no program");
        ok = false;
    }
    for (size_t i = 0; argv[i]; i++) {
        field_path_index(item, path, i);
        ok = check_template(f, arr, NULL, i, item, argv[i]) && ok;
    }
    if (argv[0]) {
        const char *p = argv[0];
        field_path_index(item, path, 0);
        if (!*p || strpbrk(p, "{}") || (strchr(p, '/') && p[0] != '/')) {
            field_error_at_index(f, arr, 0, item, "FieldValueInvalid",
                                 "Invalid value: \"%s\": the program is a name looked up on PATH or an absolute "
                                 "path, without placeholders",
                                 p);
            ok = false;
        }
    }
    if (!ok) {
        strv_free(argv);
        return false;
    }
    strv_free(t->argv);
    t->argv = argv;
    return true;
}

/* RFC 9110's token. */
static bool header_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("!#$%&'*+-.^_`|~", *s))
            return false;
    return true;
}

/* env (NAME=template) or headers ("Name: template"): a map of templates into a vector. */
static bool read_map(struct fields *f, const json_t *entry, const char *key, const char *parent, char ***out)
{
    char path[FIELD_PATH_MAX], item[FIELD_PATH_MAX];
    json_t *map;
    bool env = strcmp(key, "env") == 0;
    field_path(path, parent, key);
    if (!field_string_map(f, entry, key, path, &map))
        return false;
    if (!map)
        return true;
    char **v = NULL;
    bool ok = true;
    const char *name;
    json_t *value;
    json_object_foreach(map, name, value)
    {
        const char *s = json_string_value(value);
        snprintf(item, sizeof item, "%s[%s]", path, name);
        if (env ? !meta_c_identifier(name) : !header_name(name)) {
            field_error(f, map, name, item, "FieldValueInvalid", "Invalid value: \"%s\": %s", name,
                        env ? "an environment variable's name is letters, digits and '_', not starting with a digit"
                            : "a header's name is an HTTP token");
            ok = false;
            continue;
        }
        if (!env && strpbrk(s, "\r\n")) {
            field_invalid(f, map, name, item, "a header's value has no line breaks");
            ok = false;
            continue;
        }
        if (!check_template(f, map, name, 0, item, s)) {
            ok = false;
            continue;
        }
        if ((env ? strv_pushf(&v, "%s=%s", name, s) : strv_pushf(&v, "%s: %s", name, s)) != 0) {
            strv_free(v);
            return oom(f);
        }
    }
    if (!ok) {
        strv_free(v);
        return false;
    }
    strv_free(*out);
    *out = v ? v : calloc(1, sizeof *v); /* {} clears the built-in's: an empty vector, not none */
    return *out ? true : oom(f);
}

static bool read_duration(struct fields *f, const json_t *entry, const char *key, const char *parent, int64_t min_ms,
                          int64_t *out)
{
    char path[FIELD_PATH_MAX];
    const json_t *v = json_object_get(entry, key);
    const char *why = NULL;
    int64_t ms;
    if (!v || json_is_null(v))
        return true;
    field_path(path, parent, key);
    if (duration_from_json(v, &ms, &why) != 0) {
        field_invalid(f, entry, key, path, why ? why : "must be a duration such as 90s, 5m or 1h30m");
        return false;
    }
    if (ms < min_ms) {
        field_invalid(f, entry, key, path, min_ms > 0 ? "must be more than 0" : "must not be negative");
        return false;
    }
    *out = ms;
    return true;
}

static bool set_default(struct fields *f, char **out, const char *s)
{
    if (*out || !s)
        return true;
    return (*out = strdup(s)) ? true : oom(f);
}

/* activity: a source's name, or {source, path, field, busyPath}; replaces the type's as a whole. */
static bool read_activity(struct fields *f, const json_t *entry, const char *parent, struct companion_type *t)
{
    char path[FIELD_PATH_MAX], sp[FIELD_PATH_MAX];
    const json_t *v = json_object_get(entry, "activity");
    if (!v || json_is_null(v))
        return true;
    field_path(path, parent, "activity");
    struct companion_activity a = {0};
    const char *source = json_string_value(v);
    const json_t *obj = entry;
    const char *source_key = "activity";
    snprintf(sp, sizeof sp, "%s", path);
    if (json_is_object(v)) {
        obj = v;
        source_key = "source";
        field_path(sp, path, "source");
        if (!field_check_known(f, v, path, activity_keys) || !field_string(f, v, "source", sp, true, &source))
            return false;
    } else if (!source) {
        field_invalid(f, entry, "activity", path, "must be proxy, json, jupyter or an object with a source");
        return false;
    }
    if (!companion_activity_source_parse(source, &a.source)) {
        field_unsupported(f, obj, source_key, sp, "supported sources: \"proxy\", \"json\", \"jupyter\"");
        return false;
    }
    bool ok = true;
    if (obj == v) {
        ok = read_path(f, v, "path", path, a.source == COMPANION_ACTIVITY_JSON, &a.path) && ok;
        ok = read_path(f, v, "busyPath", path, false, &a.busy_path) && ok;
        const char *field = NULL;
        char fp[FIELD_PATH_MAX];
        field_path(fp, path, "field");
        if (!field_string(f, v, "field", fp, false, &field)) {
            ok = false;
        } else if (field && !*field) {
            field_invalid(f, v, "field", fp, "names the member holding the time");
            ok = false;
        } else if (field && !(a.field = strdup(field))) {
            ok = oom(f);
        }
        if (a.source == COMPANION_ACTIVITY_PROXY && (a.path || a.field || a.busy_path)) {
            const char *key = a.path ? "path" : a.field ? "field" : "busyPath";
            field_path(fp, path, key);
            field_forbidden(f, v, key, fp, "the proxy source reads nothing from the companion");
            ok = false;
        } else if (a.source == COMPANION_ACTIVITY_JSON && a.busy_path) {
            field_path(fp, path, "busyPath");
            field_forbidden(f, v, "busyPath", fp, "only the jupyter source reads a busy path");
            ok = false;
        }
    } else if (a.source == COMPANION_ACTIVITY_JSON) {
        field_invalid(f, entry, "activity", path, "the json source needs an object with a path");
        ok = false;
    }
    if (ok && a.source != COMPANION_ACTIVITY_PROXY)
        ok = set_default(f, &a.field, "last_activity");
    if (ok && a.source == COMPANION_ACTIVITY_JUPYTER)
        ok = set_default(f, &a.path, "{base_url}api/status") &&
             set_default(f, &a.busy_path, "{base_url}api/kernels?no_track_activity=1");
    if (!ok) {
        struct companion_type tmp = {.activity = a};
        companion_type_clear(&tmp);
        return false;
    }
    struct companion_type old = {.activity = t->activity};
    companion_type_clear(&old);
    t->activity = a;
    return true;
}

/* image and port: what a real cluster's pod runs (adapters/dialects/volcano/companion_manifest.h). */
static bool read_cluster_fields(struct fields *f, const json_t *entry, const char *path, struct companion_type *t)
{
    char ip[FIELD_PATH_MAX], pp[FIELD_PATH_MAX];
    const char *image = NULL;
    int64_t port = t->port;
    field_path(ip, path, "image");
    field_path(pp, path, "port");
    bool ok = field_string(f, entry, "image", ip, false, &image);
    if (ok && image && (!*image || strpbrk(image, " \t\r\n{}"))) {
        field_invalid(f, entry, "image", ip, "an image reference has no spaces, line breaks or braces");
        ok = false;
    } else if (ok && image) {
        free(t->image);
        if (!(t->image = strdup(image)))
            return oom(f);
    }
    if (!field_int(f, entry, "port", pp, false, 1, 65535, &port))
        return false;
    t->port = (int)port;
    return ok;
}

/* One entry onto t (a copy of the type of that name, or a new zeroed one). */
static bool read_entry(struct fields *f, const json_t *entry, const char *path, struct companion_type *t, bool added)
{
    bool ok = field_check_known(f, entry, path, entry_keys);
    ok = read_command(f, entry, path, t) && ok;
    ok = read_map(f, entry, "env", path, &t->env) && ok;
    ok = read_map(f, entry, "headers", path, &t->headers) && ok;
    ok = read_path(f, entry, "readinessPath", path, added, &t->readiness_path) && ok;
    ok = read_duration(f, entry, "startTimeout", path, 1, &t->start_timeout_ms) && ok;
    ok = read_duration(f, entry, "idleTimeout", path, 0, &t->idle_timeout_ms) && ok;
    char sp[FIELD_PATH_MAX];
    field_path(sp, path, "stripPrefix");
    ok = field_bool(f, entry, "stripPrefix", sp, &t->strip_prefix) && ok;
    ok = read_activity(f, entry, path, t) && ok;
    ok = read_cluster_fields(f, entry, path, t) && ok;
    const json_t *command = json_object_get(entry, "command");
    if (added && !t->argv && (!command || json_is_null(command))) { /* not when it was there but wrong */
        char cp[FIELD_PATH_MAX];
        field_path(cp, path, "command");
        field_required(f, entry, "command", cp);
        ok = false;
    }
    return ok;
}

static void read_companions(struct fields *f, const json_t *companions, struct companion_types *set)
{
    const char *name;
    json_t *entry;
    json_object_foreach((json_t *)companions, name, entry)
    {
        char path[FIELD_PATH_MAX];
        snprintf(path, sizeof path, "companions.%s", name);
        if (!dns1123_label(name) || strlen(name) >= COMPANION_NAME_MAX) {
            struct intake_pos pos = {0, 0}; /* the name's own line: its value's may be the next one */
            intake_key_pos(f->doc, companions, name, &pos);
            api_add_cause(f->st, path, "FieldValueInvalid", pos.line, pos.column,
                          "Invalid value: \"%s\": a companion type's name is a DNS-1123 label (lower-case "
                          "letters, digits and '-')",
                          name);
            continue;
        }
        if (!json_is_object(entry)) {
            field_invalid(f, companions, name, path, "must be an object");
            continue;
        }
        const struct companion_type *old = companion_types_find(set, name);
        struct companion_type t = {0};
        if (old && companion_type_copy(&t, old) != 0) {
            oom(f);
            return;
        }
        if (!old) {
            snprintf(t.name, sizeof t.name, "%s", name);
            t.start_timeout_ms = DEFAULT_START_TIMEOUT_MS;
            t.idle_timeout_ms = DEFAULT_IDLE_TIMEOUT_MS;
        }
        if (!read_entry(f, entry, path, &t, !old) || !api_ok(f->st)) {
            companion_type_clear(&t);
            continue;
        }
        struct companion_type *slot = companion_types_get(set, name);
        if (!slot) {
            companion_type_clear(&t);
            oom(f);
            return;
        }
        companion_type_clear(slot);
        *slot = t;
    }
}

/* A deep copy of a set, so a failed read leaves the original as it was. */
static int copy_set(struct companion_types *out, const struct companion_types *set)
{
    memset(out, 0, sizeof *out);
    if (set->n == 0)
        return 0;
    if (!(out->types = calloc((size_t)set->n, sizeof *out->types)))
        return -1;
    for (; out->n < set->n; out->n++) {
        if (companion_type_copy(&out->types[out->n], &set->types[out->n]) != 0) {
            companion_types_free(out);
            return -1;
        }
    }
    return 0;
}

int companion_types_parse(const char *data, size_t len, struct companion_types *set, struct api_status *st)
{
    struct intake in;
    int found = intake_parse_config(data, len, "a companions file is one YAML mapping with `companions:`", &in, st);
    if (found <= 0)
        return found;
    struct fields f = {&in.docs[0], st, false};
    json_t *root = in.docs[0].root, *companions = NULL;
    static const char *const root_keys[] = {"companions", NULL};
    struct companion_types next;
    if (copy_set(&next, set) != 0) {
        intake_free(&in);
        return api_fail(st, 500, "InternalError", "out of memory");
    }
    field_check_known(&f, root, "", root_keys);
    if (field_object(&f, root, "companions", "companions", false, &companions) && companions)
        read_companions(&f, companions, &next);
    intake_free(&in);
    if (st->ncauses > 0 || !api_ok(st)) {
        companion_types_free(&next);
        return api_ok(st) ? api_fail_invalid(st, "companions file", "") : -1;
    }
    companion_types_free(set);
    *set = next;
    return 0;
}

int companion_types_load(const char *data, size_t len, struct companion_types *set, struct api_status *st)
{
    memset(set, 0, sizeof *set);
    if (companion_types_parse(companion_types_builtin_yaml, strlen(companion_types_builtin_yaml), set, st) != 0)
        return -1;
    for (int i = 0; i < set->n; i++)
        set->types[i].builtin = true;
    if (data && companion_types_parse(data, len, set, st) != 0) {
        companion_types_free(set);
        return -1;
    }
    return 0;
}
