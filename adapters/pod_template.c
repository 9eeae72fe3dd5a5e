/* A PodTemplateSpec read into one task's runtime fields. The process runtime runs one container
 * per pod, so a second container or an init container is refused rather than silently dropped. */
#include "adapters/pod_template.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/constraints.h"
#include "common/strv.h"

#define DEFAULT_GRACE_SECONDS 30
#define DEFAULT_RESTART_POLICY "Never"
#define ID_MAX 2147483646 /* uid/gid: -1 is "unset" to the kernel */

/* securityContext.runAsUser / runAsGroup of one holder (pod or container); an absent field keeps the value. */
static bool parse_run_as(struct fields *f, json_t *holder, const char *path, int32_t *uid, int32_t *gid)
{
    json_t *sc;
    char p[FIELD_PATH_MAX], q[FIELD_PATH_MAX];
    field_path(p, path, "securityContext");
    if (!field_object(f, holder, "securityContext", p, false, &sc) || !sc)
        return sc == NULL;
    int64_t user = -1, group = -1;
    field_path(q, p, "runAsUser");
    bool ok = field_int(f, sc, "runAsUser", q, false, 0, ID_MAX, &user);
    field_path(q, p, "runAsGroup");
    ok = field_int(f, sc, "runAsGroup", q, false, 0, ID_MAX, &group) && ok;
    if (user >= 0)
        *uid = (int32_t)user;
    if (group >= 0)
        *gid = (int32_t)group;
    return ok;
}

/* The pod's securityContext, then the container's, which wins where both set a field. */
static bool parse_security_context(struct fields *f, json_t *spec, const char *spec_path, json_t *container,
                                   const char *container_path, struct task_spec *ts)
{
    ts->run_as_uid = ts->run_as_gid = -1;
    bool ok = parse_run_as(f, spec, spec_path, &ts->run_as_uid, &ts->run_as_gid);
    return parse_run_as(f, container, container_path, &ts->run_as_uid, &ts->run_as_gid) && ok;
}

static bool parse_quantity(struct fields *f, json_t *map, const char *name, const char *path, int index, int64_t *out)
{
    json_t *v = json_object_get(map, name);
    char text[128];
    if (!intake_scalar_text(v, text, sizeof text)) {
        field_error(f, map, name, path, "FieldValueInvalid", "invalid quantity: must be a string or a number");
        return false;
    }
    const char *why = NULL;
    if (resource_parse(index, text, out, &why) != 0) {
        field_error(f, map, name, path, "FieldValueInvalid", "invalid quantity \"%s\": %s", text, why);
        return false;
    }
    return true;
}

bool resource_map_parse(struct fields *f, json_t *parent, const char *key, const char *path, bool allow_pods,
                        struct resvec *out)
{
    json_t *map;
    memset(out, 0, sizeof *out);
    if (!field_object(f, parent, key, path, false, &map))
        return false;
    if (!map)
        return true;
    bool ok = true;
    const char *name;
    json_t *v;
    json_object_foreach(map, name, v) {
        (void)v;
        char sub[FIELD_PATH_MAX];
        field_path(sub, path, name);
        int index = resource_index(name);
        if (index < 0 || (index == RES_PODS && !allow_pods)) {
            char known[256] = "";
            for (int i = 0; i < resource_count(); i++)
                if (i != RES_PODS)
                    snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", *known ? ", " : "",
                             resource_name(i));
            field_error(f, map, name, sub, "FieldValueNotSupported",
                        "Unsupported value: \"%s\": no node offers this resource (nodes offer %s)", name, known);
            ok = false;
            continue;
        }
        if (!parse_quantity(f, map, name, sub, index, &out->v[index]))
            ok = false;
    }
    return ok;
}

