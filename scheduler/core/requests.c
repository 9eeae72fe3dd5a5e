/* The core's answers to gateway requests: lookups and renderings of live state, and the two
 * requests that change it (create and delete a job). Runs on the core thread only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/command.h"
#include "adapters/objects/node.h"
#include "adapters/objects/pod.h"
#include "adapters/objects/podgroup.h"
#include "adapters/dialects/volcano/job.h"
#include "scheduler/controller/objects.h"
#include "common/clock.h"
#include "scheduler/core/internal.h"

/* A job action: Caldera's convenience route, or a Command about a Job. The answer is the job as the
 * action left it; the Command it stands for is recorded. */
/* Why action cannot act on a job in phase p (Volcano's state machine, VOLCANO-FACTS), or NULL when
 * it can: a final phase takes no action, nor does a job already completing or terminating; only an
 * aborting or aborted job resumes, and it is not aborted twice. (Volcano takes the other actions on
 * an aborted job and keeps it Aborted, stopping whatever still runs: so are they here.) */
static const char *action_refused(enum job_action action, enum job_phase p)
{
    bool aborted = p == JOB_ABORTING || p == JOB_ABORTED;
    if (p == JOB_COMPLETED || p == JOB_FAILED || p == JOB_TERMINATED)
        return "it is in a final phase";
    if (p == JOB_COMPLETING || p == JOB_TERMINATING)
        return "it is already ending";
    if (action == ACT_RESUME_JOB)
        return aborted ? NULL : "only an Aborting or Aborted job can be resumed";
    if (action == ACT_ABORT_JOB && aborted)
        return "it is already suspended";
    return NULL;
}

static void job_action(struct core *c, struct core_request *req, enum job_action action, const char *reason)
{
    struct job *job = cluster_find_job(&c->cluster, req->ns, req->name);
    if (!job)
        return core_not_found(req, "jobs", "batch.volcano.sh", req->name);
    const char *refused = action_refused(action, job->status.phase);
    if (refused) {
        api_fail(&req->status, 409, "Conflict", "job \"%s\" is %s: %s cannot act on it (%s)", job->name,
                 job_phase_name(job->status.phase), job_action_name(action), refused);
        api_set_details(&req->status, "jobs", "batch.volcano.sh", job->name);
        return;
    }
    json_t *cmd = command_render_job_action(job->ns, job->name, action, reason);
    char *cmd_json = cmd ? json_dumps(cmd, JSON_COMPACT) : NULL;
    json_decref(cmd);
    int rc = controller_command(&c->ctl, job, action, reason, cmd_json, &req->status);
    free(cmd_json);
    if (rc != 0)
        return;
    c->kick = true;
    core_answer(req, 200, volcano_job_render(job), job->resource_version);
}

/* A Command about a queue: recorded, then OpenQueue or CloseQueue. */
static int queue_command(struct core *c, struct core_request *req, const struct command *cmd, const char *json)
{
    struct queue *target = cluster_find_queue(&c->cluster, cmd->target_name);
    if (target)
        controller_record_queue_command(&c->ctl, target, req->ns, cmd->action, cmd->reason, json);
    struct queue *q = cmd->action == ACT_OPEN_QUEUE ? controller_open_queue(&c->ctl, cmd->target_name, &req->status)
                                                    : controller_close_queue(&c->ctl, cmd->target_name, &req->status);
    return q ? 0 : -1;
}

/* A Command about a Job of the request's namespace: its action, recorded. */
static int job_command(struct core *c, struct core_request *req, const struct command *cmd, const char *json)
{
    struct job *job = cluster_find_job(&c->cluster, req->ns, cmd->target_name);
    if (!job) {
        api_set_details(&req->status, "jobs", "batch.volcano.sh", cmd->target_name);
        return api_fail(&req->status, 404, "NotFound", "jobs.batch.volcano.sh \"%s\" not found (the command's target)",
                        cmd->target_name);
    }
    return controller_command(&c->ctl, job, cmd->action, cmd->reason, json, &req->status);
}

static void command_run(struct core *c, struct core_request *req)
{
    struct command *cmd = req->object;
    char uid[UUID_STR_LEN];
    uuid_v4(uid);
    json_t *rendered = command_render(cmd, uid, c->ctl.now_ms);
    char *json = rendered ? json_dumps(rendered, JSON_COMPACT) : NULL;
    int rc = cmd->target_is_queue ? queue_command(c, req, cmd, json) : job_command(c, req, cmd, json);
    free(json);
    if (rc != 0) {
        json_decref(rendered);
        return;
    }
    c->kick = true;
    core_answer(req, 201, rendered, c->cluster.seq);
}

/* --- pods --------------------------------------------------------------- */

static const struct node *bound_node(const struct core *c, const struct replica *r)
{
    return r->node >= 0 && r->node < c->cluster.nnodes ? &c->cluster.nodes[r->node] : NULL;
}

