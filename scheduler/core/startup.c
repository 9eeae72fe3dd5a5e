/* A start in two steps: the awake jobs read before the core thread starts (beside the store's checks),
 * then on it, once the checks pass, the sleeping jobs, the last run's tasks recovered and the writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "adapters/dialects/volcano/job.h"
#include "common/clock.h"
#include "common/grow.h"
#include "common/log.h"
#include "common/uuid.h"
#include "runtime/census.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/spare_files.h"
#include "scheduler/core/core.h"
#include "scheduler/core/internal.h"
#include "scheduler/controller/configs.h"
#include "scheduler/controller/cron.h"
#include "scheduler/controller/flow.h"

#define SPARE_LOGS 1024 /* attempts' logs made ahead (runtime/spare_files.h) */
#define SPARE_JOB_DIRS 256
#define CGROUP_STOCK 1024 /* attempts' cgroups made ahead (runtime/cgroup/stock.c), as many as the logs */

/* --- the store's rows into the controller ------------------------------------------------------- */

static int restore_queue(void *ctx, const struct store_queue_row *row)
{
    struct core *c = ctx;
    return controller_restore_queue(&c->ctl, row);
}

/* A Token, kept for the gateway (core_take_stored_tokens), which must not open the file itself yet. */
static int keep_token(struct core *c, const struct store_object_row *row)
{
    if (GROW(c->tokens, c->tokens_cap, (size_t)c->ntokens + 1, 8) != 0)
        return -1;
    struct stored_token *t = &c->tokens[c->ntokens];
    if (!(t->name = strdup(row->name)) || !(t->json = strdup(row->json))) {
        free(t->name);
        return -1;
    }
    c->ntokens++;
    return 0;
}

static int restore_object(void *ctx, const struct store_object_row *row)
{
    struct core *c = ctx;
    if (strcmp(row->kind, CONTROLLER_GATEWAY_KIND_TOKEN) == 0)
        return keep_token(c, row);
    ctx = &c->ctl;
    if (strcmp(row->kind, CRONJOB_KIND) == 0)
        return controller_restore_cronjob(ctx, row->json, row->ns, row->name);
    if (strcmp(row->kind, "ConfigMap") == 0 || strcmp(row->kind, "Secret") == 0)
        return controller_restore_config(ctx, strcmp(row->kind, "Secret") == 0 ? CONFIG_SECRET : CONFIG_MAP, row->json,
                                         row->ns, row->name);
    if (strcmp(row->kind, JOBFLOW_KIND) == 0)
        return controller_restore_jobflow(ctx, row->json, row->ns, row->name);
    if (strcmp(row->kind, JOBTEMPLATE_KIND) == 0)
        return controller_restore_jobtemplate(ctx, row->json, row->ns, row->name);
    return controller_restore_object(ctx, row);
}
static int restore_job(void *ctx, const struct store_job_row *row)
{
    struct core *c = ctx;
    return controller_restore_job(&c->ctl, row);
}
static int restore_jobs_done(void *ctx, bool complete)
{
    struct core *c = ctx;
    return controller_restore_jobs_done(&c->ctl, complete);
}
static int restore_attempt(void *ctx, const struct store_attempt_row *row)
{
    struct core *c = ctx;
    return controller_restore_attempt(&c->ctl, row);
}

static void restore_begin(void *ctx, uint64_t max_seq)
{
    struct core *c = ctx;
    if (max_seq > c->cluster.seq)
        c->cluster.seq = max_seq;
}

int core_take_stored_tokens(struct core *c, int (*fn)(void *ctx, const char *name, const char *json), void *ctx)
{
    int rc = 0;
    for (int i = 0; i < c->ntokens; i++) {
        if (rc == 0 && fn && fn(ctx, c->tokens[i].name, c->tokens[i].json) != 0)
            rc = -1;
        free(c->tokens[i].name);
        free(c->tokens[i].json);
    }
    free(c->tokens);
    c->tokens = NULL;
    c->ntokens = c->tokens_cap = 0;
    return rc;
}

