/* The images file into software environments: each entry read in order, every mistake a cause with
 * its path and line, and image names matched against the entries' glob patterns, first match wins. */
#include "adapters/objects/images.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "adapters/intake/meta_limits.h"
#include "common/strv.h"

static const struct images_config *active; /* set before any thread starts, then only read */

void images_set_active(const struct images_config *c) { active = c; }
const struct images_config *images_active(void) { return active; }

static bool oom(struct fields *f)
{
    api_fail(f->st, 500, "InternalError", "out of memory");
    return false;
}

static void env_clear(struct image_env *e)
{
    free(e->name);
    strv_free(e->patterns);
    free(e->venv);
    free(e->conda);
    strv_free(e->path_prefix);
    strv_free(e->env);
    free(e->working_dir);
    memset(e, 0, sizeof *e);
}

void images_free(struct images_config *c)
{
    for (int i = 0; i < c->n; i++)
        env_clear(&c->envs[i]);
    free(c->envs);
    memset(c, 0, sizeof *c);
}

/* An absolute directory that can sit in PATH: no ':' and no line breaks. */
static bool dir_ok(const char *s) { return s[0] == '/' && !strpbrk(s, ":\r\n"); }

static bool read_dir(struct fields *f, const json_t *entry, const char *key, const char *parent, char **out)
{
    char path[FIELD_PATH_MAX];
    const char *s;
    field_path(path, parent, key);
    if (!field_string(f, entry, key, path, false, &s))
        return false;
    if (!s)
        return true;
    if (!dir_ok(s)) {
        field_invalid(f, entry, key, path, "must be an absolute path without ':'");
        return false;
    }
    return (*out = strdup(s)) ? true : oom(f);
}

static bool read_patterns(struct fields *f, const json_t *entry, const char *parent, struct image_env *e)
{
    char path[FIELD_PATH_MAX];
    field_path(path, parent, "images");
    if (!field_string_list(f, entry, "images", path, &e->patterns))
        return false;
    if (!e->patterns || !e->patterns[0]) {
        if (!e->patterns)
            field_required(f, entry, "images", path);
        else
            field_invalid(f, entry, "images", path, "names at least one image or pattern");
        return false;
    }
    json_t *arr = json_object_get(entry, "images");
    for (size_t i = 0; e->patterns[i]; i++) {
        if (!e->patterns[i][0] || strpbrk(e->patterns[i], " \t\r\n")) {
            char item[FIELD_PATH_MAX];
            field_path_index(item, path, i);
            field_error_at_index(f, arr, i, item, "FieldValueInvalid",
                                 "Invalid value: \"%s\": an image pattern is not empty and has no spaces",
                                 e->patterns[i]);
            return false;
        }
    }
    return true;
}

static bool read_path_prefix(struct fields *f, const json_t *entry, const char *parent, struct image_env *e)
{
    char path[FIELD_PATH_MAX];
    field_path(path, parent, "path");
    if (!field_string_list(f, entry, "path", path, &e->path_prefix))
        return false;
    json_t *arr = json_object_get(entry, "path");
    for (size_t i = 0; e->path_prefix && e->path_prefix[i]; i++) {
        if (!dir_ok(e->path_prefix[i])) {
            char item[FIELD_PATH_MAX];
            field_path_index(item, path, i);
            field_error_at_index(f, arr, i, item, "FieldValueInvalid",
                                 "Invalid value: \"%s\": must be an absolute path without ':'", e->path_prefix[i]);
            return false;
        }
    }
    return true;
}

static bool read_env(struct fields *f, const json_t *entry, const char *parent, struct image_env *e)
{
    char path[FIELD_PATH_MAX], item[FIELD_PATH_MAX];
    json_t *map;
    field_path(path, parent, "env");
    if (!field_string_map(f, entry, "env", path, &map))
        return false;
    const char *name;
    json_t *value;
    bool ok = true;
    json_object_foreach(map, name, value)
    {
        snprintf(item, sizeof item, "%s[%s]", path, name);
        if (!meta_c_identifier(name)) {
            field_error(f, map, name, item, "FieldValueInvalid",
                        "Invalid value: \"%s\": an environment variable's name is letters, digits and '_', not "
                        "starting with a digit",
                        name);
            ok = false;
        } else if (strv_pushf(&e->env, "%s=%s", name, json_string_value(value)) != 0) {
            return oom(f);
        }
    }
    return ok;
}

