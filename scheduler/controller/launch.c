/* Replicas starting: bound to their node (replicas.c), an attempt built (command, environment
 * with the job plugins' variables, cgroup limits, user, bound files, paths) and handed to the
 * runtime. An attempt that cannot start fails its pod with StartError, as a container that cannot
 * be created does; one whose ConfigMap, Secret or key is missing with CreateContainerConfigError. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/env_source.h"
#include "adapters/objects/images.h"
#include "adapters/objects/pod.h"
#include "common/fs.h"
#include "common/log.h"
#include "common/strv.h"
#include "scheduler/controller/config_refs.h"
#include "scheduler/controller/internal.h"
#include "scheduler/controller/job_plugins/job_plugins.h"
#include "runtime/spare_files.h"
#include "runtime/task_setup.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* The software environment the image names (adapters/objects/images.h): the venv's or conda's bin/,
 * then its PATH prefix, before the default PATH; VIRTUAL_ENV or CONDA_PREFIX; its variables. */
static int image_env(const struct image_env *ie, char ***env)
{
    char path[16384];
    size_t at = 0;
    const char *prefix = ie->venv ? ie->venv : ie->conda;
    if (prefix)
        at += (size_t)snprintf(path + at, sizeof path - at, "%s/bin:", strcmp(prefix, "/") == 0 ? "" : prefix);
    for (size_t i = 0; ie->path_prefix && ie->path_prefix[i] && at < sizeof path; i++)
        at += (size_t)snprintf(path + at, sizeof path - at, "%s:", ie->path_prefix[i]);
    if (at < sizeof path)
        at += (size_t)snprintf(path + at, sizeof path - at, "%s", DEFAULT_PATH);
    if (at >= sizeof path)
        return -1;
    int rc = strv_setenvf(env, "PATH=%s", path);
    if (ie->venv)
        rc |= strv_setenvf(env, "VIRTUAL_ENV=%s", ie->venv);
    if (ie->conda)
        rc |= strv_setenvf(env, "CONDA_PREFIX=%s", ie->conda);
    for (size_t i = 0; ie->env && ie->env[i]; i++)
        rc |= strv_setenv(env, ie->env[i]);
    return rc;
}

/* The container's env valueFrom (fieldRef, resourceFieldRef, configMapKeyRef, secretKeyRef),
 * resolved for the pod as it starts. 0, or a CONFIG_REFS_* code with why. */
static int env_refs_set(const struct controller *ctl, const struct job *job, int flat, char ***env, char *why,
                        size_t why_len)
{
    int task = job_task_of(job, flat);
    const struct task_spec *ts = &job->tasks[task];
    if (ts->nenv_refs == 0)
        return 0;
    const struct replica *r = &job->replicas[flat];
    const struct node *node = r->node >= 0 ? &ctl->cluster->nodes[r->node] : NULL;
    json_t *pod = NULL;
    int rc = 0;
    for (int i = 0; i < ts->nenv_refs && rc == 0; i++) {
        const struct task_env_ref *ref = &ts->env_refs[i];
        if (ref->config) {
            rc = config_refs_env(ctl->cluster, job->ns, ref, env, why, why_len);
            continue;
        }
        char value[4096];
        if (!pod && !(pod = pod_render(job, task, flat - job->task_first[task], node)))
            rc = CONFIG_REFS_NO_MEMORY;
        if (rc == 0 && (env_source_resolve(ref, ts, pod, node, value, sizeof value) != 0 ||
                        strv_setenvf(env, "%s=%s", ref->name, value) != 0))
            rc = CONFIG_REFS_NO_MEMORY;
    }
    json_decref(pod);
    return rc;
}

/* A container-like base environment (HOME, USER and LOGNAME of the task's user: task_user_env), the
 * image's software environment, the container's envFrom, its env on top (its valueFrom after its
 * values), then what the job plugins set (VK_TASK_INDEX/VC_TASK_INDEX always), the volumes'
 * variables and the GPU devices' (replica_gpu_env), which it may not override. An OCI container
 * (runtimeClassName oci) gets no base nor software environment: its image's ENV gives PATH and the
 * rest, as in Kubernetes. Returns 0 with *out, or a CONFIG_REFS_* code with why. */