static int load_part(struct core *c, enum store_load_part part, char *err, size_t errlen)
{
    const struct store_loader loader = {
        c, restore_queue, restore_object, restore_job, restore_attempt, restore_begin, restore_jobs_done};
    uint64_t max_seq = 0;
    c->ctl.restore_last = c->ctl.restore_woken = NULL;
    if (store_load_part(c->store, &loader, part, &max_seq, err, errlen) != 0)
        return -1;
    if (max_seq > c->cluster.seq)
        c->cluster.seq = max_seq;
    return 0;
}

int core_load_awake(struct core *c, char *err, size_t errlen)
{
    c->ctl.store = c->store; /* dormant jobs are read from it when they wake */
    controller_enable_waking(&c->ctl);
    if (load_part(c, STORE_LOAD_AWAKE, err, errlen) == 0) {
        store_start_checks(c->store); /* not beside the load: they slowed it by half (ARCHITECTURE.md) */
        return 0;
    }
    /* a corrupt file may fail the load too: the checks' refusal is the one reported */
    char why[512] = "";
    if (store_confirm(c->store, why, sizeof why) != 0)
        snprintf(err, errlen, "%s", why);
    return -1;
}

/* --- answers before the start is over ----------------------------------------------------------- */

/* Whether recovering the last run's tasks may change the job: one of its pods was running (its
 * process is looked for), or an engine runs it (the engine is asked). */
static bool recovery_may_change(const struct job *job)
{
    if (job->backend || job->remote_ref)
        return true;
    for (int32_t i = 0; i < job->total_replicas; i++)
        if (job->replicas[i].phase == POD_RUNNING)
            return true;
    return false;
}

bool core_answer_early(struct core *c, struct core_request *req)
{
    if (req->posted || req->op != CORE_JOB_GET || req->dialect || req->as_manifest)
        return false;
    char key[512];
    int n = snprintf(key, sizeof key, "%s/%s", req->ns, req->name);
    struct job *job = n > 0 && n < (int)sizeof key ? strmap_get(&c->cluster.jobs_by_key, key) : NULL;
    if (!job || job->dormant || !job->stored_status || recovery_may_change(job))
        return false; /* a miss may be a sleeping job, not read yet */
    json_t *body = volcano_job_render(job), *status = json_loads(job->stored_status, 0, NULL);
    if (!body || !status) {
        json_decref(body);
        json_decref(status);
        return false;
    }
    /* its pods are made again by the recovery's sync, as they were: the status the last run wrote is
     * the one its resourceVersion stands for */
    json_object_set_new(body, "status", status);
    core_answer(req, 200, body, job->resource_version);
    return true;
}

/* --- the rest of the start, on the core thread -------------------------------------------------- */

/* The orphan sweep's rule: a cgroup named "<pod>.<attempt>.<job uid>" belongs to this data directory
 * when jobs/<uid> exists in it; of those, only the ones a slot watches stay. */
static bool keep_cgroup(void *ctx, const char *name)
{
    struct core *c = ctx;
    const char *dot = strrchr(name, '.');
    if (!dot || strlen(dot + 1) != UUID_STR_LEN - 1)
        return true; /* not an attempt's name */
    char dir[4300];
    struct stat st;
    snprintf(dir, sizeof dir, "%s/jobs/%s", c->data_dir, dot + 1);
    if (stat(dir, &st) != 0)
        return true; /* another server's */
    struct job *job = cluster_find_job_uid(&c->cluster, dot + 1);
    const char *attempt_dot = dot;
    while (attempt_dot > name && attempt_dot[-1] != '.')
        attempt_dot--;
    if (!job || attempt_dot <= name + 1)
        return false;
    char pod[320];
    snprintf(pod, sizeof pod, "%.*s", (int)(attempt_dot - 1 - name), name);
    int task, index;
    if (job_parse_pod_name(job, pod, &task, &index) != 0)
        return false;
    int i = job->replicas[job->task_first[task] + index].proc;
    return i >= 0 && i < c->nslots && c->slots[i].job == job && strcmp(c->slots[i].proc.cgroup_name, name) == 0;
}