/* A page of pods (core.h: limit, after): the jobs in the cluster's order, each job's by task and index. */
static void pod_list(struct core *c, struct core_request *req)
{
    json_t *items = json_array();
    size_t count = 0;
    bool full = false;
    struct sbuf rows = {0}; /* as_table: the rows instead of the items */
    int64_t now_ms = clock_wall_ms();
    for (struct job *job = c->cluster.first; job && !full; job = job->next) {
        if (core_page_before(req, job, true) || core_name_excludes(req, job, true) || !core_in_namespace(job, req) ||
            core_pod_labels_exclude(req, job) || !cluster_wake(&c->cluster, job))
            continue;
        for (int t = 0; t < job->ntasks && !full; t++) {
            for (int i = core_page_first_index(req, job, t); i < job->tasks[t].replicas; i++) {
                char name[320];
                if (!job_pod_exists(job, job->task_first[t] + i) ||
                    (req->name_eq && strcmp(job_pod_name(job, t, i, name, sizeof name), req->name_eq) != 0))
                    continue;
                const struct node *node = bound_node(c, &job->replicas[job->task_first[t] + i]);
                json_t *pod = req->as_table ? pod_render_metadata(job, t, i, node) : pod_render(job, t, i, node);
                json_t *meta = req->as_table ? pod : json_object_get(pod, "metadata");
                if (req->nselectors && !core_labels_match(json_object_get(meta, "labels"), req)) {
                    json_decref(pod);
                    continue;
                }
                if ((full = !core_page_room(req, count))) {
                    json_decref(pod);
                    break;
                }
                if (req->as_table) {
                    sbuf_puts(&rows, count ? "," : "[");
                    core_pod_table_row(&rows, job, t, i, node, meta, req, now_ms);
                    json_decref(pod);
                } else {
                    json_array_append_new(items, pod);
                }
                core_page_last(req, job, t, i);
                count++;
            }
        }
    }
    if (req->as_table) {
        sbuf_puts(&rows, count ? "]" : "[]");
        req->text = sbuf_take(&rows); /* NULL when memory ran out: the gateway says so */
    }
    core_answer_list(c, req, "v1", "PodList", items);
}

static struct job *find_pod(struct core *c, struct core_request *req, int *task, int *index)
{
    struct job *job = cluster_find_pod(&c->cluster, req->ns, req->name, task, index);
    if (!job || !job_pod_exists(job, job->task_first[*task] + *index)) {
        core_not_found(req, "pods", "", req->name);
        return NULL;
    }
    return job;
}

static void pod_get(struct core *c, struct core_request *req)
{
    int task, index;
    struct job *job = find_pod(c, req, &task, &index);
    if (job)
        core_answer(req, 200, pod_render(job, task, index, bound_node(c, job_replica(job, task, index))),
                    job->resource_version);
}

static void pod_log(struct core *c, struct core_request *req)
{
    int task, index;
    struct job *job = find_pod(c, req, &task, &index);
    if (!job)
        return;
    const struct replica *r = job_replica(job, task, index);
    const char *container = job->tasks[task].container_name;
    uint32_t attempt = r->attempts;
    if (req->previous)
        attempt = r->attempts > 1 ? r->attempts - 1 : 0;
    else if (req->attempt > 0)
        attempt = (uint32_t)req->attempt <= r->attempts ? (uint32_t)req->attempt : 0;
    if (attempt == 0) {
        if (r->attempts == 0)
            api_fail(&req->status, 400, "BadRequest", "container \"%s\" in pod \"%s\" is waiting to start: %s",
                     container, req->name, r->node >= 0 ? "ContainerCreating" : "PodScheduling");
        else
            api_fail(&req->status, 400, "BadRequest",
                     "%s container \"%s\" in pod \"%s\" not found (it has run %u time%s)",
                     req->previous ? "previous terminated" : "that attempt of", container, req->name, r->attempts,
                     r->attempts == 1 ? "" : "s");
        return;
    }
    char rel[512], pod[320];
    job_pod_name(job, task, index, pod, sizeof pod);
    if (job->backend) { /* on its engine: the gateway asks the backend (core_backend) */
        core_answer(req, 200,
                    json_pack("{s:s,s:s,s:s,s:s,s:i,s:s}", "container", container ? container : "", "job", job->name,
                              "uid", job->uid, "pod", pod, "backend", (int)job->backend, "ref",
                              job->remote_ref ? job->remote_ref : ""),
                    0);
        return;
    }
    controller_log_relpath(job, pod, attempt, rel, sizeof rel);
    if (asprintf(&req->log_path, "%s/%s", c->data_dir, rel) < 0) {
        req->log_path = NULL;
        api_fail(&req->status, 500, "InternalError", "out of memory");
        return;
    }
    /* the container for ?container=; the job and attempt to find the attempt in the history (why it
     * has no log), and whether that attempt still runs (?follow=true goes on while it does) */
    bool running = attempt == r->attempts && r->phase == POD_RUNNING && !r->backoff && !r->stopping;
    core_answer(req, 200,
                json_pack("{s:s,s:s,s:s,s:i,s:b}", "container", container ? container : "", "job", job->name, "uid",
                          job->uid, "attempt", (int)attempt, "running", running),
                0);
}

