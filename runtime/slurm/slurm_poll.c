/* The Slurm backend's poller: each round one GET /jobs, then every followed job's rank files, reported
 * as BACKEND_POD updates when a replica changed; a job gone from Slurm unasked is BACKEND_GONE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/fs.h"
#include "common/log.h"
#include "runtime/slurm/slurm_internal.h"

#define RANK_FILE_MAX 4096
#define MISSING_POLLS 3 /* rounds without the job before GET /job/{id} decides it is gone */
/* A rank's failure written this close to (or after) the moment GET /jobs was asked waits a round: the
 * list may predate the scancel that killed it, which the next list shows as CANCELLED. */
#define FAILURE_SETTLE_MS 500

struct slurm_tracked *slurm_track(struct slurm_backend *b, const char *uid, uint32_t job_id, uint32_t attempt,
                                  const struct slurm_task_plan *tasks, int ntasks)
{
    struct slurm_tracked *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    snprintf(t->uid, sizeof t->uid, "%s", uid);
    snprintf(t->ref, sizeof t->ref, "%u", job_id);
    t->job_id = job_id;
    t->attempt = attempt;
    t->ntasks = ntasks;
    for (int i = 0; i < ntasks; i++) {
        t->tasks[i] = tasks[i];
        t->nranks += tasks[i].replicas;
    }
    size_t n = t->nranks > 0 ? (size_t)t->nranks : 1;
    t->views = calloc(n, sizeof *t->views);
    t->reported = calloc(n, sizeof *t->reported);
    t->running_reported = calloc(n, sizeof *t->running_reported);
    if (!t->views || !t->reported || !t->running_reported) {
        free(t->views);
        free(t->reported);
        free(t->running_reported);
        free(t);
        return NULL;
    }
    struct slurm_tracked **end = &b->jobs;
    while (*end)
        end = &(*end)->next;
    *end = t;
    return t;
}

struct slurm_tracked *slurm_tracked_find(struct slurm_backend *b, const char *uid, uint32_t job_id)
{
    for (struct slurm_tracked *t = b->jobs; t; t = t->next)
        if (t->job_id == job_id && strcmp(t->uid, uid) == 0)
            return t;
    return NULL;
}

static void tracked_free(struct slurm_tracked *t)
{
    free(t->views);
    free(t->reported);
    free(t->running_reported);
    free(t);
}

void slurm_tracked_free_all(struct slurm_backend *b)
{
    while (b->jobs) {
        struct slurm_tracked *t = b->jobs;
        b->jobs = t->next;
        tracked_free(t);
    }
}

void slurm_untrack_uid(struct slurm_backend *b, const char *uid)
{
    for (struct slurm_tracked **p = &b->jobs; *p;) {
        struct slurm_tracked *t = *p;
        if (strcmp(t->uid, uid) == 0) {
            *p = t->next;
            tracked_free(t);
        } else
            p = &t->next;
    }
}

static bool terminal(enum backend_pod_phase p) { return p == BACKEND_POD_SUCCEEDED || p == BACKEND_POD_FAILED; }

/* One replica: its rank file with its component's state; reports a change (a Running first when the
 * rank started and ended between two rounds). */
static void poll_rank(struct slurm_backend *b, struct slurm_tracked *t, int task, int index,
                      const struct slurm_job_info *job, int64_t listed_ms)
{
    int r = t->tasks[task].first_rank + index;
    char path[700];
    slurm_rank_path(b->work_dir, t->uid, t->ref, t->tasks[task].name, index, path, sizeof path);
    char *text = NULL;
    size_t len;
    if (read_file(path, RANK_FILE_MAX, &text, &len) != 0)
        text = NULL;
    struct slurm_rank_file rf;
    slurm_rank_file_parse(text, &rf);
    free(text);
    if (rf.ended && rf.status != 0 && !t->stopping && job && !slurm_state_final(job->state) &&
        rf.end_ms > listed_ms - FAILURE_SETTLE_MS)
        return; /* newer than the list: said next round, with the job's state that explains it */
    struct slurm_replica_view v;
    slurm_replica_view(&rf, job, t->stopping, &v);
    if (t->reported[r] && !slurm_replica_view_changed(&t->views[r], &v))
        return;
    if (terminal(v.phase) && rf.started && !t->running_reported[r]) {
        struct slurm_replica_view running = {.phase = BACKEND_POD_RUNNING, .start_ms = rf.start_ms};
        snprintf(running.node, sizeof running.node, "%s", rf.node);
        slurm_post(b, slurm_replica_update(t->uid, t->ref, t->tasks[task].name, index, t->attempt, &running));
        t->running_reported[r] = true;
    }
    slurm_post(b, slurm_replica_update(t->uid, t->ref, t->tasks[task].name, index, t->attempt, &v));
    t->views[r] = v;
    t->reported[r] = true;
    if (v.phase == BACKEND_POD_RUNNING)
        t->running_reported[r] = true;
}