static int attempt_env(const struct controller *ctl, const struct job *job, int flat, const char *pod,
                       const char *work_dir, char *const *plugin_env, char ***out, char *why, size_t why_len)
{
    const struct replica *r = &job->replicas[flat];
    const struct task_spec *ts = &job->tasks[job_task_of(job, flat)];
    char **env = NULL;
    int rc = 0;
    *out = NULL;
    if (!ts->runtime_class) { /* an OCI container's PATH, HOME and the rest are its image's */
        rc |= strv_pushf(&env, "PATH=%s", DEFAULT_PATH);
        rc |= task_user_env(ts->run_as_uid, work_dir, &env);
    }
    rc |= strv_pushf(&env, "HOSTNAME=%s", pod);
    const struct image_env *ie = ts->runtime_class ? NULL : images_match(images_active(), ts->image);
    if (ie)
        rc |= image_env(ie, &env);
    int config = config_refs_env_from(ctl->cluster, job->ns, ts, &env, why, why_len);
    for (size_t i = 0; ts->env && ts->env[i]; i++)
        rc |= strv_setenv(&env, ts->env[i]);
    if (config == 0)
        config = env_refs_set(ctl, job, flat, &env, why, why_len);
    for (size_t i = 0; plugin_env && plugin_env[i]; i++)
        rc |= strv_setenv(&env, plugin_env[i]);
    for (int i = 0; i < ts->nvolumes; i++) {
        char var[4800];
        snprintf(var, sizeof var, "%s=%s", ts->volumes[i].env_name, ts->volumes[i].dir);
        rc |= strv_setenv(&env, var);
    }
    if (r->node >= 0)
        rc |= replica_gpu_env(ctl, r, &env);
    if (rc != 0 || config != 0) {
        strv_free(env);
        if (config == 0)
            snprintf(why, why_len, "out of memory building the environment");
        return config ? config : CONFIG_REFS_NO_MEMORY;
    }
    *out = env;
    return 0;
}

/* The node's devices bound to the replica (its mask), for a container to be given. Returns how many. */
static int replica_gpu_devices(const struct controller *ctl, const struct replica *r, int32_t *index, const char **uuid)
{
    if (r->node < 0)
        return 0;
    const struct gpu_set *gpus = &ctl->cluster->nodes[r->node].gpus;
    int n = 0;
    for (int i = 0; i < gpus->count && i < GPU_DEVICES_MAX; i++)
        if (r->gpus >> i & 1) {
            index[n] = gpus->devices[i].index;
            uuid[n++] = gpus->devices[i].uuid;
        }
    return n;
}

/* The attempt ends as it begins. Its pod fails (StartError, exit code 128 like containerd's) and
 * gives its resources back. */
static void start_failed(struct controller *ctl, struct job *job, int flat, const char *from, const char *why,
                         enum term_reason reason)
{
    struct replica *r = &job->replicas[flat];
    int task = job_task_of(job, flat);
    char pod[320];
    job_pod_name(job, task, flat - job->task_first[task], pod, sizeof pod);
    replica_release(ctl, job, flat);
    r->backoff = false;
    job_set_replica_phase(job, flat, POD_FAILED);
    bool full = disk_full_in_error(why);
    r->reason = full ? TERM_DISK_FULL : reason;
    r->exit_code = 128;
    r->end_ms = ctl->now_ms;
    free(r->message);
    char msg[700];
    snprintf(msg, sizeof msg, "%s%s%s", full ? DISK_FULL_WORDS : "", full ? " The attempt could not start: " : "", why);
    r->message = strdup(msg);
    struct journal_entry *e = record_event(ctl, JOURNAL_ATTEMPT_START, job, "Pod", pod, from, "Failed",
                                           term_reason_name(r->reason), "attempt %u could not start: %s", r->attempts,
                                           why);
    if (e) {
        fill_attempt_row(e, ctl, job, flat);
        fill_attempt_end(e, r, "");
    }
}

/* Each task whose image no entry of the --images file names runs in the default environment: a
 * Warning Event UnknownImage on the job, each time its pods start anew (a new job version). */
static void warn_unknown_images(struct controller *ctl, struct job *job)
{
    const struct images_config *images = images_active();
    const char *phase = job_phase_name(job->status.phase);
    for (int t = 0; t < job->ntasks; t++)
        if (!job->tasks[t].runtime_class && images_unknown(images, job->tasks[t].image))
            record_event(ctl, JOURNAL_EVENT, job, "Job", job->name, phase, phase, "UnknownImage",
                         "task %s: no software environment of this server names the image \"%s\": it runs in the "
                         "default environment",
                         job->tasks[t].name, job->tasks[t].image);
}

/* The files of the configMap and secret volumes among mounts (runtime/attempt.h). */
static void free_mount_files(struct attempt_mount *mounts, int n)
{
    for (int i = 0; i < n; i++)
        if (mounts[i].files_volume) {
            config_refs_files_free((struct attempt_file *)mounts[i].files, mounts[i].nfiles);
            mounts[i].files = NULL;
        }
}

