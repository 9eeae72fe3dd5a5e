/* A Volcano Job's spec.volumes: {mountPath, volumeClaimName | volumeClaim}, validated as Volcano's
 * webhook and the API server would, and handed to every task as the directories the runtime makes. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/volumes.h"
#include "adapters/intake/fields.h"

#define ENV_PREFIX "CALDERA_VOLUME_"

static const char *const volume_fields[] = {"mountPath", "volumeClaimName", "volumeClaim", NULL};

/* PersistentVolumeClaimSpec. A claim here is a directory of the node's: accessModes (checked) and
 * storageClassName (recorded) are accepted, volumeMode only Filesystem, resources.requests.storage
 * is read as a quantity and shown, not enforced (a plain directory has no quota). What would bind
 * or fill a real volume is refused. */
static const struct field_rule claim_rules[] = {
    {"accessModes", NULL},
    {"resources", NULL},
    {"storageClassName", NULL},
    {"volumeMode", NULL},
    {"selector", "the process runtime has no PersistentVolumes to select: a claim is a directory of the node's"},
    {"volumeName", "the process runtime has no PersistentVolumes to bind: a claim is a directory of the node's"},
    {"dataSource", "the process runtime cannot fill a new claim from a snapshot or another claim"},
    {"dataSourceRef", "the process runtime cannot fill a new claim from a snapshot or another claim"},
    {"volumeAttributesClassName", "the process runtime has no volume attribute classes"},
    {NULL, NULL},
};
static const char *const claim_resources_fields[] = {"requests", "limits", NULL};
static const char *const storage_only[] = {"storage", NULL};
static const char *const access_modes[] = {"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod", NULL};

static bool one_of(const char *v, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(v, *list) == 0)
            return true;
    return false;
}

/* The storage quantity of requests or limits (the only resource a claim has). */
static bool parse_storage(struct fields *f, json_t *res, const char *key, const char *res_path, bool required,
                          int64_t *bytes)
{
    json_t *map;
    char p[FIELD_PATH_MAX], q[FIELD_PATH_MAX], text[64];
    field_path(p, res_path, key);
    if (!field_object(f, res, key, p, required, &map) || !map)
        return !required && map == NULL;
    bool ok = field_check_known(f, map, p, storage_only);
    json_t *v = json_object_get(map, "storage");
    snprintf(q, sizeof q, "%s[storage]", p);
    const char *why = NULL;
    if (!v) {
        if (required)
            field_required(f, map, "storage", q);
        return !required && ok;
    }
    if (!intake_scalar_text(v, text, sizeof text) || resource_parse(RES_MEMORY, text, bytes, &why) != 0) {
        field_invalid(f, map, "storage", q, why ? why : "must be a quantity such as 10Gi");
        return false;
    }
    return ok;
}

static bool parse_claim(struct fields *f, json_t *claim, const char *path, struct task_volume *out)
{
    char p[FIELD_PATH_MAX];
    bool ok = field_check_rules(f, claim, path, claim_rules);
    json_t *modes, *res;
    field_path(p, path, "accessModes");
    if (field_array(f, claim, "accessModes", p, false, &modes) && modes) {
        size_t i;
        json_t *m;
        json_array_foreach(modes, i, m)
        {
            char mp[FIELD_PATH_MAX];
            field_path_index(mp, p, i);
            if (!json_is_string(m) || !one_of(json_string_value(m), access_modes)) {
                field_error_at_index(
                    f, modes, i, mp, "FieldValueNotSupported",
                    "Unsupported value: \"%s\": supported values: \"ReadWriteOnce\", \"ReadOnlyMany\", "
                    "\"ReadWriteMany\", \"ReadWriteOncePod\"",
                    json_is_string(m) ? json_string_value(m) : "?");
                ok = false;
            }
        }
    }
    const char *mode = NULL, *sc = NULL;
    field_path(p, path, "storageClassName");
    ok = field_string(f, claim, "storageClassName", p, false, &sc) && ok;
    field_path(p, path, "volumeMode");
    if (field_string(f, claim, "volumeMode", p, false, &mode) && mode && strcmp(mode, "Filesystem") != 0) {
        if (strcmp(mode, "Block") == 0)
            field_forbidden(f, claim, "volumeMode", p, "the process runtime provides directories, not block devices");
        else
            field_error(f, claim, "volumeMode", p, "FieldValueNotSupported",
                        "Unsupported value: \"%s\": supported values: \"Block\", \"Filesystem\"", mode);
        ok = false;
    }
    field_path(p, path, "resources");
    if (!field_object(f, claim, "resources", p, true, &res) || !res)
        return false;
    ok = field_check_known(f, res, p, claim_resources_fields) && ok;
    int64_t limit = 0;
    ok = parse_storage(f, res, "requests", p, true, &out->storage) && ok;
    ok = parse_storage(f, res, "limits", p, false, &limit) && ok;
    return ok;
}

