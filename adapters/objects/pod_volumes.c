/* spec.volumes and volumeMounts as Kubernetes' ValidateVolumes and ValidateVolumeMounts read them,
 * for the volume types the process runtime mounts itself (hostPath, emptyDir, configMap, secret);
 * each mount joined with its volume into the task's pod_mount list, in the container's order. */
#include "adapters/objects/pod_volumes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/meta_limits.h"
#include "adapters/objects/config_object.h"
#include "model/quantity.h"

#define OTHER_VOLUMES                                                                                           \
    "the process runtime mounts hostPath, emptyDir, configMap and secret volumes; the Job's spec.volumes give " \
    "shared directories"
#define MODE_WORDS "must be a number between 0 and 0777 (octal), both inclusive"

static const char *const host_types[] = {
    "", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice", NULL};
#define HOST_TYPES_LIST                                                                                         \
    "\"\", \"BlockDevice\", \"CharDevice\", \"Directory\", \"DirectoryOrCreate\", \"File\", \"FileOrCreate\", " \
    "\"Socket\""

/* validatePathNoBacksteps: no ".." element. */
static bool has_backsteps(const char *path)
{
    for (const char *p = path; (p = strstr(p, "..")) != NULL; p += 2)
        if ((p == path || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
            return true;
    return false;
}

static bool check_path(struct fields *f, json_t *obj, const char *key, const char *parent, const char *path,
                       bool absolute)
{
    char p[FIELD_PATH_MAX];
    field_path(p, parent, key);
    if (has_backsteps(path)) {
        field_invalid(f, obj, key, p, "must not contain '..'");
        return false;
    }
    if (absolute && path[0] != '/') {
        field_invalid(f, obj, key, p, "must be an absolute path: a task sees the node's file system");
        return false;
    }
    return true;
}

/* A file mode (defaultMode, items[].mode) between 0 and 0777; *mode keeps -1 when absent. */
static bool parse_mode(struct fields *f, json_t *obj, const char *key, const char *parent, int32_t *mode)
{
    int64_t v = -1;
    if (!json_object_get(obj, key))
        return true;
    if (!field_int_in(f, obj, key, parent, false, INT32_MIN, INT32_MAX, &v))
        return false;
    if (v < 0 || v > 0777) {
        char p[FIELD_PATH_MAX];
        field_path(p, parent, key);
        field_invalid(f, obj, key, p, MODE_WORDS);
        return false;
    }
    *mode = (int32_t)v;
    return true;
}

/* items[]: key (a config key), path (relative, no '..'), mode. */
static bool parse_items(struct fields *f, json_t *src, const char *path, struct pod_mount *m)
{
    static const char *const known[] = {"key", "path", "mode", NULL};
    json_t *items;
    char ip[FIELD_PATH_MAX], p[FIELD_PATH_MAX];
    if (!field_array_in(f, src, "items", path, false, &items))
        return false;
    if (!items || json_array_size(items) == 0)
        return true;
    field_path(ip, path, "items");
    m->items = calloc(json_array_size(items), sizeof *m->items);
    if (!m->items) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return false;
    }
    bool ok = true;
    size_t i;
    json_t *item;
    json_array_foreach(items, i, item)
    {
        const char *key = NULL, *target = NULL, *why;
        int32_t mode = -1;
        if (!field_each_object(f, items, i, ip, p, "must be an object") || !field_check_known(f, item, p, known) ||
            !field_string_in(f, item, "key", p, true, &key) || !field_string_in(f, item, "path", p, true, &target) ||
            !parse_mode(f, item, "mode", p, &mode)) {
            ok = false;
            continue;
        }
        char kp[FIELD_PATH_MAX];
        if (!config_key_valid(key, &why)) {
            field_path(kp, p, "key");
            field_invalid(f, item, "key", kp, why);
            ok = false;
            continue;
        }
        if (!*target || target[0] == '/' || !check_path(f, item, "path", p, target, false)) {
            if (!*target || target[0] == '/') {
                field_path(kp, p, "path");
                field_invalid(f, item, "path", kp, *target ? "must be a relative path" : "must not be empty");
            }
            ok = false;
            continue;
        }
        struct pod_volume_item *it = &m->items[m->nitems++];
        it->key = strdup(key);
        it->path = strdup(target);
        it->mode = mode;
        if (!it->key || !it->path) {
            api_fail(f->st, 500, "InternalError", "out of memory");
            return false;
        }
    }
    return ok;
}

/* A configMap (name) or secret (secretName) volume: the object, items, defaultMode, optional. */
static bool parse_config_source(struct fields *f, json_t *vol, const char *type, const char *path, struct pod_mount *m)
{
    bool secret = strcmp(type, "secret") == 0;
    static const char *const cm_known[] = {"name", "items", "defaultMode", "optional", NULL};
    static const char *const secret_known[] = {"secretName", "items", "defaultMode", "optional", NULL};
    const char *name_key = secret ? "secretName" : "name", *name = NULL;
    json_t *src;
    if (!field_object_in(f, vol, type, "", true, &src) ||
        !field_check_known(f, src, path, secret ? secret_known : cm_known) ||
        !field_string_in(f, src, name_key, path, false, &name) ||
        !field_bool_in(f, src, "optional", path, &m->optional))
        return false;
    m->default_mode = -1;
    if (!name || !*name) {
        char np[FIELD_PATH_MAX];
        field_path(np, path, name_key);
        field_error(f, src, name_key, np, "FieldValueRequired", "Required value");
        return false;
    }
    if (!parse_mode(f, src, "defaultMode", path, &m->default_mode) || !parse_items(f, src, path, m))
        return false;
    m->kind = secret ? POD_VOLUME_SECRET : POD_VOLUME_CONFIG_MAP;
    m->host_path = strdup(name); /* the object's name */
    return m->host_path != NULL;
}

/* One volume's source into m (its kind and settings); false after a cause. */
static bool parse_source(struct fields *f, json_t *vol, const char *path, struct pod_mount *m)
{
    const char *key, *type = NULL;
    json_t *v;
    int sources = 0;
    json_object_foreach(vol, key, v)
    {
        if (strcmp(key, "name") == 0)
            continue;
        if (sources++ == 0)
            type = key;
    }
    char p[FIELD_PATH_MAX];
    if (sources == 0) {
        field_error(f, vol, NULL, path, "FieldValueRequired", "Required value: must specify a volume type");
        return false;
    }
    if (sources > 1) {
        field_path(p, path, type);
        field_forbidden(f, vol, type, p, "may not specify more than 1 volume type");
        return false;
    }
    field_path(p, path, type);
    json_t *src;
    if (strcmp(type, "hostPath") == 0) {
        static const char *const known[] = {"path", "type", NULL};
        const char *hp = NULL, *ht = NULL;
        if (!field_object_in(f, vol, "hostPath", path, true, &src) || !field_check_known(f, src, p, known) ||
            !field_string_in(f, src, "path", p, true, &hp) || !field_string_in(f, src, "type", p, false, &ht) ||
            !check_path(f, src, "path", p, hp, true))
            return false;
        int t = 0;
        while (host_types[t] && strcmp(host_types[t], ht ? ht : "") != 0)
            t++;
        if (!host_types[t]) {
            char tp[FIELD_PATH_MAX];
            field_path(tp, p, "type");
            field_unsupported(f, src, "type", tp, "supported values: " HOST_TYPES_LIST);
            return false;
        }
        m->kind = POD_VOLUME_HOST_PATH;
        m->host_type = (uint8_t)t;
        m->host_path = strdup(hp);
        return true;
    }
    if (strcmp(type, "emptyDir") == 0) {
        static const char *const known[] = {"medium", "sizeLimit", NULL};
        const char *medium = NULL;
        if (!field_object_in(f, vol, "emptyDir", path, true, &src) || !field_check_known(f, src, p, known) ||
            !field_string_in(f, src, "medium", p, false, &medium))
            return false;
        if (medium && *medium && strcmp(medium, "Memory") != 0) {
            char mp[FIELD_PATH_MAX];
            field_path(mp, p, "medium");
            field_unsupported(f, src, "medium", mp, "supported values: \"\", \"Memory\"");
            return false;
        }
        json_t *limit = json_object_get(src, "sizeLimit");
        if (limit) {
            char lp[FIELD_PATH_MAX], text[64];
            field_path(lp, p, "sizeLimit");
            if (json_is_integer(limit))
                snprintf(text, sizeof text, "%lld", (long long)json_integer_value(limit));
            else
                snprintf(text, sizeof text, "%s", json_is_string(limit) ? json_string_value(limit) : "?");
            int err = quantity_parse(text, 0, &m->size_limit);
            if (err != QTY_OK || m->size_limit < 0) {
                field_invalid(f, src, "sizeLimit", lp,
                              err != QTY_OK ? quantity_strerror(err) : "must be greater than or equal to 0");
                return false;
            }
        }
        m->kind = POD_VOLUME_EMPTY_DIR;
        m->memory = medium && strcmp(medium, "Memory") == 0;
        return true;
    }
    if (strcmp(type, "configMap") == 0 || strcmp(type, "secret") == 0)
        return parse_config_source(f, vol, type, p, m);
    field_error(f, vol, type, p, "FieldValueForbidden", "Forbidden: %s volumes are not supported: " OTHER_VOLUMES,
                type);
    return false;
}

/* spec.volumes: names (DNS-1123 labels, unique) and sources into vols (as many as the array). */
static bool parse_volumes(struct fields *f, json_t *vols, const char *path, struct pod_mount *out)
{
    bool ok = true;
    size_t i;
    json_t *vol;
    json_array_foreach(vols, i, vol)
    {
        char ip[FIELD_PATH_MAX], np[FIELD_PATH_MAX];
        if (!field_each_object(f, vols, i, path, ip, "must be an object")) {
            ok = false;
            continue;
        }
        const char *name = NULL;
        if (!field_string_in(f, vol, "name", ip, true, &name)) {
            ok = false;
            continue;
        }
        field_path(np, ip, "name");
        if (!meta_check_label_name(f, vol, "name", np, name)) {
            ok = false;
            continue;
        }
        for (size_t j = 0; j < i; j++)
            if (out[j].volume && strcmp(out[j].volume, name) == 0) {
                field_error(f, vol, "name", np, "FieldValueDuplicate", "Duplicate value: \"%s\"", name);
                ok = false;
            }
        out[i].volume = strdup(name);
        ok = parse_source(f, vol, ip, &out[i]) && ok;
    }
    return ok;
}

static bool parse_mount(struct fields *f, json_t *mnt, const char *path, const struct pod_mount *vols, size_t nvols,
                        struct task_spec *ts)
{
    static const struct field_rule rules[] = {
        {"name", NULL},
        {"mountPath", NULL},
        {"readOnly", NULL},
        {"mountPropagation", NULL}, /* None only, below */
        {"subPath", "the process runtime mounts whole volumes: mount the volume's directory itself"},
        {"subPathExpr", "the process runtime mounts whole volumes: mount the volume's directory itself"},
        {"recursiveReadOnly", "readOnly mounts are read-only recursively already"},
        {NULL, NULL},
    };
    const char *name = NULL, *target = NULL, *propagation = NULL;
    bool read_only = false;
    char p[FIELD_PATH_MAX];
    if (!field_check_rules(f, mnt, path, rules) || !field_string_in(f, mnt, "name", path, true, &name) ||
        !field_string_in(f, mnt, "mountPath", path, true, &target) ||
        !field_bool_in(f, mnt, "readOnly", path, &read_only) ||
        !field_string_in(f, mnt, "mountPropagation", path, false, &propagation) ||
        !check_path(f, mnt, "mountPath", path, target, true))
        return false;
    if (propagation && strcmp(propagation, "None") != 0) {
        field_path(p, path, "mountPropagation");
        field_forbidden(f, mnt, "mountPropagation", p, "the process runtime mounts privately: only None");
        return false;
    }
    size_t v = 0;
    while (v < nvols && (!vols[v].volume || strcmp(vols[v].volume, name) != 0))
        v++;
    if (v == nvols) {
        field_path(p, path, "name");
        field_error(f, mnt, "name", p, "FieldValueNotFound", "Not found: \"%s\"", name);
        return false;
    }
    for (int m = 0; m < ts->nmounts; m++)
        if (strcmp(ts->mounts[m].mount_path, target) == 0) {
            field_path(p, path, "mountPath");
            field_invalid(f, mnt, "mountPath", p, "must be unique");
            return false;
        }
    struct pod_mount *grown = realloc(ts->mounts, (size_t)(ts->nmounts + 1) * sizeof *grown);
    if (!grown)
        return false;
    ts->mounts = grown;
    struct pod_mount *m = &ts->mounts[ts->nmounts++];
    *m = vols[v];
    m->volume = strdup(vols[v].volume);
    m->host_path = vols[v].host_path ? strdup(vols[v].host_path) : NULL;
    m->items = NULL;
    m->nitems = 0;
    if (vols[v].nitems > 0 && !(m->items = calloc((size_t)vols[v].nitems, sizeof *m->items)))
        return false;
    for (int i = 0; i < vols[v].nitems; i++, m->nitems++) {
        m->items[i] = vols[v].items[i];
        m->items[i].key = strdup(vols[v].items[i].key);
        m->items[i].path = strdup(vols[v].items[i].path);
    }
    m->mount_path = strdup(target);
    m->read_only = read_only;
    return true;
}

bool pod_volumes_parse(struct fields *f, json_t *spec, const char *spec_path, json_t *container,
                       const char *container_path, struct task_spec *ts)
{
    json_t *vols, *mounts;
    char vp[FIELD_PATH_MAX], mp[FIELD_PATH_MAX];
    bool ok = field_array_in(f, spec, "volumes", spec_path, false, &vols);
    ok = field_array_in(f, container, "volumeMounts", container_path, false, &mounts) && ok;
    if (!ok)
        return false;
    size_t nvols = vols ? json_array_size(vols) : 0;
    struct pod_mount *parsed = calloc(nvols ? nvols : 1, sizeof *parsed);
    if (!parsed) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return false;
    }
    field_path(vp, spec_path, "volumes");
    field_path(mp, container_path, "volumeMounts");
    bool vols_ok = !vols || parse_volumes(f, vols, vp, parsed);
    ok = vols_ok;
    size_t i;
    json_t *mnt;
    json_array_foreach(mounts, i, mnt)
    {
        char ip[FIELD_PATH_MAX];
        if (!field_each_object(f, mounts, i, mp, ip, "must be an object"))
            ok = false;
        else if (vols_ok) /* a mount of a wrong volume says nothing more */
            ok = parse_mount(f, mnt, ip, parsed, nvols, ts) && ok;
    }
    for (size_t v = 0; v < nvols; v++) {
        free(parsed[v].volume), free(parsed[v].host_path);
        pod_volume_items_free(parsed[v].items, parsed[v].nitems);
    }
    free(parsed);
    return ok;
}

bool pod_volumes_host_path(const struct task_spec *ts)
{
    for (int m = 0; m < ts->nmounts; m++)
        if (ts->mounts[m].kind == POD_VOLUME_HOST_PATH)
            return true;
    return false;
}
