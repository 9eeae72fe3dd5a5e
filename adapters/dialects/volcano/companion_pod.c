/* One companion's core/v1 Pod for a real cluster (companion_manifest.h): on the node of the task's pod
 * it serves (required podAffinity), with that pod's volumes, mounts and user, its type's program in
 * its type's image, the token from a Secret, ready when its readiness path answers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/companion_manifest.h"
#include "common/sbuf.h"
#include "common/strv.h"

#define TOKEN_VOLUME "caldera-companion-token"
#define LOOPBACK "127.0.0.1"
#define ANY_ADDRESS "0.0.0.0"

/* obj[key] = value (taken) unless value is an empty array or object; NULL obj or value: nothing. */
static void set_unless_empty(json_t *obj, const char *key, json_t *value)
{
    bool empty = !value || (json_is_array(value) ? json_array_size(value) == 0 : json_object_size(value) == 0);
    if (obj && !empty)
        json_object_set_new(obj, key, value);
    else
        json_decref(value);
}

/* The task's template; companion_manifest_pod has had the job's manifest parsed (job_manifest). */
static json_t *template_spec(const struct task_spec *ts) { return json_object_get(ts->template_tree, "spec"); }

static json_t *first_container(const struct task_spec *ts)
{
    return json_array_get(json_object_get(template_spec(ts), "containers"), 0);
}

static bool uses(const struct companion_type *t, const char *placeholder)
{
    for (size_t i = 0; t->argv && t->argv[i]; i++)
        if (strstr(t->argv[i], placeholder))
            return true;
    for (size_t i = 0; t->env && t->env[i]; i++)
        if (strstr(t->env[i], placeholder))
            return true;
    return false;
}

/* The pod volume of the Job's spec.volumes[i]. */
static void job_volume_name(int i, char *out, size_t len) { snprintf(out, len, "caldera-volume-%d", i); }

/* Mounts: the first container's, then the Job's spec.volumes that name a claim (Volcano adds those to
 * every container after its own; a claim Volcano creates has a name only the cluster knows), then the
 * token's. */
static json_t *volume_mounts(const struct task_spec *ts, bool token_file)
{
    json_t *mounts = json_deep_copy(json_object_get(first_container(ts), "volumeMounts"));
    if (!mounts)
        mounts = json_array();
    for (int i = 0; mounts && i < ts->nvolumes; i++) {
        char name[32];
        job_volume_name(i, name, sizeof name);
        if (ts->volumes[i].claim_name)
            json_array_append_new(mounts,
                                  json_pack("{s:s, s:s}", "name", name, "mountPath", ts->volumes[i].mount_path));
    }
    if (mounts && token_file)
        json_array_append_new(mounts, json_pack("{s:s, s:s, s:b}", "name", TOKEN_VOLUME, "mountPath",
                                                COMPANION_MANIFEST_TOKEN_DIR, "readOnly", 1));
    return mounts;
}

static json_t *volumes(const struct task_spec *ts, const char *companion, bool token_file)
{
    json_t *vols = json_deep_copy(json_object_get(template_spec(ts), "volumes"));
    if (!vols)
        vols = json_array();
    for (int i = 0; vols && i < ts->nvolumes; i++) {
        char name[32];
        job_volume_name(i, name, sizeof name);
        if (ts->volumes[i].claim_name)
            json_array_append_new(vols, json_pack("{s:s, s:{s:s}}", "name", name, "persistentVolumeClaim", "claimName",
                                                  ts->volumes[i].claim_name));
    }
    if (vols && token_file) {
        char secret[COMPANION_MANIFEST_NAME_MAX + 8];
        snprintf(secret, sizeof secret, "%s-token", companion);
        json_array_append_new(vols, json_pack("{s:s, s:{s:s}}", "name", TOKEN_VOLUME, "secret", "secretName", secret));
    }
    return vols;
}