static bool read_entry(struct fields *f, const json_t *entry, const char *path, struct image_env *e,
                       const struct images_config *before)
{
    static const char *const keys[] = {"name", "images", "venv", "conda", "path", "env", "workingDir", NULL};
    char np[FIELD_PATH_MAX];
    const char *name = NULL;
    bool ok = field_check_known(f, entry, path, keys);
    field_path(np, path, "name");
    if (field_string(f, entry, "name", np, true, &name) && name) {
        if (!dns1123_label(name) || strcmp(name, IMAGES_DEFAULT_ENVIRONMENT) == 0) {
            field_invalid(f, entry, "name", np,
                          "an environment's name is a DNS-1123 label (lower-case letters, digits and '-'), not "
                          "\"" IMAGES_DEFAULT_ENVIRONMENT "\"");
            ok = false;
        } else {
            for (int i = 0; i < before->n; i++)
                if (strcmp(before->envs[i].name, name) == 0) {
                    field_error(f, entry, "name", np, "FieldValueDuplicate", "Duplicate value: \"%s\"", name);
                    ok = false;
                }
            if (ok && !(e->name = strdup(name)))
                return oom(f);
        }
    } else {
        ok = false;
    }
    ok = read_patterns(f, entry, path, e) && ok;
    ok = read_dir(f, entry, "venv", path, &e->venv) && ok;
    ok = read_dir(f, entry, "conda", path, &e->conda) && ok;
    if (e->venv && e->conda) {
        char cp[FIELD_PATH_MAX];
        field_path(cp, path, "conda");
        field_forbidden(f, entry, "conda", cp, "an environment is a venv or a conda prefix, not both");
        ok = false;
    }
    ok = read_path_prefix(f, entry, path, e) && ok;
    ok = read_env(f, entry, path, e) && ok;
    ok = read_dir(f, entry, "workingDir", path, &e->working_dir) && ok;
    return ok;
}

static void read_environments(struct fields *f, const json_t *list, struct images_config *c)
{
    if (json_array_size(list) > 0 && !(c->envs = calloc(json_array_size(list), sizeof *c->envs))) {
        oom(f);
        return;
    }
    for (size_t i = 0; i < json_array_size(list); i++) {
        char path[FIELD_PATH_MAX];
        json_t *entry = field_each_object(f, list, i, "environments", path, "an environment must be an object");
        if (!entry)
            continue;
        struct image_env e = {0};
        if (!read_entry(f, entry, path, &e, c) || !api_ok(f->st)) {
            env_clear(&e);
            continue;
        }
        c->envs[c->n++] = e;
    }
}

int images_parse(const char *data, size_t len, struct images_config *out, struct api_status *st)
{
    memset(out, 0, sizeof *out);
    out->configured = true;
    struct intake in;
    int found = intake_parse_config(data, len, "an images file is one YAML mapping with `environments:`", &in, st);
    if (found <= 0)
        return found;
    static const char *const root_keys[] = {"unknownImages", "environments", NULL};
    struct fields f = {&in.docs[0], st, false};
    json_t *root = in.docs[0].root, *list = NULL;
    const char *mode = NULL;
    field_check_known(&f, root, "", root_keys);
    if (field_string(&f, root, "unknownImages", "unknownImages", false, &mode) && mode) {
        if (strcmp(mode, "refuse") == 0)
            out->refuse_unknown = true;
        else if (strcmp(mode, "warn") != 0)
            field_unsupported(&f, root, "unknownImages", "unknownImages", "supported values: \"warn\", \"refuse\"");
    }
    if (field_array(&f, root, "environments", "environments", false, &list) && list)
        read_environments(&f, list, out);
    intake_free(&in);
    if (st->ncauses > 0 || !api_ok(st)) {
        images_free(out);
        return api_ok(st) ? api_fail_invalid(st, "images file", "") : -1;
    }
    return 0;
}

const struct image_env *images_match(const struct images_config *c, const char *image)
{
    if (!c || !image || !*image)
        return NULL;
    for (int i = 0; i < c->n; i++)
        for (size_t j = 0; c->envs[i].patterns[j]; j++)
            if (fnmatch(c->envs[i].patterns[j], image, 0) == 0)
                return &c->envs[i];
    return NULL;
}

bool images_unknown(const struct images_config *c, const char *image)
{
    return c && c->configured && image && *image && !images_match(c, image);
}

const char *images_environment_name(const struct images_config *c, const char *image)
{
    const struct image_env *e = images_match(c, image);
    return e ? e->name : IMAGES_DEFAULT_ENVIRONMENT;
}

bool images_check_container(struct fields *f, const json_t *container, const char *path, const char *image)
{
    if (f->admitted || !active || !active->refuse_unknown || !images_unknown(active, image))
        return true;
    char ip[FIELD_PATH_MAX];
    field_path(ip, path, "image");
    field_error(f, container, "image", ip, "FieldValueNotSupported",
                "Unsupported value: \"%s\": no software environment of this server runs this image (the "
                "server's --images file refuses unknown images)",
                image);
    return false;
}