/* Kubernetes' mountPath rules plus ours: absolute, no ':', no "..", not "/" itself. */
static const char *mount_path_problem(const char *mp)
{
    if (!*mp)
        return NULL; /* Required, said by the caller */
    if (mp[0] != '/')
        return "must be an absolute path";
    if (strchr(mp, ':'))
        return "must not contain ':'";
    for (const char *s = mp; (s = strstr(s, "..")) != NULL; s += 2)
        if ((s == mp || s[-1] == '/') && (s[2] == '\0' || s[2] == '/'))
            return "must not contain '..'";
    if (strspn(mp, "/") == strlen(mp))
        return "must not be the root directory";
    return NULL;
}

char *volcano_volume_env_name(const char *mount_path)
{
    size_t n = strlen(mount_path);
    char *out = malloc(sizeof ENV_PREFIX + n);
    if (!out)
        return NULL;
    char *o = stpcpy(out, ENV_PREFIX);
    const char *s = mount_path + strspn(mount_path, "/");
    bool sep = false;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (isalnum(c)) {
            if (sep && o[-1] != '_')
                *o++ = '_';
            sep = false;
            *o++ = (char)toupper(c);
        } else {
            sep = true; /* runs of '/', '-', '.' ... become one '_'; trailing ones none */
        }
    }
    *o = '\0';
    return out;
}

/* One entry; *out gets its fields (NULL mount_path when it was refused). */
static bool parse_volume(struct fields *f, json_t *vols, size_t i, struct task_volume *out)
{
    char path[FIELD_PATH_MAX], p[FIELD_PATH_MAX];
    json_t *vol = field_each_object(f, vols, i, "spec.volumes", path, "a volume must be an object");
    if (!vol)
        return false;
    bool ok = field_check_known(f, vol, path, volume_fields);
    const char *mp = NULL, *claim_name = NULL;
    json_t *claim;
    field_path(p, path, "mountPath");
    ok = field_string(f, vol, "mountPath", p, true, &mp) && ok;
    const char *problem = mp ? mount_path_problem(mp) : NULL;
    if (mp && !*mp) {
        field_required(f, vol, "mountPath", p);
        ok = false;
    } else if (problem) {
        field_invalid(f, vol, "mountPath", p, problem);
        ok = false;
    }
    field_path(p, path, "volumeClaimName");
    if (field_string(f, vol, "volumeClaimName", p, false, &claim_name) && claim_name && *claim_name &&
        !dns1123_subdomain(claim_name)) {
        field_invalid(f, vol, "volumeClaimName", p,
                      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                      "and must start and end with an alphanumeric character");
        ok = false;
    }
    field_path(p, path, "volumeClaim");
    ok = field_object(f, vol, "volumeClaim", p, false, &claim) && ok;
    bool has_name = claim_name && *claim_name;
    if (has_name && claim) {
        field_path(p, path, "volumeClaimName");
        field_forbidden(f, vol, "volumeClaimName", p,
                        "conflict: to use an existing claim give volumeClaimName alone, to make a new one give "
                        "volumeClaim alone");
        ok = false;
    } else if (!has_name && !claim) {
        field_error(f, vol, NULL, path, "FieldValueRequired",
                    "Required value: either volumeClaim or volumeClaimName must be specified");
        ok = false;
    } else if (claim) {
        ok = parse_claim(f, claim, p, out) && ok;
    }
    if (!ok)
        return false;
    out->mount_path = strdup(mp);
    out->claim_name = has_name ? strdup(claim_name) : NULL;
    out->env_name = volcano_volume_env_name(mp);
    return true;
}