/* The task pod's securityContext with the user and group the job's task runs as (container over pod). */
static json_t *security_context(const struct task_spec *ts)
{
    json_t *sc = json_deep_copy(json_object_get(template_spec(ts), "securityContext"));
    if (!sc)
        sc = json_object();
    if (sc && ts->run_as_uid >= 0)
        json_object_set_new(sc, "runAsUser", json_integer(ts->run_as_uid));
    if (sc && ts->run_as_gid >= 0)
        json_object_set_new(sc, "runAsGroup", json_integer(ts->run_as_gid));
    return sc;
}

/* On the node of the task's pods (the replica it serves, when the task has several). */
static json_t *affinity(const struct job *job, const struct companion_manifest_item *item)
{
    const struct task_spec *ts = &job->tasks[item->task];
    json_t *match = json_pack("{s:s, s:s}", "volcano.sh/job-name", job->name, "volcano.sh/task-spec",
                              ts->name ? ts->name : "");
    if (match && ts->replicas > 1) {
        char index[16];
        snprintf(index, sizeof index, "%d", item->index);
        json_object_set_new(match, "volcano.sh/task-index", json_string(index));
    }
    return json_pack("{s:{s:[{s:{s:o}, s:s}]}}", "podAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                     "labelSelector", "matchLabels", match, "topologyKey", "kubernetes.io/hostname");
}

/* s with every loopback address made the any-address; a new string or NULL. */
static char *unloop(const char *s)
{
    struct sbuf b = {0};
    for (const char *hit; (hit = strstr(s, LOOPBACK)); s = hit + strlen(LOOPBACK)) {
        sbuf_append(&b, s, (size_t)(hit - s));
        sbuf_puts(&b, ANY_ADDRESS);
    }
    sbuf_puts(&b, s);
    return b.failed ? (sbuf_free(&b), NULL) : sbuf_take(&b);
}

static json_t *string_array(char **v, bool unloop_each)
{
    json_t *a = json_array();
    for (size_t i = 0; a && v && v[i]; i++) {
        char *s = unloop_each ? unloop(v[i]) : NULL;
        if ((unloop_each && !s) || json_array_append_new(a, json_string(s ? s : v[i])) != 0) {
            free(s);
            json_decref(a);
            return NULL;
        }
        free(s);
    }
    return a;
}

/* The token's variable first (the others may refer to it as $(CALDERA_COMPANION_TOKEN)), then the
 * type's, in its order. */
static json_t *environment(const struct companion_manifest_item *item, char **env, bool token)
{
    json_t *out = json_array();
    if (out && token) {
        char secret[COMPANION_MANIFEST_NAME_MAX + 8];
        snprintf(secret, sizeof secret, "%s-token", item->name);
        json_array_append_new(out, json_pack("{s:s, s:{s:{s:s, s:s}}}", "name", COMPANION_MANIFEST_TOKEN_ENV,
                                             "valueFrom", "secretKeyRef", "name", secret, "key", "token"));
    }
    for (size_t i = 0; out && env && env[i]; i++) {
        const char *eq = strchr(env[i], '=');
        if (!eq)
            continue;
        json_t *name = json_stringn(env[i], (size_t)(eq - env[i]));
        json_array_append_new(out, json_pack("{s:o, s:s}", "name", name, "value", eq + 1));
    }
    return out;
}

/* An HTTP GET of the readiness path, unless the type's probes send the token (a probe's headers would
 * put it in the manifest): then a TCP connection to the port. */
static json_t *readiness_probe(const struct companion_type *t, const struct companion_values *v)
{
    bool needs_token = false;
    for (size_t i = 0; t->headers && t->headers[i]; i++)
        needs_token |= strstr(t->headers[i], "{token}") != NULL;
    char *path = NULL, why[256];
    if (needs_token || !t->readiness_path || companion_expand(t->readiness_path, v, &path, why, sizeof why) != 0)
        return json_pack("{s:{s:s}, s:i}", "tcpSocket", "port", "http", "periodSeconds", 5);
    json_t *probe = json_pack("{s:{s:s, s:s}, s:i}", "httpGet", "path", path, "port", "http", "periodSeconds", 5);
    free(path);
    return probe;
}

/* {workdir} and {logdir}: the first mount, else the container's workingDir, else "." (the image's). */
static const char *work_dir(const struct task_spec *ts, const json_t *mounts)
{
    const char *mount = json_string_value(json_object_get(json_array_get(mounts, 0), "mountPath"));
    if (mount && strcmp(mount, COMPANION_MANIFEST_TOKEN_DIR) != 0)
        return mount;
    return ts->working_dir ? ts->working_dir : NULL;
}

static json_t *container(const struct job *job, const struct companion_manifest_item *item, json_t *mounts)
{
    const struct task_spec *ts = &job->tasks[item->task];
    const struct companion_type *t = item->type;
    bool token = uses(t, "{token}");
    char base_url[COMPANION_MANIFEST_NAME_MAX + 300], why[256];
    snprintf(base_url, sizeof base_url, "/proxy/%s/%s/", job->ns, item->name);
    const char *dir = work_dir(ts, mounts);
    struct companion_values v = {.port = companion_manifest_port(t),
                                 .base_url = base_url,
                                 .token = "$(" COMPANION_MANIFEST_TOKEN_ENV ")",
                                 .token_file = COMPANION_MANIFEST_TOKEN_DIR "/token",
                                 .workdir = dir ? dir : ".",
                                 .logdir = dir ? dir : ".",
                                 .job = job->name,
                                 .ns = job->ns,
                                 .companion = item->name};
    char **argv = NULL, **env = NULL;
    if (companion_command(t, &v, &argv, &env, why, sizeof why) != 0) {
        json_decref(mounts);
        return NULL;
    }
    const char *image = t->image ? t->image : ts->image ? ts->image : "";
    json_t *c = json_pack("{s:s, s:s, s:o, s:[{s:s, s:i, s:s}], s:o}", "name", t->name, "image", image, "command",
                          string_array(argv, true), "ports", "name", "http", "containerPort", v.port, "protocol", "TCP",
                          "readinessProbe", readiness_probe(t, &v));
    set_unless_empty(c, "env", environment(item, env, token));
    set_unless_empty(c, "volumeMounts", mounts);
    strv_free(argv);
    strv_free(env);
    if (c && dir)
        json_object_set_new(c, "workingDir", json_string(dir));
    return c;
}

json_t *companion_manifest_pod(const struct job *job, const struct companion_manifest_item *item, const char *owner_uid)
{
    if (item->task < 0 || item->task >= job->ntasks || !job_task_template(job, item->task))
        return NULL; /* job_task_template parses a manifest kept as text, the templates the helpers read */
    const struct task_spec *ts = &job->tasks[item->task];
    bool token_file = uses(item->type, "{token_file}");
    json_t *c = container(job, item, volume_mounts(ts, token_file));
    json_t *spec = json_pack("{s:o, s:[o], s:s}", "affinity", affinity(job, item), "containers", c, "restartPolicy",
                             "Never");
    set_unless_empty(spec, "securityContext", security_context(ts));
    set_unless_empty(spec, "volumes", volumes(ts, item->name, token_file));
    json_t *tolerations = json_object_get(template_spec(ts), "tolerations");
    if (spec && tolerations) /* the task's node may be tainted (GPUs): the companion goes there too */
        json_object_set_new(spec, "tolerations", json_deep_copy(tolerations));
    json_t *meta = json_pack("{s:s, s:s, s:o, s:o}", "name", item->name, "namespace", job->ns, "labels",
                             companion_manifest_labels(job, item), "ownerReferences",
                             companion_manifest_owner(job, owner_uid));
    return json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "v1", "kind", "Pod", "metadata", meta, "spec", spec);
}
