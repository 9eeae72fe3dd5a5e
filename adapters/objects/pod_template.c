/* A PodTemplateSpec read into one task's runtime fields, every field of Kubernetes' PodSpec and
 * Container either honoured, accepted as truthful on a process runtime, or refused with its reason. */
#include "adapters/objects/pod_template.h"
#include "adapters/objects/pod_scheduling.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/constraints.h"
#include "adapters/objects/env_source.h"
#include "adapters/objects/images.h"
#include "adapters/objects/pod_volumes.h"
#include "adapters/objects/runtime_class.h"
#include "adapters/intake/meta_limits.h"
#include "common/strv.h"

#define DEFAULT_GRACE_SECONDS 30
#define DEFAULT_RESTART_POLICY "Never"
#define ID_MAX 2147483646                 /* uid/gid: -1 is "unset" to the kernel */
#define DEADLINE_MAX_SECONDS 4294967295LL /* Kubernetes: math.MaxUint32 */

static const struct field_rule template_rules[] = {{"metadata", NULL}, {"spec", NULL}, {NULL, NULL}};

/* PodSpec. Honoured: containers (one), restartPolicy, terminationGracePeriodSeconds,
 * activeDeadlineSeconds, securityContext (runAsUser, runAsGroup, runAsNonRoot), nodeSelector,
 * affinity (node and pod affinity), tolerations, topologySpreadConstraints, priorityClassName (the task's priority within its job),
 * volumes (hostPath and emptyDir, mounted by volumeMounts: pod_volumes.c). Accepted because they are true of a process runtime or
 * ask nothing of it: hostNetwork, hostPID, hostIPC (a task always shares the host's network, PIDs
 * and IPC), dnsPolicy (it uses the host's resolver), shareProcessNamespace (one container),
 * imagePullSecrets (nothing is pulled), serviceAccountName/serviceAccount (recorded; no token is
 * given), enableServiceLinks (there are no Services to link), schedulerName (checked against the
 * Job's by the Job's reader), os (linux only), hostUsers (true only). Refused: the rest, each with
 * its reason. */
static const struct field_rule pod_spec_rules[] = {
    {"containers", NULL},
    {"initContainers", NULL}, /* refused below when not empty, with the reason */
    {"restartPolicy", NULL},
    {"terminationGracePeriodSeconds", NULL},
    {"activeDeadlineSeconds", NULL},
    {"securityContext", NULL},
    {"nodeSelector", NULL},
    {"affinity", NULL},
    {"tolerations", NULL},
    {"hostNetwork", NULL},
    {"hostPID", NULL},
    {"hostIPC", NULL},
    {"dnsPolicy", NULL},
    {"shareProcessNamespace", NULL},
    {"imagePullSecrets", NULL},
    {"serviceAccountName", NULL},
    {"serviceAccount", NULL},
    {"enableServiceLinks", NULL},
    {"schedulerName", NULL},
    {"os", NULL},
    {"hostUsers", NULL},
    {"volumes", NULL},                      /* hostPath and emptyDir (pod_volumes.c), the rest refused */
    {"automountServiceAccountToken", NULL}, /* refused below when true */
    {"ephemeralContainers",
     "ephemeral containers are added to running pods by kubectl debug, which Caldera does not offer"},
    {"nodeName", "placement is the scheduler's; ask for a node with nodeSelector kubernetes.io/hostname"},
    {"hostname", "the job's svc plugin names each pod's host <job>-<task>-<index>"},
    {"subdomain", "the job's svc plugin sets the subdomain to the job's name"},
    {"hostAliases", "the job's hosts file is the svc plugin's; Caldera adds no host aliases"},
    {"dnsConfig", "tasks use the node's resolver; Caldera cannot give one task its own DNS settings"},
    {"priorityClassName", NULL}, /* the task's priority within its job, checked at admission */
    {"priority", "the priority comes from the PriorityClass: set priorityClassName"},
    {"preemptionPolicy", "the Job's PriorityClass decides preemption"},
    {"readinessGates", "the process runtime runs no readiness checks"},
    {"runtimeClassName", NULL}, /* "oci" where podman is (runtime_class.c); others refused */
    {"overhead", "the process runtime adds no pod overhead"},
    {"topologySpreadConstraints", NULL}, /* read with the constraints (pod_affinity.c) */
    {"setHostnameAsFQDN", "tasks run with the node's own host name"},
    {"schedulingGates", "Caldera's scheduler has no scheduling gates"},
    {"resourceClaims", "Caldera has no dynamic resource allocation: request resources in the container's resources"},
    {"resources", "pod-level resources are not supported: set them on the container"},
    {NULL, NULL},
};

