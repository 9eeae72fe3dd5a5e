/* Each replica rendered as the Pod Volcano would have created. Labels carry the job, task, index
 * and queue (seed 000 wanted the queue on every pod); containerStatuses tell the last attempt. */
#include "adapters/objects/pod.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/images.h"
#include "adapters/objects/pod_conditions.h"
#include "adapters/objects/podgroup.h"
#include "adapters/objects/render.h"
#include "common/clock.h"

static void set_str(json_t *obj, const char *key, const char *value)
{
    json_object_set_new(obj, key, json_string(value));
}

static json_t *pod_labels(const struct job *job, int task, int index)
{
    const json_t *tmeta = json_object_get(job_task_template(job, task), "metadata");
    json_t *labels = json_deep_copy(json_object_get(tmeta, "labels"));
    if (!json_is_object(labels)) {
        json_decref(labels);
        labels = json_object();
    }
    char idx[16];
    snprintf(idx, sizeof idx, "%d", index);
    set_str(labels, "volcano.sh/job-name", job->name);
    set_str(labels, "volcano.sh/job-namespace", job->ns);
    set_str(labels, "volcano.sh/task-spec", job->tasks[task].name);
    set_str(labels, "volcano.sh/task-index", idx);
    set_str(labels, "volcano.sh/queue-name", job->queue);
    return labels;
}

/* Where the process runtime put each of the Job's volumes: caldera.io/volumes, compact JSON
 * [{"mountPath", "directory", "env", "claimName"?}], once the directories are known (the job's first
 * start). The task reads the directory from env; it is also bound at mountPath when that exists on
 * the node and the server may bind (root). */
static json_t *volumes_annotation(const struct task_spec *ts)
{
    json_t *list = json_array();
    for (int i = 0; i < ts->nvolumes; i++) {
        const struct task_volume *v = &ts->volumes[i];
        if (!v->dir)
            continue;
        json_t *o = json_pack("{s:s, s:s, s:s}", "mountPath", v->mount_path, "directory", v->dir, "env", v->env_name);
        if (v->claim_name)
            set_str(o, "claimName", v->claim_name);
        json_array_append_new(list, o);
    }
    if (json_array_size(list) == 0) {
        json_decref(list);
        return NULL;
    }
    char *text = json_dumps(list, JSON_COMPACT);
    json_decref(list);
    json_t *out = text ? json_string(text) : NULL;
    free(text);
    return out;
}

/* As Volcano's controller adds them: a pod volume per Job volume (a claim) and a mount of each in
 * the container, after the template's own. The template stays as accepted: containers are copied
 * before they change. */
static void add_volumes(json_t *spec, const struct job *job, const struct task_spec *ts)
{
    if (ts->nvolumes == 0)
        return;
    json_t *vols = json_deep_copy(json_object_get(spec, "volumes"));
    json_t *containers = json_deep_copy(json_object_get(spec, "containers"));
    json_t *c0 = json_array_get(containers, 0);
    json_t *mounts = json_deep_copy(json_object_get(c0, "volumeMounts"));
    if (!json_is_array(vols)) {
        json_decref(vols);
        vols = json_array();
    }
    if (!json_is_array(mounts)) {
        json_decref(mounts);
        mounts = json_array();
    }
    for (int i = 0; i < ts->nvolumes; i++) {
        const struct task_volume *v = &ts->volumes[i];
        char name[320];
        if (v->claim_name)
            snprintf(name, sizeof name, "%s", v->claim_name);
        else
            snprintf(name, sizeof name, "%s-volume-%d", job->name, i);
        json_array_append_new(vols,
                              json_pack("{s:s, s:{s:s}}", "name", name, "persistentVolumeClaim", "claimName", name));
        json_array_append_new(mounts, json_pack("{s:s, s:s}", "name", name, "mountPath", v->mount_path));
    }
    json_object_set_new(spec, "volumes", vols);
    if (json_is_object(c0))
        json_object_set(c0, "volumeMounts", mounts);
    json_decref(mounts);
    if (containers)
        json_object_set_new(spec, "containers", containers);
}