/* Requests default to limits, as Kubernetes defaults them; a request above its limit is invalid. */
static bool parse_resources(struct fields *f, json_t *container, const char *path, struct task_spec *ts)
{
    json_t *res;
    char sub[FIELD_PATH_MAX], req_path[FIELD_PATH_MAX], lim_path[FIELD_PATH_MAX];
    field_path(sub, path, "resources");
    if (!field_object(f, container, "resources", sub, false, &res))
        return false;
    memset(&ts->request, 0, sizeof ts->request);
    memset(&ts->limit, 0, sizeof ts->limit);
    if (res) {
        field_path(req_path, sub, "requests");
        field_path(lim_path, sub, "limits");
        bool ok = resource_map_parse(f, res, "requests", req_path, false, &ts->request);
        ok = resource_map_parse(f, res, "limits", lim_path, false, &ts->limit) && ok;
        if (!ok)
            return false;
        json_t *requests = json_object_get(res, "requests");
        for (int i = 0; i < RES_MAX; i++) {
            if (ts->limit.v[i] == 0)
                continue;
            if (!requests || !json_object_get(requests, resource_name(i)))
                ts->request.v[i] = ts->limit.v[i];
            else if (ts->request.v[i] > ts->limit.v[i]) {
                char p[FIELD_PATH_MAX], detail[128];
                field_path(p, req_path, resource_name(i));
                snprintf(detail, sizeof detail, "must be less than or equal to %s limit", resource_name(i));
                field_invalid(f, requests, resource_name(i), p, detail);
                ok = false;
            }
        }
        if (!ok)
            return false;
    }
    ts->request.v[RES_PODS] = 1;
    return true;
}

static bool parse_env(struct fields *f, json_t *container, const char *path, struct task_spec *ts)
{
    json_t *env;
    char sub[FIELD_PATH_MAX];
    field_path(sub, path, "env");
    if (!field_array(f, container, "env", sub, false, &env))
        return false;
    if (!env)
        return true;
    bool ok = true;
    size_t i;
    json_t *item;
    json_array_foreach(env, i, item) {
        char p[FIELD_PATH_MAX], np[FIELD_PATH_MAX], vp[FIELD_PATH_MAX];
        field_path_index(p, sub, i);
        if (!json_is_object(item)) {
            field_error_at_index(f, env, i, p, "FieldValueInvalid", "Invalid value: must be an object with name and value");
            ok = false;
            continue;
        }
        const char *name = NULL, *value = NULL;
        field_path(np, p, "name");
        field_path(vp, p, "value");
        if (!field_string(f, item, "name", np, true, &name) || !field_string(f, item, "value", vp, false, &value)) {
            ok = false;
            continue;
        }
        if (!*name || strchr(name, '=')) {
            field_invalid(f, item, "name", np, "must be a non-empty name without '='");
            ok = false;
            continue;
        }
        if (json_object_get(item, "valueFrom")) {
            char fp[FIELD_PATH_MAX];
            field_path(fp, p, "valueFrom");
            field_unsupported(f, item, "valueFrom", fp, "the process runtime takes literal values only");
            ok = false;
            continue;
        }
        if (strv_pushf(&ts->env, "%s=%s", name, value ? value : "") != 0) {
            api_fail(f->st, 500, "InternalError", "out of memory");
            return false;
        }
    }
    return ok;
}

static bool parse_container(struct fields *f, json_t *container, const char *path, struct task_spec *ts)
{
    const char *name = NULL, *image = NULL, *workdir = NULL;
    char p[FIELD_PATH_MAX];
    bool ok = true;
    field_path(p, path, "name");
    ok = field_string(f, container, "name", p, false, &name) && ok;
    field_path(p, path, "image");
    ok = field_string(f, container, "image", p, false, &image) && ok;
    field_path(p, path, "workingDir");
    ok = field_string(f, container, "workingDir", p, false, &workdir) && ok;
    if (workdir && workdir[0] != '/') {
        field_invalid(f, container, "workingDir", p, "must be an absolute path");
        ok = false;
    }
    char **command = NULL, **args = NULL;
    field_path(p, path, "command");
    ok = field_string_list(f, container, "command", p, &command) && ok;
    field_path(p, path, "args");
    ok = field_string_list(f, container, "args", p, &args) && ok;
    /* argv = command ++ args; with no command, args alone (there is no image entrypoint to prepend). */
    if (command || args) {
        char **argv = strv_dup(command ? command : args);
        for (size_t i = 0; command && args && args[i] && argv; i++)
            if (strv_push(&argv, args[i]) != 0) {
                strv_free(argv);
                argv = NULL;
            }
        if (argv && !argv[0]) { /* both empty lists: no command at all */
            strv_free(argv);
            argv = NULL;
        }
        ts->argv = argv;
    }
    strv_free(command);
    strv_free(args);
    ok = parse_env(f, container, path, ts) && ok;
    ok = parse_resources(f, container, path, ts) && ok;
    ts->container_name = strdup(name ? name : "main");
    ts->image = image ? strdup(image) : NULL;
    ts->working_dir = workdir ? strdup(workdir) : NULL;
    return ok;
}