/* Container. Honoured: name, image (recorded and shown: the task runs its command on the node),
 * command, args, workingDir, env (valueFrom too), envFrom, resources,
 * volumeMounts, securityContext (runAsUser, runAsGroup, runAsNonRoot).
 * Accepted: imagePullPolicy (nothing is pulled), ports (declarations only, as in Kubernetes: the
 * task listens on the node's network), resizePolicy (nothing is resized in place),
 * terminationMessagePath/Policy at their defaults. Refused: the rest. */
static const struct field_rule container_rules[] = {
    {"name", NULL},
    {"image", NULL},
    {"command", NULL},
    {"args", NULL},
    {"workingDir", NULL},
    {"env", NULL},
    {"resources", NULL},
    {"securityContext", NULL},
    {"imagePullPolicy", NULL},
    {"ports", NULL},
    {"resizePolicy", NULL},
    {"terminationMessagePath", NULL},
    {"terminationMessagePolicy", NULL},
    {"stdin", NULL}, /* refused below when true, like tty and stdinOnce */
    {"stdinOnce", NULL},
    {"tty", NULL},
    {"envFrom", NULL},      /* configMapRef and secretRef: env_source.c */
    {"volumeMounts", NULL}, /* hostPath and emptyDir volumes: pod_volumes.c */
    {"volumeDevices", "the process runtime attaches no block devices"},
    {"livenessProbe", "the process runtime runs no probes"},
    {"readinessProbe", "the process runtime runs no probes"},
    {"startupProbe", "the process runtime runs no probes"},
    {"lifecycle", "the process runtime runs no postStart or preStop hooks"},
    {"restartPolicy", "may not be set for non-init containers"},
    {NULL, NULL},
};

/* PodSecurityContext and SecurityContext: the ids are honoured, the rest is refused, because the
 * task's process gets no capabilities, SELinux, AppArmor or seccomp settings of its own. */
#define NO_CONFINEMENT "the process runtime does not confine tasks with it"
static const struct field_rule security_rules[] = {
    {"runAsUser", NULL},
    {"runAsGroup", NULL},
    {"runAsNonRoot", NULL},
    {"fsGroup", "the process runtime does not change the ownership of volumes"},
    {"fsGroupChangePolicy", "the process runtime does not change the ownership of volumes"},
    {"supplementalGroups", "a task runs with its runAsGroup alone"},
    {"supplementalGroupsPolicy", "a task runs with its runAsGroup alone"},
    {"sysctls", "the process runtime does not set sysctls per task"},
    {"seLinuxOptions", NO_CONFINEMENT},
    {"seLinuxChangePolicy", NO_CONFINEMENT},
    {"seccompProfile", NO_CONFINEMENT},
    {"appArmorProfile", NO_CONFINEMENT},
    {"windowsOptions", "tasks run on Linux"},
    {"capabilities", NO_CONFINEMENT},
    {"privileged", NO_CONFINEMENT},
    {"allowPrivilegeEscalation", NO_CONFINEMENT},
    {"readOnlyRootFilesystem", NO_CONFINEMENT},
    {"procMount", NO_CONFINEMENT},
    {NULL, NULL},
};

