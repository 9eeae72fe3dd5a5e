/* The job model: allocation, phase names, replica counts and pod names.
 * Phase names are exactly Volcano's and Kubernetes' spellings; they go to the API and the database. */
#include "model/job.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/free_batch.h"
#include "common/free_later.h"
#include "common/strv.h"

static const char *const job_phases[JOB_PHASE_COUNT] = {
    "Pending",    "Aborting",  "Aborted",     "Running",    "Restarting",
    "Completing", "Completed", "Terminating", "Terminated", "Failed",
};
static const char *const pod_phases[POD_PHASE_COUNT] = {"Pending", "Running", "Succeeded", "Failed", "Unknown"};
static const char *const pg_phases[PG_PHASE_COUNT] = {"Pending", "Inqueue", "Running", "Unknown", "Completed"};
static const char *const term_reasons[TERM_REASON_COUNT] = {
    "",           "Completed",        "Error",    "OOMKilled",         "StartError",
    "Shutdown",   "Deleted",          "Stopped",  "Evicted",           "Unknown",
    "PodDeleted", "DeadlineExceeded", "DiskFull", "ErrImageNeverPull", "CreateContainerConfigError",
};

const char *job_phase_name(enum job_phase p) { return p < JOB_PHASE_COUNT ? job_phases[p] : "Unknown"; }
const char *pod_phase_name(enum pod_phase p) { return p < POD_PHASE_COUNT ? pod_phases[p] : "Unknown"; }
const char *podgroup_phase_name(enum podgroup_phase p) { return p < PG_PHASE_COUNT ? pg_phases[p] : "Unknown"; }
const char *term_reason_name(enum term_reason r) { return r < TERM_REASON_COUNT ? term_reasons[r] : ""; }