/* Every replica of one job; returns true when all of them are over. jobs: its components by offset
 * (NULL entries: unknown; all NULL: Slurm no longer knows it). */
static bool poll_job(struct slurm_backend *b, struct slurm_tracked *t, const struct slurm_job_info *const *comps,
                     int64_t listed_ms)
{
    bool over = true;
    for (int task = 0; task < t->ntasks; task++) {
        const struct slurm_job_info *job = comps[t->tasks[task].component] ? comps[t->tasks[task].component] : comps[0];
        for (int i = 0; i < t->tasks[task].replicas; i++) {
            poll_rank(b, t, task, i, job, listed_ms);
            over = over && terminal(t->views[t->tasks[task].first_rank + i].phase);
        }
    }
    return over;
}

/* A job missing from GET /jobs: 1 when Slurm says it has no such job, 0 when it does (filled), -1 when
 * slurmrestd did not answer. */
static int confirm_missing(struct slurm_backend *b, struct slurm_tracked *t, struct slurm_job_info *infos, int max,
                           int *n)
{
    char err[512];
    int rc = slurm_rest_job(&b->rest, t->job_id, infos, max, err, sizeof err);
    slurm_note_reach(b, rc < 0 ? rc : 0, err);
    if (rc == SLURM_REST_UNREACHABLE)
        return -1;
    if (rc < 1)
        return 1;
    *n = rc < max ? rc : max;
    return 0;
}

/* Whether a Slurm job carries uid's comment (what adopt checks a stored job id against). */
static bool owned_by(const struct slurm_job_info *j, const char *uid)
{
    char want[160];
    snprintf(want, sizeof want, "%s=%s/", BACKEND_UID_LABEL, uid);
    return strncmp(j->comment, want, strlen(want)) == 0;
}

void slurm_poll(struct slurm_backend *b)
{
    char err[512];
    struct slurm_job_info *infos;
    int64_t listed_ms = clock_wall_ms(); /* the list shows Slurm as it was at this moment or later */
    int n = slurm_rest_jobs(&b->rest, &infos, err, sizeof err);
    slurm_note_reach(b, n < 0 ? n : 0, err);
    if (n < 0) {
        if (n != SLURM_REST_UNREACHABLE)
            log_limited(LOG_WARN, "slurm-poll", "slurm: GET /jobs: %s", err);
        return;
    }
    for (struct slurm_tracked **p = &b->jobs; *p;) {
        struct slurm_tracked *t = *p;
        if (t->cancel_owed) {
            int rc = slurm_rest_cancel(&b->rest, t->job_id, 0, err, sizeof err);
            slurm_note_reach(b, rc, err);
            t->cancel_owed = rc == SLURM_REST_UNREACHABLE;
        }
        const struct slurm_job_info *comps[SLURM_PLAN_MAX_TASKS] = {0};
        bool found = false;
        for (int i = 0; i < n; i++) {
            const struct slurm_job_info *j = &infos[i];
            if ((j->job_id == t->job_id || j->het_job_id == t->job_id) && j->het_job_offset < SLURM_PLAN_MAX_TASKS) {
                comps[j->het_job_offset] = j;
                found = true;
            }
        }
        struct slurm_job_info own[SLURM_PLAN_MAX_TASKS];
        bool gone = false;
        if (found && comps[0] && !owned_by(comps[0], t->uid)) { /* the id names another job now */
            found = false;
            memset(comps, 0, sizeof comps);
            t->missing = MISSING_POLLS;
            gone = true;
        }
        if (!found && !gone && ++t->missing >= MISSING_POLLS) {
            int count = 0;
            int c = confirm_missing(b, t, own, SLURM_PLAN_MAX_TASKS, &count);
            if (c < 0) {
                p = &t->next;
                continue;
            }
            gone = c == 1 || (count > 0 && !owned_by(&own[0], t->uid));
            for (int i = 0; i < count && !gone; i++)
                if (own[i].het_job_offset < SLURM_PLAN_MAX_TASKS)
                    comps[own[i].het_job_offset] = &own[i];
        } else if (!found && !gone) {
            p = &t->next;
            continue;
        } else
            t->missing = 0;
        /* Gone, or cancelled by someone else (scancel): said before the ranks' ends, so the job fails
         * as deleted behind Caldera's back rather than going through its policies. */
        bool cancelled = comps[0] && comps[0]->state == SLURM_STATE_CANCELLED;
        if ((gone || cancelled) && !t->stopping) {
            struct backend_update *u = backend_update_new(BACKEND_GONE, t->uid, t->ref);
            if (u)
                snprintf(u->message, sizeof u->message, "Slurm job %u %s", t->job_id,
                         gone ? "is gone and Caldera did not cancel it" : "was cancelled outside Caldera");
            slurm_post(b, u);
            t->stopping = true; /* said once */
        }
        bool over = poll_job(b, t, comps, listed_ms);
        if (over || gone) {
            *p = t->next;
            tracked_free(t);
        } else
            p = &t->next;
    }
    free(infos);
}