/* securityContext.runAsUser / runAsGroup / runAsNonRoot of one holder (pod or container); an absent
 * field keeps the value. *sc_out is the securityContext read (NULL when none). */
static bool parse_run_as(struct fields *f, json_t *holder, const char *path, int32_t *uid, int32_t *gid, int *non_root,
                         json_t **sc_out)
{
    json_t *sc;
    char p[FIELD_PATH_MAX];
    *sc_out = NULL;
    if (!field_object_in(f, holder, "securityContext", path, false, &sc) || !sc)
        return sc == NULL;
    *sc_out = sc;
    field_path(p, path, "securityContext");
    bool ok = field_check_rules(f, sc, p, security_rules);
    int64_t user = -1, group = -1;
    ok = field_int_in(f, sc, "runAsUser", p, false, 0, ID_MAX, &user) && ok;
    ok = field_int_in(f, sc, "runAsGroup", p, false, 0, ID_MAX, &group) && ok;
    bool nr = false;
    if (field_bool_in(f, sc, "runAsNonRoot", p, &nr) && json_is_boolean(json_object_get(sc, "runAsNonRoot")))
        *non_root = nr;
    if (user >= 0)
        *uid = (int32_t)user;
    if (group >= 0)
        *gid = (int32_t)group;
    return ok;
}

/* The pod's securityContext, then the container's, which wins where both set a field. runAsNonRoot
 * is checked here, where kubelet checks it at the container's start: with no image to say which user
 * it runs as, the task runs as the server's user unless runAsUser says otherwise. */
static bool parse_security_context(struct fields *f, json_t *spec, const char *spec_path, json_t *container,
                                   const char *container_path, struct task_spec *ts)
{
    ts->run_as_uid = ts->run_as_gid = -1;
    int non_root = -1;
    json_t *pod_sc, *c_sc;
    bool ok = parse_run_as(f, spec, spec_path, &ts->run_as_uid, &ts->run_as_gid, &non_root, &pod_sc);
    int pod_non_root = non_root;
    ok = parse_run_as(f, container, container_path, &ts->run_as_uid, &ts->run_as_gid, &non_root, &c_sc) && ok;
    if (ok && non_root == 1 && ts->run_as_uid <= 0) {
        bool from_container = non_root != pod_non_root || json_object_get(c_sc, "runAsNonRoot");
        char p[FIELD_PATH_MAX], q[FIELD_PATH_MAX];
        field_path(p, from_container ? container_path : spec_path, "securityContext");
        field_path(q, p, "runAsNonRoot");
        field_invalid(f, from_container ? c_sc : pod_sc, "runAsNonRoot", q,
                      ts->run_as_uid == 0 ? "the container would run as root (runAsUser 0)"
                                          : "needs a runAsUser other than 0: without an image, the task runs as "
                                            "the job server's user");
        ok = false;
    }
    return ok;
}

/* map[name] (v) as resource index; parent is the map's path. */
static bool parse_quantity(struct fields *f, json_t *map, const char *name, const json_t *v, const char *parent,
                           int index, int64_t *out)
{
    char text[128], path[FIELD_PATH_MAX];
    if (!intake_scalar_text(v, text, sizeof text)) {
        field_path(path, parent, name);
        field_error(f, map, name, path, "FieldValueInvalid", "invalid quantity: must be a string or a number");
        return false;
    }
    const char *why = NULL;
    if (resource_parse(index, text, out, &why) != 0) {
        field_path(path, parent, name);
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
    json_object_foreach(map, name, v)
    {
        int index = resource_index(name);
        if (strncmp(name, "volcano.sh/gpu-", 15) == 0) { /* Volcano's GPU sharing (gpu-memory, gpu-number) */
            char sub[FIELD_PATH_MAX];
            field_path(sub, path, name);
            field_error(f, map, name, sub, "FieldValueNotSupported",
                        "Unsupported value: \"%s\": GPU sharing is not supported: a task is given whole GPU devices "
                        "for itself (ask for nvidia.com/gpu), since a process runtime cannot hold a task to a share "
                        "of a device's memory",
                        name);
            ok = false;
            continue;
        }
        if (index < 0 || (index == RES_PODS && !allow_pods)) {
            char known[256] = "", sub[FIELD_PATH_MAX];
            field_path(sub, path, name);
            for (int i = 0; i < resource_count(); i++)
                if (i != RES_PODS)
                    snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", *known ? ", " : "",
                             resource_name(i));
            field_error(f, map, name, sub, "FieldValueNotSupported",
                        "Unsupported value: \"%s\": no node offers this resource (nodes offer %s)", name, known);
            ok = false;
            continue;
        }
        if (!parse_quantity(f, map, name, v, path, index, &out->v[index]))
            ok = false;
    }
    return ok;
}