/* The runtime's view of the attempt; paths are built into the caller's buffers. */
struct attempt_paths {
    char pod[320], job_dir[4096], work_dir[4200], log_path[4800], exits_path[4200], cgroup[512];
};

static int build_and_start(struct controller *ctl, struct job *job, int flat, struct attempt_paths *p,
                           struct attempt_started *started, char *why, size_t why_len)
{
    const struct replica *r = &job->replicas[flat];
    int task = job_task_of(job, flat), index = flat - job->task_first[task];
    struct task_spec *ts = &job->tasks[task];
    if (controller_resolve_volumes(ctl, job, ts) != 0) {
        snprintf(why, why_len, "out of memory naming the volumes");
        return -1;
    }
    if (!job->prepared) {
        spare_take_dir(p->job_dir); /* with its work/ and logs/ ready, else the runtime makes them */
        if (job_plugins_prepare(job, p->job_dir, why, why_len) != 0)
            return -1;
        job->prepared = true;
        warn_unknown_images(ctl, job);
    }
    struct plugin_attempt pa = {0};
    if (job_plugins_attempt(job, task, index, p->job_dir, &pa, why, why_len) != 0)
        return -1;
    char *const *argv = pa.argv ? pa.argv : ts->argv;
    bool oci = ts->runtime_class && strcmp(ts->runtime_class, "oci") == 0;
    if (!argv && !oci) {
        /* a container runs its image's own command */ /* neither the container's own command nor a plugin's (ray gives its head and workers one) */
        plugin_attempt_free(&pa);
        snprintf(why, why_len,
                 "the container has no command or args: the process runtime runs the command on the "
                 "node (the image \"%s\" is recorded, not run)",
                 ts->image ? ts->image : "");
        return -1;
    }
    char **env;
    int env_rc = attempt_env(ctl, job, flat, p->pod, p->work_dir, pa.env, &env, why, why_len);
    if (env_rc != 0) {
        plugin_attempt_free(&pa);
        return env_rc;
    }
    const struct image_env *ie = oci ? NULL : images_match(images_active(), ts->image);
    char rel[512];
    controller_log_relpath(job, p->pod, r->attempts, rel, sizeof rel);
    snprintf(p->log_path, sizeof p->log_path, "%s/%s", ctl->data_dir, rel);
    controller_cgroup_name(job->uid, p->pod, r->attempts, p->cgroup, sizeof p->cgroup);
    controller_exits_path(ctl, job->uid, p->exits_path, sizeof p->exits_path);
    int32_t gpu_index[GPU_DEVICES_MAX];
    const char *gpu_uuid[GPU_DEVICES_MAX];
    int ngpus = replica_gpu_devices(ctl, r, gpu_index, gpu_uuid);
    const char *vol_dirs[TASK_VOLUMES_MAX], *vol_targets[TASK_VOLUMES_MAX];
    for (int i = 0; i < ts->nvolumes && i < TASK_VOLUMES_MAX; i++) {
        vol_dirs[i] = ts->volumes[i].dir;
        vol_targets[i] = ts->volumes[i].mount_path;
    }
    /* The pod's hostPath and emptyDir volumes; an emptyDir's directory is jobs/<uid>/pods/<pod>/<volume>
     * (a tmpfs for medium Memory, sized by sizeLimit, else by the container's memory limit). */
    struct attempt_mount mounts[ATTEMPT_MOUNTS_MAX];
    char empty_dirs[ATTEMPT_MOUNTS_MAX][600];
    int nmounts = ts->nmounts < ATTEMPT_MOUNTS_MAX ? ts->nmounts : ATTEMPT_MOUNTS_MAX;
    for (int i = 0; i < nmounts; i++) {
        const struct pod_mount *m = &ts->mounts[i];
        bool files = m->kind == POD_VOLUME_CONFIG_MAP || m->kind == POD_VOLUME_SECRET;
        bool empty = m->kind == POD_VOLUME_EMPTY_DIR || files;
        snprintf(empty_dirs[i], sizeof empty_dirs[i], "%s/pods/%s/%s", p->job_dir, p->pod, m->volume);
        mounts[i] = (struct attempt_mount){
            .source = !empty      ? m->host_path
                      : m->memory ? NULL
                                  : empty_dirs[i],
            .target = m->mount_path,
            .read_only = m->read_only || files,
            .empty_dir = empty,
            .fresh = r->restarts == 0 || files, /* a configMap or secret volume is written anew */
            .host_type = m->host_type,
            .tmpfs_size = m->size_limit > 0 ? m->size_limit : ts->limit.v[RES_MEMORY],
            .files_volume = files,
        };
    }
    int files_rc = 0;
    for (int i = 0; i < nmounts && files_rc == 0; i++)
        if (mounts[i].files_volume) {
            struct attempt_file *list;
            files_rc = config_refs_files(ctl->cluster, job->ns, &ts->mounts[i], &list, &mounts[i].nfiles, why, why_len);
            mounts[i].files = list;
        }
    if (files_rc != 0) {
        free_mount_files(mounts, nmounts);
        strv_free(env);
        plugin_attempt_free(&pa);
        return files_rc;
    }
    struct attempt_spec spec = {
        .argv = argv,
        .envp = env,
        .work_dir = p->work_dir,
        .chdir_to = ts->working_dir         ? ts->working_dir
                    : ie && ie->working_dir ? ie->working_dir
                                            : p->work_dir,
        .log_path = p->log_path,
        .cgroup_name = p->cgroup,
        .memory_limit = ts->limit.v[RES_MEMORY],
        .cpu_limit_milli = ts->limit.v[RES_CPU],
        .pids_max = ts->pids_max,
        .uid = ts->run_as_uid,
        .gid = ts->run_as_gid,
        .hosts_file = pa.hosts_file[0] ? pa.hosts_file : NULL,
        .ssh_dir = pa.ssh_dir[0] ? pa.ssh_dir : NULL,
        .exits_path = p->exits_path,
        .pod = p->pod,
        .attempt = r->attempts,
        .exits_pending = job->live_procs + 1,
        .nvolumes = ts->nvolumes < TASK_VOLUMES_MAX ? ts->nvolumes : TASK_VOLUMES_MAX,
        .volume_dirs = vol_dirs,
        .volume_targets = vol_targets,
        .oci_image = oci ? (ts->image ? ts->image : "") : NULL,
        .ngpus = ngpus,
        .gpu_index = gpu_index,
        .gpu_uuid = gpu_uuid,
        .nmounts = nmounts,
        .mounts = mounts,
    };
    char cpuset_cpus[CPU_LIST_MAX], cpuset_mems[CPU_LIST_MAX];
    if (replica_cpuset(ctl, r, cpuset_cpus, sizeof cpuset_cpus, cpuset_mems, sizeof cpuset_mems)) {
        spec.cpuset_cpus = cpuset_cpus;
        spec.cpuset_mems = cpuset_mems;
    }
    int rc = ctl->ops.start(ctl->ops.ctx, job, flat, &spec, started, why, why_len);
    free_mount_files(mounts, nmounts);
    strv_free(env);
    plugin_attempt_free(&pa);
    return rc;
}