static int find_name(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

int job_phase_parse(const char *s) { return find_name(job_phases, JOB_PHASE_COUNT, s); }
int term_reason_parse(const char *s) { return find_name(term_reasons, TERM_REASON_COUNT, s); }

bool job_phase_final(enum job_phase p) { return p == JOB_COMPLETED || p == JOB_FAILED || p == JOB_TERMINATED; }

/* Two copies, not a formatted print: a start makes one per stored job (asprintf's formatting was a
 * tenth of a dormant job's restore). */
char *job_key_new(const char *ns, const char *name)
{
    size_t n = strlen(ns), m = strlen(name);
    char *key = malloc(n + m + 2);
    if (key) {
        memcpy(key, ns, n);
        key[n] = '/';
        memcpy(key + n + 1, name, m + 1);
    }
    return key;
}

struct job *job_new(int ntasks)
{
    struct job *job = calloc(1, sizeof *job);
    if (!job)
        return NULL;
    job->tasks = calloc((size_t)(ntasks > 0 ? ntasks : 1), sizeof *job->tasks);
    if (!job->tasks) {
        free(job);
        return NULL;
    }
    job->ntasks = ntasks;
    job->ttl_seconds = -1;
    for (int t = 0; t < ntasks; t++) {
        job->tasks[t].shrink_to = -1;
        job->tasks[t].run_as_uid = job->tasks[t].run_as_gid = -1;
        job->tasks[t].restart = RESTART_NEVER;
        job->tasks[t].max_retry = -1;
    }
    return job;
}

int job_alloc_replicas(struct job *job)
{
    int64_t total = 0;
    for (int t = 0; t < job->ntasks; t++)
        total += job->tasks[t].replicas;
    if (total > INT32_MAX)
        return -1;
    free(job->replicas);
    free(job->task_first);
    free(job->task_counts);
    job->replicas = calloc((size_t)(total > 0 ? total : 1), sizeof *job->replicas);
    job->task_first = calloc((size_t)(job->ntasks > 0 ? job->ntasks : 1), sizeof *job->task_first);
    job->task_counts = calloc((size_t)(job->ntasks > 0 ? job->ntasks : 1), sizeof *job->task_counts);
    if (!job->replicas || !job->task_first || !job->task_counts)
        return -1;
    int32_t at = 0;
    for (int t = 0; t < job->ntasks; t++) {
        job->task_first[t] = at;
        job->task_counts[t].pending = job->tasks[t].replicas;
        at += job->tasks[t].replicas;
    }
    for (int32_t i = 0; i < at; i++) {
        job->replicas[i].node = -1;
        job->replicas[i].proc = -1;
    }
    job->total_replicas = at;
    return 0;
}

void pod_volume_items_free(struct pod_volume_item *items, int n)
{
    for (int i = 0; i < n; i++)
        free(items[i].key), free(items[i].path);
    free(items);
}

static void task_spec_free(struct task_spec *t)
{
    free(t->name);
    free(t->container_name);
    free(t->image);
    free(t->runtime_class);
    strv_free(t->argv);
    strv_free(t->env);
    for (int e = 0; e < t->nenv_refs; e++)
        free(t->env_refs[e].name), free(t->env_refs[e].field_path), free(t->env_refs[e].object_name),
            free(t->env_refs[e].key);
    free(t->env_refs);
    for (int e = 0; e < t->nenv_from; e++)
        free(t->env_from[e].name), free(t->env_from[e].prefix);
    free(t->env_from);
    free(t->policies);
    free(t->depends);
    free(t->working_dir);
    free(t->restart_policy);
    free(t->priority_class);
    for (int m = 0; m < t->nmounts; m++) {
        free(t->mounts[m].volume), free(t->mounts[m].mount_path), free(t->mounts[m].host_path);
        pod_volume_items_free(t->mounts[m].items, t->mounts[m].nitems);
    }
    free(t->mounts);
    json_decref(t->template_tree);
    constraints_free(&t->constraints);
    for (int v = 0; v < t->nvolumes; v++) {
        free(t->volumes[v].mount_path);
        free(t->volumes[v].claim_name);
        free(t->volumes[v].env_name);
        free(t->volumes[v].dir);
    }
    free(t->volumes);
}

/* A job of this many tasks, or replicas, or more is freed on free_later's thread: tens of thousands of
 * frees (a 5,000-task job's ~1 ms), and often its manifest's last reference. Fewer cost less than
 * handing them over. */
#define JOB_FREE_LATER_TASKS 1000
#define JOB_FREE_LATER_REPLICAS 20000

static void job_free_now(void *arg)
{
    struct job *job = arg;
    /* The job often holds its manifest's last reference: a big tree to walk, on free_later's thread
     * when it came from a big body. The rest is freed here in a batch. */
    json_t *manifest = job->manifest_tree, *source = job->source;
    free(job->manifest_text);
    json_decref(job->kept_annotations);
    free(job->stored_status);
    free_batch_begin();
    for (int t = 0; t < job->ntasks; t++)
        task_spec_free(&job->tasks[t]);
    free(job->tasks);
    for (int32_t i = 0; job->replicas && i < job->total_replicas; i++) {
        free(job->replicas[i].message);
        free(job->replicas[i].cpus);
    }
    free(job->replicas);
    free(job->task_first);
    free(job->task_counts);
    free(job->ns);
    free(job->name);
    free(job->key);
    free(job->queue);
    free(job->scheduler_name);
    free(job->priority_class);
    free(job->policies);
    free(job->remote_ref);
    free(job->status.reason);
    free(job->status.message);
    free(job->pg.unschedulable);
    free(job);
    free_batch_end();
    json_decref_later(manifest);
    json_decref_later(source);
}

void job_free(struct job *job)
{
    if (!job)
        return;
    if ((job->ntasks >= JOB_FREE_LATER_TASKS || job->total_replicas >= JOB_FREE_LATER_REPLICAS) &&
        free_later(job_free_now, job))
        return;
    job_free_now(job);
}

int job_task_of(const struct job *job, int flat_index)
{
    int lo = 0, hi = job->ntasks - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (job->task_first[mid] <= flat_index)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static int32_t *count_of(struct task_counts *c, enum pod_phase phase)
{
    switch (phase) {
    case POD_PENDING: return &c->pending;
    case POD_RUNNING: return &c->running;
    case POD_SUCCEEDED: return &c->succeeded;
    case POD_FAILED: return &c->failed;
    case POD_ABSENT: return &c->absent;
    default: return &c->unknown;
    }
}

void job_set_replica_phase(struct job *job, int flat, enum pod_phase phase)
{
    struct replica *r = &job->replicas[flat];
    struct task_counts *c = &job->task_counts[job_task_of(job, flat)];
    if (r->stopping && phase != POD_RUNNING) {
        r->stopping = false;
        c->stopping--;
        assert(c->stopping >= 0);
    }
    int32_t *from = count_of(c, (enum pod_phase)r->phase);
    (*from)--;
    assert(*from >= 0); /* a task's counts by phase never go negative */
    (*count_of(c, phase))++;
    r->phase = (uint8_t)phase;
}

void job_set_replica_stopping(struct job *job, int flat, bool stopping)
{
    struct replica *r = &job->replicas[flat];
    if (r->stopping == stopping || r->phase != POD_RUNNING)
        return;
    r->stopping = stopping;
    job->task_counts[job_task_of(job, flat)].stopping += stopping ? 1 : -1;
    assert(job->task_counts[job_task_of(job, flat)].stopping >= 0);
}

int32_t job_ready_count(const struct job *job)
{
    int32_t n = 0;
    for (int t = 0; t < job->ntasks; t++)
        n += job->task_counts[t].running - job->task_counts[t].stopping + job->task_counts[t].succeeded;
    return n;
}

void job_count_replicas(struct job *job)
{
    struct job_status *s = &job->status;
    s->pending = s->running = s->succeeded = s->failed = s->unknown = s->terminating = 0;
    for (int t = 0; t < job->ntasks; t++) {
        const struct task_counts *c = &job->task_counts[t];
        s->pending += c->pending;
        s->running += c->running - c->stopping;
        s->terminating += c->stopping;
        s->succeeded += c->succeeded;
        s->failed += c->failed;
        s->unknown += c->unknown;
    }
}

const char *job_pod_name(const struct job *job, int task, int index, char *buf, int len)
{
    snprintf(buf, (size_t)len, "%s-%s-%d", job->name, job->tasks[task].name, index);
    return buf;
}

int job_parse_pod_name(const struct job *job, const char *pod, int *task, int *index)
{
    size_t jl = strlen(job->name);
    if (strncmp(pod, job->name, jl) != 0 || pod[jl] != '-')
        return -1;
    const char *rest = pod + jl + 1;
    for (int t = 0; t < job->ntasks; t++) {
        size_t tl = strlen(job->tasks[t].name);
        if (strncmp(rest, job->tasks[t].name, tl) != 0 || rest[tl] != '-')
            continue;
        const char *digits = rest + tl + 1;
        if (!isdigit((unsigned char)digits[0]) || (digits[0] == '0' && digits[1] != '\0'))
            continue;
        char *end;
        long idx = strtol(digits, &end, 10);
        if (*end != '\0' || idx < 0 || idx >= job->tasks[t].replicas)
            continue;
        *task = t;
        *index = (int)idx;
        return 0;
    }
    return -1;
}

int job_relayout(struct job *job, const int32_t *counts, int32_t *old_to_new)
{
    int64_t total = 0;
    for (int t = 0; t < job->ntasks; t++)
        total += counts[t];
    if (total > INT32_MAX)
        return -1;
    struct replica *replicas = calloc((size_t)(total > 0 ? total : 1), sizeof *replicas);
    if (!replicas)
        return -1;
    for (int32_t i = 0; i < job->total_replicas; i++)
        old_to_new[i] = -1;
    int32_t at = 0;
    for (int t = 0; t < job->ntasks; t++) {
        int32_t first = job->task_first[t], old_n = job->tasks[t].replicas;
        struct task_counts *c = &job->task_counts[t];
        *c = (struct task_counts){0};
        job->task_first[t] = at;
        for (int32_t i = 0; i < counts[t]; i++, at++) {
            struct replica *r = &replicas[at];
            if (i < old_n) {
                *r = job->replicas[first + i];
                old_to_new[first + i] = at;
            } else {
                *r = (struct replica){.phase = POD_ABSENT, .node = -1, .proc = -1};
            }
            (*count_of(c, (enum pod_phase)r->phase))++;
            c->stopping += r->stopping;
        }
        for (int32_t i = counts[t]; i < old_n; i++) {
            free(job->replicas[first + i].message);
            free(job->replicas[first + i].cpus);
        }
        job->tasks[t].replicas = counts[t];
    }
    free(job->replicas);
    job->replicas = replicas;
    job->total_replicas = at;
    return 0;
}