int core_load_asleep(struct core *c, char *err, size_t errlen)
{
    int rc = load_part(c, STORE_LOAD_ASLEEP, err, errlen);
    c->asleep_ms = clock_mono_ms();
    return rc;
}

int core_finish_start(struct core *c, char *err, size_t errlen)
{
    if (store_confirm(c->store, err, errlen) != 0)
        return -1;
    int64_t read_ms = clock_mono_ms();
    /* one scan of what runs, instead of a lookup of each lost attempt's pid and cgroup */
    c->census = c->ctl.nrecovered > 0 ? process_census_take() : NULL;
    int rc = controller_finish_recovery(&c->ctl);
    process_census_free(c->census);
    c->census = NULL;
    if (rc != 0 || controller_record_nodes(&c->ctl) != 0 || store_start_writer(c->store) != 0) {
        snprintf(err, errlen, "cannot start the core");
        return -1;
    }
    char spare_dir[4200]; /* after the checks: a refused database leaves the directory as it was */
    snprintf(spare_dir, sizeof spare_dir, "%s/spare", c->data_dir);
    if (spare_files_start(spare_dir, SPARE_LOGS, SPARE_JOB_DIRS, controller_job_subdirs, controller_job_files) != 0)
        log_warn("cannot keep spare files in %s: every attempt creates its own", spare_dir);
    if (cgroup_stock_start(CGROUP_STOCK) != 0)
        log_warn("cannot start the cgroup stock's thread: every attempt makes its own cgroup");
    int orphans = process_sweep_orphans(keep_cgroup, c);
    int64_t done_ms = clock_mono_ms();
    /* what a restart costs, for whoever waits on one */
    log_info(
        "state loaded in %.2f s (awake jobs read in %.2f s, then sleeping ones in %.2f s, checks over after "
        "%.2f s, the last run's tasks found and recorded in %.2f s): %d job%s, %d queue%s, %d node%s, last event "
        "%llu; %d running task%s adopted, %d orphan%s killed",
        (double)(done_ms - c->started_ms) / 1000, (double)(c->awake_ms - c->started_ms) / 1000,
        (double)(c->asleep_ms - c->awake_ms) / 1000, (double)(read_ms - c->started_ms) / 1000,
        (double)(done_ms - read_ms) / 1000, c->cluster.njobs, c->cluster.njobs == 1 ? "" : "s", c->cluster.nqueues,
        c->cluster.nqueues == 1 ? "" : "s", c->cluster.nnodes, c->cluster.nnodes == 1 ? "" : "s",
        (unsigned long long)c->cluster.seq, c->adopted, c->adopted == 1 ? "" : "s", orphans, orphans == 1 ? "" : "s");
    return 0;
}

void core_start_settled(struct core *c, const char *refusal)
{
    pthread_mutex_lock(&c->lock);
    c->start_state = refusal ? -1 : 1;
    if (refusal)
        snprintf(c->refusal, sizeof c->refusal, "%s", refusal);
    pthread_cond_broadcast(&c->started);
    pthread_mutex_unlock(&c->lock);
}

int core_wait_ready(struct core *c, char *err, size_t errlen)
{
    if (atomic_load(&c->start_state) > 0) /* every request asks, once the gateway listens */
        return 0;
    pthread_mutex_lock(&c->lock);
    while (c->start_state == 0)
        pthread_cond_wait(&c->started, &c->lock);
    int state = c->start_state;
    if (state < 0)
        snprintf(err, errlen, "%s", c->refusal);
    pthread_mutex_unlock(&c->lock);
    return state > 0 ? 0 : -1;
}