/* The attempt runs: its pid goes into the record, and the pod's PodRunning into its policies. */
static void attempt_running(struct controller *ctl, struct job *job, int flat, const struct attempt_started *st)
{
    struct replica *r = &job->replicas[flat];
    int task = job_task_of(job, flat);
    char pod[320];
    job_pod_name(job, task, flat - job->task_first[task], pod, sizeof pod);
    r->starting = false;
    r->pid = st->pid;
    if (st->start_ms > 0) /* when it really ran, not when it was decided (ctl->now_ms, the iteration's start) */
        r->start_ms = st->start_ms;
    struct journal_entry *e = record_event(
        ctl, JOURNAL_ATTEMPT_START, job, "Pod", pod, r->restarts ? "Running" : "Pending", "Running", "Started",
        "attempt %u started on node %s, pid %d%s%s", r->attempts, ctl->cluster->nodes[r->node].name, st->pid,
        st->cgroup[0] ? ", cgroup " : "", st->cgroup);
    if (e) {
        fill_attempt_row(e, ctl, job, flat);
        e->attempt.pid_start = st->pid_start;
        e->attempt.cgroup = strdup(st->cgroup);
    }
}

/* Starts the next attempt of a bound replica: its first, or a restart in place (from says which
 * phase the pod was in, for the event). The pod is Running from here; a start that goes on in the
 * background reports back through controller_attempt_started/failed. */