bool pod_template_parse(struct fields *f, json_t *template, const char *path, struct task_spec *ts)
{
    json_t *spec, *containers, *init;
    char p[FIELD_PATH_MAX];
    bool ok = true;
    field_path(p, path, "spec");
    if (!field_object(f, template, "spec", p, true, &spec))
        return false;
    char spec_path[FIELD_PATH_MAX];
    snprintf(spec_path, sizeof spec_path, "%s", p);
    field_path(p, spec_path, "containers");
    if (!field_array(f, spec, "containers", p, true, &containers))
        return false;
    if (json_array_size(containers) == 0) {
        field_required(f, spec, "containers", p);
        return false;
    }
    if (json_array_size(containers) > 1) {
        char cp[FIELD_PATH_MAX];
        field_path_index(cp, p, 1);
        field_error_at_index(f, containers, 1, cp, "FieldValueNotSupported",
                             "Unsupported value: a second container: the process runtime runs one container per pod");
        ok = false;
    }
    char ip[FIELD_PATH_MAX];
    field_path(ip, spec_path, "initContainers");
    if (!field_array(f, spec, "initContainers", ip, false, &init))
        ok = false;
    else if (init && json_array_size(init) > 0) {
        field_unsupported(f, spec, "initContainers", ip, "the process runtime runs one container per pod");
        ok = false;
    }
    json_t *c0 = json_array_get(containers, 0);
    char cp[FIELD_PATH_MAX];
    field_path_index(cp, p, 0);
    if (!json_is_object(c0)) {
        field_error_at_index(f, containers, 0, cp, "FieldValueInvalid", "Invalid value: must be an object");
        return false;
    }
    ok = parse_container(f, c0, cp, ts) && ok;

    const char *restart = NULL;
    field_path(p, spec_path, "restartPolicy");
    if (field_string(f, spec, "restartPolicy", p, false, &restart) && restart && strcmp(restart, "Always") != 0 &&
        strcmp(restart, "OnFailure") != 0 && strcmp(restart, "Never") != 0) {
        field_error(f, spec, "restartPolicy", p, "FieldValueNotSupported",
                    "Unsupported value: \"%s\": supported values: \"Always\", \"OnFailure\", \"Never\"", restart);
        ok = false;
    }
    /* Kubernetes defaults to Always, which for a batch task means a container restarted forever
     * after it succeeds; a job server's task runs once unless asked. The default is written back so
     * the pods and the manifest say what happens. */
    if (!restart) {
        restart = DEFAULT_RESTART_POLICY;
        json_object_set_new(spec, "restartPolicy", json_string(restart));
    }
    ts->restart_policy = strdup(restart);
    ts->restart = strcmp(restart, "Always") == 0      ? RESTART_ALWAYS
                  : strcmp(restart, "OnFailure") == 0 ? RESTART_ON_FAILURE
                                                      : RESTART_NEVER;
    ok = parse_security_context(f, spec, spec_path, c0, cp, ts) && ok;
    int64_t grace = DEFAULT_GRACE_SECONDS;
    field_path(p, spec_path, "terminationGracePeriodSeconds");
    ok = field_int(f, spec, "terminationGracePeriodSeconds", p, false, 0, 86400 * 7, &grace) && ok;
    ts->grace_seconds = (int32_t)grace;
    ok = constraints_parse(f, spec, spec_path, &ts->constraints) && ok;
    return ok;
}