/* Two mount paths naming one directory ("/data" and "/data/") or one variable ("/a-b", "/a_b"). */
static bool check_duplicates(struct fields *f, json_t *vols, const struct task_volume *v, size_t n)
{
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++) {
            if (!v[i].env_name || !v[j].env_name || strcmp(v[i].env_name, v[j].env_name) != 0)
                continue;
            char path[FIELD_PATH_MAX], p[FIELD_PATH_MAX];
            field_path_index(path, "spec.volumes", i);
            field_path(p, path, "mountPath");
            json_t *vol = json_array_get(vols, i);
            if (strcmp(v[i].mount_path, v[j].mount_path) == 0)
                field_error(f, vol, "mountPath", p, "FieldValueDuplicate", "Duplicate value: \"%s\"", v[i].mount_path);
            else
                field_error(f, vol, "mountPath", p, "FieldValueInvalid",
                            "Invalid value: \"%s\": its variable %s is also that of spec.volumes[%zu] (\"%s\")",
                            v[i].mount_path, v[i].env_name, j, v[j].mount_path);
            ok = false;
            break;
        }
    }
    return ok;
}

static void free_volumes(struct task_volume *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].mount_path);
        free(v[i].claim_name);
        free(v[i].env_name);
        free(v[i].dir);
    }
    free(v);
}

/* Every task gets its own copy, as every pod of the job mounts every volume. */
static bool hand_to_tasks(struct fields *f, struct job *job, const struct task_volume *v, size_t n)
{
    for (int t = 0; t < job->ntasks; t++) {
        struct task_spec *ts = &job->tasks[t];
        ts->volumes = calloc(n, sizeof *ts->volumes);
        if (!ts->volumes) {
            api_fail(f->st, 500, "InternalError", "out of memory");
            return false;
        }
        ts->nvolumes = (int)n;
        for (size_t i = 0; i < n; i++) {
            ts->volumes[i].mount_path = strdup(v[i].mount_path);
            ts->volumes[i].claim_name = v[i].claim_name ? strdup(v[i].claim_name) : NULL;
            ts->volumes[i].env_name = strdup(v[i].env_name);
            ts->volumes[i].storage = v[i].storage;
        }
    }
    return true;
}

bool volcano_job_volumes_parse(struct fields *f, json_t *spec, struct job *job)
{
    json_t *vols;
    if (!field_array(f, spec, "volumes", "spec.volumes", false, &vols) || !vols)
        return vols == NULL;
    size_t n = json_array_size(vols);
    if (n == 0)
        return true;
    if (n > TASK_VOLUMES_MAX) {
        field_error(f, spec, "volumes", "spec.volumes", "FieldValueTooMany",
                    "Too many: %zu: must have at most %d items", n, TASK_VOLUMES_MAX);
        return false;
    }
    struct task_volume *v = calloc(n, sizeof *v);
    if (!v) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < n; i++)
        ok = parse_volume(f, vols, i, &v[i]) && ok;
    ok = check_duplicates(f, vols, v, n) && ok; /* among those that parsed */
    ok = ok && hand_to_tasks(f, job, v, n);
    free_volumes(v, n);
    return ok;
}