static void replica_launch(struct controller *ctl, struct job *job, int flat, const char *from)
{
    struct replica *r = &job->replicas[flat];
    int task = job_task_of(job, flat);
    const struct task_spec *ts = &job->tasks[task];
    struct attempt_paths p;
    char why[512] = "";
    job_pod_name(job, task, flat - job->task_first[task], p.pod, sizeof p.pod);
    r->attempts++;
    r->start_ms = ctl->now_ms;
    r->end_ms = 0;
    r->exit_code = 0;
    r->reason = TERM_NONE;
    free(r->message);
    r->message = NULL;
    controller_job_dir(ctl, job, p.job_dir, sizeof p.job_dir);
    snprintf(p.work_dir, sizeof p.work_dir, "%s/work", p.job_dir);
    struct attempt_started started = {0};
    int rc = build_and_start(ctl, job, flat, &p, &started, why, sizeof why);
    if (rc < 0) {
        start_failed(ctl, job, flat, from, why, rc == CONFIG_REFS_MISSING ? TERM_CONFIG_ERROR : TERM_START_ERROR);
        return;
    }
    r->backoff = false;
    if (ts->active_deadline_seconds > 0 && strcmp(from, "Pending") == 0) { /* from the pod's start */
        struct controller_timer t = {.due_ms = ctl->now_ms + ts->active_deadline_seconds * 1000,
                                     .kind = TIMER_DEADLINE,
                                     .task = task,
                                     .flat = flat,
                                     .version = job->status.version,
                                     .attempt = r->born,
                                     .deadline_s = ts->active_deadline_seconds};
        timer_arm(ctl, job, &t);
    }
    if (r->phase != POD_RUNNING)
        job_set_replica_phase(job, flat, POD_RUNNING);
    job->live_procs++;
    r->starting = rc == 0;
    if (rc == 1)
        attempt_running(ctl, job, flat, &started);
}

/* What follows a launch: PodRunning once it runs, PodFailed when it could not start. */
static void after_launch(struct controller *ctl, struct job *job, int flat)
{
    const struct replica *r = &job->replicas[flat];
    if (r->phase != POD_RUNNING)
        job_raise(ctl, job, EV_POD_FAILED, flat, true, r->exit_code);
    else if (!r->starting)
        job_raise(ctl, job, EV_POD_RUNNING, flat, false, 0);
}

void controller_attempt_started(struct controller *ctl, struct job *job, int flat, const struct attempt_started *st)
{
    cluster_assert_owner(ctl->cluster);
    attempt_running(ctl, job, flat, st);
    if (!job->deleted && !job->replicas[flat].stopping)
        job_raise(ctl, job, EV_POD_RUNNING, flat, false, 0);
}

void controller_attempt_failed(struct controller *ctl, struct job *job, int flat, const char *why)
{
    cluster_assert_owner(ctl->cluster);
    struct replica *r = &job->replicas[flat];
    job->live_procs--;
    r->starting = false;
    bool stopping = r->stopping, vanish = r->vanish;
    enum term_reason stop_reason = (enum term_reason)r->reason;
    start_failed(ctl, job, flat, r->restarts ? "Running" : "Pending", why, TERM_START_ERROR);
    if (job->deleted) {
        job_release_if_done(ctl, job);
        return;
    }
    if (!stopping) {
        job_raise(ctl, job, EV_POD_FAILED, flat, true, r->exit_code);
        return;
    }
    /* a stop came while it was starting: the pod goes where the stop sends it */
    r->vanish = false;
    if (vanish || stop_reason == TERM_SHUTDOWN || stop_reason == TERM_EVICTED || stop_reason == TERM_DELETED_POD) {
        job_set_replica_phase(job, flat, vanish ? POD_ABSENT : POD_PENDING);
        r->node = -1;
    }
    job_finish_shrinks(ctl, job);
    job_sync(ctl, job);
}

void replica_start(struct controller *ctl, struct job *job, int flat, int node)
{
    replica_hold(ctl, job, flat, node, 0);
    replica_hold_cpus(ctl, job, flat, false);
    replica_launch(ctl, job, flat, "Pending");
    after_launch(ctl, job, flat);
}

void replica_restart_after_backoff(struct controller *ctl, struct job *job, int flat, uint32_t attempt)
{
    struct replica *r = &job->replicas[flat];
    if (flat >= job->total_replicas || r->phase != POD_RUNNING || !r->backoff || r->attempts != attempt)
        return;                        /* the pod was killed, restarted or finished meanwhile */
    if (controller_starts_held(ctl)) { /* a start could not be recorded: ask again a second later */
        struct controller_timer t = {.due_ms = ctl->now_ms + 1000,
                                     .kind = TIMER_RESTART,
                                     .task = job_task_of(job, flat),
                                     .flat = flat,
                                     .version = job->status.version,
                                     .attempt = attempt};
        timer_arm(ctl, job, &t);
        return;
    }
    replica_launch(ctl, job, flat, "Running");
    if (r->phase != POD_RUNNING) /* could not start: the pod failed */
        job_raise(ctl, job, EV_POD_FAILED, flat, true, r->exit_code);
}