static void pod_delete(struct core *c, struct core_request *req)
{
    int task, index;
    struct job *job = find_pod(c, req, &task, &index);
    if (!job)
        return;
    char uid[UUID_STR_LEN];
    pod_uid(job, job->task_first[task] + index, uid);
    controller_delete_pod(&c->ctl, job, job->task_first[task] + index);
    c->kick = true;
    core_answer_deleted(req, "pods", "", uid, job->resource_version);
}

/* --- podgroups, nodes (queues and the other scheduler objects: objects.c) --- */

static void podgroup_list(struct core *c, struct core_request *req)
{
    json_t *items = json_array();
    size_t count = 0;
    struct sbuf rows = {0}; /* as_table: the rows instead of the items */
    int64_t now_ms = clock_wall_ms();
    for (struct job *job = c->cluster.first; job; job = job->next) {
        if (core_page_before(req, job, false) ||
            (req->name_eq && !podgroup_name_matches(req->name_eq, job->name, job->uid)) || !core_in_namespace(job, req))
            continue;
        if (!core_page_room(req, count)) {
            core_page_count_rest(req, job);
            break;
        }
        if (!cluster_wake(&c->cluster, job))
            continue;
        if (req->as_table) {
            sbuf_puts(&rows, count ? "," : "[");
            core_podgroup_table_row(&rows, job, req, now_ms);
        } else {
            json_array_append_new(items, podgroup_render(job));
        }
        core_page_last(req, job, -1, -1);
        count++;
    }
    if (req->as_table) {
        sbuf_puts(&rows, count ? "]" : "[]");
        req->text = sbuf_take(&rows); /* NULL when memory ran out: the gateway says so */
    }
    core_answer_list(c, req, PODGROUP_API_VERSION, "PodGroupList", items);
}

static void podgroup_get(struct core *c, struct core_request *req)
{
    char buf[PODGROUP_NAME_MAX]; /* "<job>-<uid>" as Volcano names it, or the job's name as Caldera did */
    struct job *job = cluster_find_job(&c->cluster, req->ns, podgroup_job_name(req->name, buf));
    if (!job || !podgroup_name_matches(req->name, job->name, job->uid))
        job = cluster_find_job(&c->cluster, req->ns, req->name);
    if (!job)
        return core_not_found(req, "podgroups", "scheduling.volcano.sh", req->name);
    core_answer(req, 200, podgroup_render(job), job->resource_version);
}

static void node_list(struct core *c, struct core_request *req)
{
    json_t *items = json_array();
    for (int i = 0; i < c->cluster.nnodes; i++)
        json_array_append_new(items, node_render(&c->cluster.nodes[i]));
    core_answer_list(c, req, "v1", "NodeList", items);
}

static void node_get(struct core *c, struct core_request *req)
{
    int i = cluster_find_node(&c->cluster, req->name);
    if (i < 0)
        return core_not_found(req, "nodes", "", req->name);
    core_answer(req, 200, node_render(&c->cluster.nodes[i]), c->cluster.seq);
}

void core_handle_request(struct core *c, struct core_request *req)
{
    switch (req->op) {
    case CORE_JOB_CREATE:
    case CORE_JOB_GET:
    case CORE_JOB_LIST:
    case CORE_JOB_DELETE:
    case CORE_JOB_UPDATE: core_handle_job_request(c, req); break;
    case CORE_JOB_ACTION: job_action(c, req, (enum job_action)req->action, "requested through the API"); break;
    case CORE_JOB_WITHDRAW: core_handle_withdraw(c, req); break;
    case CORE_COMMAND: command_run(c, req); break;
    case CORE_POD_DELETE: pod_delete(c, req); break;
    case CORE_POD_GET: pod_get(c, req); break;
    case CORE_POD_LIST: pod_list(c, req); break;
    case CORE_POD_LOG: pod_log(c, req); break;
    case CORE_PODGROUP_GET: podgroup_get(c, req); break;
    case CORE_PODGROUP_LIST: podgroup_list(c, req); break;
    case CORE_NODE_GET: node_get(c, req); break;
    case CORE_NODE_LIST: node_list(c, req); break;
    case CORE_METRICS: core_handle_metrics(c, req); break;
    case CORE_RECORD_PUT:
    case CORE_RECORD_DELETE:
    case CORE_RECORD_EVENT: core_handle_record(c, req); break;
    case CORE_COMPANION_LIST:
    case CORE_COMPANION_GET:
    case CORE_COMPANION_CREATE:
    case CORE_COMPANION_DELETE:
    case CORE_COMPANION_TARGET:
    case CORE_COMPANION_TOUCH: core_handle_companion_request(c, req); break;
    case CORE_GPU_SAMPLES: core_handle_gpu_samples(c, req); break;
    case CORE_GPU_HEALTH: core_handle_gpu_health(c, req); break;
    default: core_handle_object_request(c, req); break;
    }
}