/* Requests default to limits, as Kubernetes defaults them; a request above its limit is invalid. */
static bool parse_resources(struct fields *f, json_t *container, const char *path, struct task_spec *ts)
{
    json_t *res;
    char sub[FIELD_PATH_MAX], req_path[FIELD_PATH_MAX], lim_path[FIELD_PATH_MAX];
    if (!field_object_in(f, container, "resources", path, false, &res))
        return false;
    memset(&ts->request, 0, sizeof ts->request);
    memset(&ts->limit, 0, sizeof ts->limit);
    if (res) {
        field_path(sub, path, "resources");
        static const struct field_rule resources_rules[] = {
            {"requests", NULL},
            {"limits", NULL},
            {"claims", "Caldera has no dynamic resource allocation: request resources in requests and limits"},
            {NULL, NULL},
        };
        if (!field_check_rules(f, res, sub, resources_rules))
            return false;
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

/* env: literal values in order; valueFrom (fieldRef, resourceFieldRef) resolved when the pod starts. */
static bool parse_env(struct fields *f, json_t *container, const char *path, const char *container_name,
                      struct task_spec *ts)
{
    json_t *env;
    char sub[FIELD_PATH_MAX];
    if (!field_array_in(f, container, "env", path, false, &env))
        return false;
    if (!env)
        return true;
    field_path(sub, path, "env");
    bool ok = true;
    size_t i;
    json_t *item;
    json_array_foreach(env, i, item)
    {
        char p[FIELD_PATH_MAX];
        if (!field_each_object(f, env, i, sub, p, "must be an object with name and value")) {
            ok = false;
            continue;
        }
        static const char *const env_fields[] = {"name", "value", "valueFrom", NULL};
        if (!field_check_known(f, item, p, env_fields))
            ok = false;
        const char *name = NULL, *value = NULL;
        if (!field_string_in(f, item, "name", p, true, &name) || !field_string_in(f, item, "value", p, false, &value)) {
            ok = false;
            continue;
        }
        if (!*name || strchr(name, '=')) {
            char np[FIELD_PATH_MAX];
            field_path(np, p, "name");
            field_invalid(f, item, "name", np, "must be a non-empty name without '='");
            ok = false;
            continue;
        }
        if (json_object_get(item, "valueFrom")) {
            ok = env_source_parse(f, item, p, name, container_name, ts) && ok;
            continue;
        }
        if (strv_pushf(&ts->env, "%s=%s", name, value ? value : "") != 0) {
            api_fail(f->st, 500, "InternalError", "out of memory");
            return false;
        }
    }
    return ok;
}

/* A value that must be one of a list, when present; parent is obj's path. */
static bool check_enum(struct fields *f, json_t *obj, const char *key, const char *parent, const char *const *allowed)
{
    const char *v = NULL;
    if (!field_string_in(f, obj, key, parent, false, &v))
        return false;
    if (!v)
        return true;
    char list[160] = "", path[FIELD_PATH_MAX];
    for (const char *const *a = allowed; *a; a++) {
        if (strcmp(v, *a) == 0)
            return true;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", a == allowed ? "" : ", ", *a);
    }
    field_path(path, parent, key);
    field_error(f, obj, key, path, "FieldValueNotSupported", "Unsupported value: \"%s\": supported values: %s", v,
                list);
    return false;
}

/* A boolean the process runtime can only honour as false (stdin, tty: a task's stdin is /dev/null). */
static bool refuse_true(struct fields *f, json_t *obj, const char *key, const char *parent, const char *why)
{
    char p[FIELD_PATH_MAX];
    bool v = false;
    if (!field_bool_in(f, obj, key, parent, &v))
        return false;
    if (v) {
        field_path(p, parent, key);
        field_forbidden(f, obj, key, p, why);
        return false;
    }
    return true;
}

/* Declarations, as in Kubernetes; only their shape is checked. */
static bool check_ports(struct fields *f, json_t *container, const char *path)
{
    static const char *const port_fields[] = {"name", "containerPort", "hostPort", "hostIP", "protocol", NULL};
    static const char *const protocols[] = {"TCP", "UDP", "SCTP", NULL};
    json_t *ports;
    char p[FIELD_PATH_MAX];
    if (!field_array_in(f, container, "ports", path, false, &ports) || !ports)
        return ports == NULL;
    field_path(p, path, "ports");
    bool ok = true;
    size_t i;
    json_t *port;
    json_array_foreach(ports, i, port)
    {
        char ip[FIELD_PATH_MAX];
        if (!field_each_object(f, ports, i, p, ip, "must be an object")) {
            ok = false;
            continue;
        }
        int64_t n = 0;
        ok = field_check_known(f, port, ip, port_fields) && ok;
        ok = field_int_in(f, port, "containerPort", ip, true, 1, 65535, &n) && ok;
        ok = field_int_in(f, port, "hostPort", ip, false, 0, 65535, &n) && ok;
        ok = check_enum(f, port, "protocol", ip, protocols) && ok;
    }
    return ok;
}

/* Kubernetes' defaults are what the runtime does (the message is its own); anything else is not. */
static bool check_termination_message(struct fields *f, json_t *container, const char *path)
{
    static const char *const paths[] = {"/dev/termination-log", NULL};
    static const char *const policies[] = {"File", NULL};
    bool ok = check_enum(f, container, "terminationMessagePath", path, paths);
    return check_enum(f, container, "terminationMessagePolicy", path, policies) && ok;
}

static bool check_accepted_container_fields(struct fields *f, json_t *container, const char *path)
{
    static const char *const pull[] = {"Always", "IfNotPresent", "Never", NULL};
    bool ok = field_check_rules(f, container, path, container_rules);
    ok = check_enum(f, container, "imagePullPolicy", path, pull) && ok;
    ok = check_ports(f, container, path) && ok;
    ok = check_termination_message(f, container, path) && ok;
    const char *no_stdin = "a task's stdin is /dev/null: the process runtime attaches no terminal or input";
    ok = refuse_true(f, container, "stdin", path, no_stdin) && ok;
    ok = refuse_true(f, container, "stdinOnce", path, no_stdin) && ok;
    return refuse_true(f, container, "tty", path, no_stdin) && ok;
}

static bool parse_container(struct fields *f, json_t *container, const char *path, struct task_spec *ts)
{
    const char *name = NULL, *image = NULL, *workdir = NULL;
    bool ok = check_accepted_container_fields(f, container, path);
    /* Kubernetes requires a container's name, a DNS-1123 label; one admitted before may lack it. */
    if (field_string_in(f, container, "name", path, !f->admitted, &name) && name && !f->admitted &&
        !dns1123_label(name)) {
        char p[FIELD_PATH_MAX];
        field_path(p, path, "name");
        field_invalid(f, container, "name", p,
                      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
                      "must start and end with an alphanumeric character");
        ok = false;
    } else if (!f->admitted && !name) {
        ok = false;
    }
    ok = field_string_in(f, container, "image", path, false, &image) && ok;
    if (!ts->runtime_class) /* a container runs the image itself: no software environment to find */
        ok = images_check_container(f, container, path, image) && ok;
    ok = field_string_in(f, container, "workingDir", path, false, &workdir) && ok;
    if (workdir && workdir[0] != '/') {
        char p[FIELD_PATH_MAX];
        field_path(p, path, "workingDir");
        field_invalid(f, container, "workingDir", p, "must be an absolute path");
        ok = false;
    }
    char **command = NULL, **args = NULL;
    ok = field_string_list_in(f, container, "command", path, &command) && ok;
    ok = field_string_list_in(f, container, "args", path, &args) && ok;
    /* argv = command ++ args; with no command, args alone (there is no image entrypoint to prepend). */
    char **argv = command ? command : args;
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
    if (command)
        strv_free(args);
    ok = parse_env(f, container, path, name ? name : "main", ts) && ok;
    ok = env_from_parse(f, container, path, ts) && ok;
    ok = parse_resources(f, container, path, ts) && ok;
    ts->container_name = strdup(name ? name : "main");
    ts->image = image ? strdup(image) : NULL;
    ts->working_dir = workdir ? strdup(workdir) : NULL;
    return ok;
}

/* The PodSpec fields accepted with conditions: automountServiceAccountToken only false (no token
 * is given), hostUsers only true (no user namespaces), os only linux, dnsPolicy one of Kubernetes'. */
static bool check_accepted_pod_fields(struct fields *f, json_t *spec, const char *spec_path)
{
    static const char *const dns_policies[] = {"ClusterFirst", "ClusterFirstWithHostNet", "Default", "None", NULL};
    static const char *const os_fields[] = {"name", NULL};
    static const char *const os_names[] = {"linux", NULL};
    char p[FIELD_PATH_MAX];
    bool ok = refuse_true(f, spec, "automountServiceAccountToken", spec_path,
                          "the process runtime gives tasks no service account token");
    bool host_users = true;
    if (field_bool_in(f, spec, "hostUsers", spec_path, &host_users) && !host_users) {
        field_path(p, spec_path, "hostUsers");
        field_forbidden(f, spec, "hostUsers", p, "the process runtime runs tasks in the node's user namespace");
        ok = false;
    }
    ok = check_enum(f, spec, "dnsPolicy", spec_path, dns_policies) && ok;
    json_t *os;
    if (field_object_in(f, spec, "os", spec_path, false, &os) && os) {
        field_path(p, spec_path, "os");
        ok = field_check_known(f, os, p, os_fields) && ok;
        ok = check_enum(f, os, "name", p, os_names) && ok;
    }
    return ok;
}

/* metadata.annotations["caldera.io/pids-max"]: a lower pids.max for the pod's processes and threads
 * than the server's --task-pids-max (a higher one is capped to it when the pod starts). */
#define PIDS_MAX_ANNOTATION "caldera.io/pids-max"
#define PIDS_MAX_LIMIT 4194304 /* the kernel's PID_MAX_LIMIT */

static bool parse_pids_max(struct fields *f, json_t *annotations, const char *path, struct task_spec *ts)
{
    const char *text = json_string_value(json_object_get(annotations, PIDS_MAX_ANNOTATION));
    if (!text)
        return true;
    long long n = 0;
    const char *c = text;
    for (; *c >= '0' && *c <= '9' && n <= PIDS_MAX_LIMIT; c++)
        n = n * 10 + (*c - '0');
    if (*c || c == text || n < 1 || n > PIDS_MAX_LIMIT) {
        char p[FIELD_PATH_MAX];
        snprintf(p, sizeof p, "%s[" PIDS_MAX_ANNOTATION "]", path);
        field_error(f, annotations, PIDS_MAX_ANNOTATION, p, "FieldValueInvalid",
                    "Invalid value: \"%.32s\": must be a whole number of processes from 1 to %d", text, PIDS_MAX_LIMIT);
        return false;
    }
    ts->pids_max = n;
    return true;
}

bool pod_template_parse(struct fields *f, json_t *template, const char *path, struct task_spec *ts)
{
    json_t *spec, *containers, *init, *meta;
    char p[FIELD_PATH_MAX];
    bool ok = field_check_rules(f, template, path, template_rules);
    if (field_object_in(f, template, "metadata", path, false, &meta) && meta) {
        json_t *labels = NULL, *annotations = NULL;
        char q[FIELD_PATH_MAX];
        field_path(p, path, "metadata");
        ok = field_check_rules(f, meta, p, kube_object_meta_rules) && ok;
        field_path(q, p, "labels");
        ok = meta_labels(f, meta, q, &labels) && ok;
        field_path(q, p, "annotations");
        ok = meta_annotations(f, meta, q, &annotations) && ok;
        ok = (!annotations || parse_pids_max(f, annotations, q, ts)) && ok;
        ok = (!annotations || pod_scheduling_annotations(f, annotations, q, ts)) && ok;
    }
    field_path(p, path, "spec");
    if (!field_object(f, template, "spec", p, true, &spec))
        return false;
    char spec_path[FIELD_PATH_MAX];
    memcpy(spec_path, p, strlen(p) + 1);
    ok = field_check_rules(f, spec, spec_path, pod_spec_rules) && ok;
    ok = check_accepted_pod_fields(f, spec, spec_path) && ok;
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
    if (!field_array_in(f, spec, "initContainers", spec_path, false, &init))
        ok = false;
    else if (init && json_array_size(init) > 0) {
        char ip[FIELD_PATH_MAX];
        field_path(ip, spec_path, "initContainers");
        field_unsupported(f, spec, "initContainers", ip, "the process runtime runs one container per pod");
        ok = false;
    }
    char cp[FIELD_PATH_MAX];
    json_t *c0 = field_each_object(f, containers, 0, p, cp, "must be an object");
    if (!c0)
        return false;
    ok = runtime_class_parse(f, spec, spec_path, &ts->runtime_class) && ok; /* before: it decides the image's use */
    ok = parse_container(f, c0, cp, ts) && ok;
    ok = pod_volumes_parse(f, spec, spec_path, c0, cp, ts) && ok;

    const char *restart = NULL;
    if (field_string_in(f, spec, "restartPolicy", spec_path, false, &restart) && restart &&
        strcmp(restart, "Always") != 0 && strcmp(restart, "OnFailure") != 0 && strcmp(restart, "Never") != 0) {
        field_path(p, spec_path, "restartPolicy");
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
    ok = field_int_in(f, spec, "terminationGracePeriodSeconds", spec_path, false, 0, 86400 * 7, &grace) && ok;
    ts->grace_seconds = (int32_t)grace;
    int64_t deadline = 0;
    ok = field_int_in(f, spec, "activeDeadlineSeconds", spec_path, false, 1, DEADLINE_MAX_SECONDS, &deadline) && ok;
    ts->active_deadline_seconds = deadline;
    const char *pclass = NULL;
    if (field_string_in(f, spec, "priorityClassName", spec_path, false, &pclass) && pclass && *pclass) {
        field_path(p, spec_path, "priorityClassName");
        ok = meta_check_subdomain_name(f, spec, "priorityClassName", p, pclass) && ok;
        ts->priority_class = strdup(pclass);
    }
    ok = constraints_parse(f, spec, spec_path, &ts->constraints) && ok;
    if (ts->runtime_class && (!ts->image || !ts->image[0]) && !f->admitted) { /* a container runs an image */
        char ip[FIELD_PATH_MAX];
        field_path(ip, cp, "image");
        field_error(f, c0, "image", ip, "FieldValueRequired",
                    "Required value: runtimeClassName \"%s\" runs the container's image", ts->runtime_class);
        ok = false;
    }
    return ok;
}