static json_t *pod_annotations(const struct job *job, int task, const struct replica *r, const struct node *node)
{
    const json_t *tmeta = json_object_get(job_task_template(job, task), "metadata");
    json_t *ann = json_deep_copy(json_object_get(tmeta, "annotations"));
    if (!json_is_object(ann)) {
        json_decref(ann);
        ann = json_object();
    }
    char num[16];
    set_str(ann, "volcano.sh/job-name", job->name);
    set_str(ann, "volcano.sh/task-spec", job->tasks[task].name);
    set_str(ann, "volcano.sh/queue-name", job->queue);
    char group[PODGROUP_NAME_MAX];
    set_str(ann, "scheduling.k8s.io/group-name", podgroup_name(job->name, job->uid, group));
    snprintf(num, sizeof num, "%d", job->status.version);
    set_str(ann, "volcano.sh/job-version", num);
    snprintf(num, sizeof num, "%d", job->status.retry_count);
    set_str(ann, "volcano.sh/job-retry-count", num);
    if (images_active() && !job->tasks[task].runtime_class) /* with --images: the software environment its image
                                                                 names (a container runs the image itself) */
        set_str(ann, "caldera.io/environment", images_environment_name(images_active(), job->tasks[task].image));
    json_t *vols = volumes_annotation(&job->tasks[task]);
    if (vols)
        json_object_set_new(ann, "caldera.io/volumes", vols);
    if (node && r->gpus) {
        char gpus[GPU_DEVICES_MAX * 12];
        gpu_format(&node->gpus, r->gpus, false, gpus, sizeof gpus);
        set_str(ann, "caldera.io/gpu-devices", gpus);
    }
    if (job->tasks[task].topology_policy != TOPO_NONE) /* as Volcano's job controller puts it on the pod */
        set_str(ann, "volcano.sh/numa-topology-policy",
                topology_policy_name((enum topology_policy)job->tasks[task].topology_policy));
    if (node && r->cpus && node->numa) { /* its exclusive CPUs and the NUMA nodes they sit on */
        char list[CPU_LIST_MAX];
        set_str(ann, "caldera.io/cpuset", cpu_bits_format(r->cpus, list, sizeof list));
        set_str(ann, "caldera.io/cpuset-mems", numa_mems_of(node->numa, r->cpus, list, sizeof list));
    }
    return ann;
}

void pod_uid(const struct job *job, int flat, char out[UUID_STR_LEN])
{
    snprintf(out, UUID_STR_LEN, "%.24s%04x%08x", job->uid, job->replicas[flat].born & 0xffffu, (unsigned)flat);
}

int pod_label_matches(const struct job *job, int task, int index, const char *key, const char *value)
{
    json_t *labels = pod_labels(job, task, index);
    const char *have = json_string_value(json_object_get(labels, key));
    int match = have && strcmp(have, value) == 0;
    json_decref(labels);
    return match;
}

static json_t *container_state(const struct replica *r)
{
    char started[RFC3339_LEN], finished[RFC3339_LEN];
    if (r->phase == POD_RUNNING)
        return json_pack("{s:{s:s}}", "running", "startedAt", rfc3339(r->start_ms, started));
    if (r->phase == POD_SUCCEEDED || r->phase == POD_FAILED) {
        json_t *t = json_pack("{s:i, s:s}", "exitCode", r->exit_code, "reason", term_reason_name(r->reason));
        if (r->start_ms)
            set_str(t, "startedAt", rfc3339(r->start_ms, started));
        if (r->end_ms)
            set_str(t, "finishedAt", rfc3339(r->end_ms, finished));
        if (r->message)
            set_str(t, "message", r->message);
        return json_pack("{s:o}", "terminated", t);
    }
    return json_pack("{s:{s:s}}", "waiting", "reason", r->node >= 0 ? "ContainerCreating" : "PodScheduling");
}

/* kubelet's imageID: the image the container ran. The process runtime pulls none: with --images,
 * the software environment the image stands for; else the image's name as given. */
static const char *image_id(const struct task_spec *ts, char *buf, size_t len)
{
    const char *image = ts->image ? ts->image : "";
    if (images_active())
        snprintf(buf, len, "caldera-environment://%s", images_environment_name(images_active(), ts->image));
    else
        snprintf(buf, len, "%s", image);
    return buf;
}

static json_t *pod_status(const struct job *job, int task, const struct replica *r)
{
    const struct task_spec *ts = &job->tasks[task];
    bool ready = r->phase == POD_RUNNING && !r->backoff && !r->starting;
    struct pod_condition_facts facts = {.phase = (enum pod_phase)r->phase,
                                        .bound = r->node >= 0,
                                        .container_ready = ready,
                                        .container = ts->container_name,
                                        .unschedulable = job->pg.unschedulable,
                                        .created_ms = job->created_ms,
                                        .unschedulable_ms = job->pg.unschedulable_ms,
                                        .started_ms = r->start_ms,
                                        .ended_ms = r->end_ms};
    json_t *status = json_pack("{s:s, s:o}", "phase", pod_phase_name(r->phase), "conditions",
                               pod_conditions_render(&facts));
    if (r->node < 0)
        return status;
    set_str(status, "hostIP", "127.0.0.1");
    set_str(status, "podIP", "127.0.0.1");
    json_object_set_new(status, "hostIPs", json_pack("[{s:s}]", "ip", "127.0.0.1"));
    json_object_set_new(status, "podIPs", json_pack("[{s:s}]", "ip", "127.0.0.1"));
    json_object_set_new(status, "startTime", render_time(r->start_ms ? r->start_ms : job->created_ms));
    char id[300];
    json_t *cs = json_pack("{s:s, s:s, s:s, s:b, s:b, s:i, s:o}", "name", ts->container_name, "image",
                           ts->image ? ts->image : "", "imageID", image_id(ts, id, sizeof id), "ready", ready,
                           "started", r->phase == POD_RUNNING && !r->starting, "restartCount", (int)r->restarts,
                           "state", container_state(r));
    if (r->attempts > 0) {
        char pod_uid_text[UUID_STR_LEN], container_id[UUID_STR_LEN + 48];
        pod_uid(job, (int)(r - job->replicas), pod_uid_text);
        snprintf(container_id, sizeof container_id, "caldera-process://%s-%u", pod_uid_text, r->attempts);
        set_str(cs, "containerID", container_id);
    }
    json_object_set_new(status, "containerStatuses", json_pack("[o]", cs));
    if (r->phase == POD_FAILED &&
        (r->reason == TERM_DEADLINE || r->reason == TERM_DISK_FULL)) { /* as kubelet words it */
        set_str(status, "reason", term_reason_name(r->reason));
        if (r->message)
            set_str(status, "message", r->message);
    }
    return status;
}

json_t *pod_render_metadata(const struct job *job, int task, int index, const struct node *node)
{
    const struct replica *r = &job->replicas[job->task_first[task] + index];
    char name[320], uid[UUID_STR_LEN];
    job_pod_name(job, task, index, name, sizeof name);
    pod_uid(job, job->task_first[task] + index, uid);
    json_t *owner = json_pack("{s:s, s:s, s:s, s:s, s:b, s:b}", "apiVersion", "batch.volcano.sh/v1alpha1", "kind",
                              "Job", "name", job->name, "uid", job->uid, "controller", 1, "blockOwnerDeletion", 1);
    char rv[24]; /* a pod changes with its job: the job's is the last change that could have touched it */
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)job->resource_version);
    return json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:[o]}", "name", name, "namespace", job->ns, "uid", uid,
                     "resourceVersion", rv, "creationTimestamp", render_time(job->created_ms), "labels",
                     pod_labels(job, task, index), "annotations", pod_annotations(job, task, r, node),
                     "ownerReferences", owner);
}

json_t *pod_render(const struct job *job, int task, int index, const struct node *node)
{
    const struct replica *r = &job->replicas[job->task_first[task] + index];
    char name[320];
    job_pod_name(job, task, index, name, sizeof name);
    json_t *meta = pod_render_metadata(job, task, index, node);
    json_t *spec = json_copy(json_object_get(job_task_template(job, task), "spec"));
    if (!json_is_object(spec)) {
        json_decref(spec);
        spec = json_object();
    }
    add_volumes(spec, job, &job->tasks[task]);
    set_str(spec, "schedulerName", job->scheduler_name);
    set_str(spec, "hostname", name);
    set_str(spec, "subdomain", job->name);
    if (node)
        set_str(spec, "nodeName", node->name);
    return json_pack("{s:s, s:s, s:o, s:o, s:o}", "apiVersion", "v1", "kind", "Pod", "metadata", meta, "spec", spec,
                     "status", pod_status(job, task, r));
}
