/* The controller's process operations, simulated: a start books the attempt's end at now + the
 * job's duration, a stop moves that end to now as a SIGKILL, and nothing is ever lost. */
#include <stdio.h>
#include <stdlib.h>

#include "common/grow.h"
#include "tools/simulate/sim_internal.h"

#define KILLED_EXIT_CODE (128 + SIM_KILL_SIGNAL)

static int new_proc(struct sim *s)
{
    if (GROW(s->procs, s->procs_cap, (size_t)s->nprocs + 1, 64) != 0)
        return -1;
    return s->nprocs++;
}

static int op_start(void *ctx, struct job *job, int flat, const struct attempt_spec *spec, struct attempt_started *out,
                    char *why, size_t why_len)
{
    struct sim *s = ctx;
    struct sim_job *sj = ptrmap_get(&s->jobs_by_ptr, job);
    (void)spec; /* nothing runs: the command, environment and paths are the real server's business */
    if (!sj) {
        snprintf(why, why_len, "the simulator has no record of job %s/%s", job->ns, job->name);
        return -1;
    }
    int i = new_proc(s);
    if (i < 0 || event_heap_push(&s->heap, s->now_ms + sj->duration_ms, SIM_EVENT_EXIT, i, 0) != 0) {
        if (i >= 0)
            s->nprocs--;
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    s->procs[i] = (struct sim_proc){job, flat, 0, true, sj->exit_code, 0};
    s->live_procs++;
    sj->attempts++;
    job->replicas[flat].proc = i;
    out->pid = i + 1; /* stable from run to run, so event messages are too */
    out->pid_start = 0;
    return 1;
}

static void op_stop(void *ctx, struct job *job, int flat, int grace_ms)
{
    struct sim *s = ctx;
    int32_t i = job->replicas[flat].proc;
    (void)grace_ms; /* a simulated replica honours SIGTERM at once */
    if (i < 0 || i >= s->nprocs || s->procs[i].job != job || s->procs[i].flat != flat || !s->procs[i].live)
        return;
    struct sim_proc *p = &s->procs[i];
    p->exit_code = KILLED_EXIT_CODE;
    p->signal = SIM_KILL_SIGNAL;
    p->gen++;
    if (event_heap_push(&s->heap, s->now_ms, SIM_EVENT_EXIT, i, p->gen) != 0)
        s->out_of_memory = true;
    struct sim_job *sj = ptrmap_get(&s->jobs_by_ptr, job);
    if (sj && s->in_cycle)
        sj->evictions++;
}

/* Jobs created at the same instant are ordered by uid: uids in trace order keep that order stable
 * from run to run (the server's are random). */
static void op_new_uid(void *ctx, char out[UUID_STR_LEN])
{
    const struct sim *s = ctx;
    snprintf(out, UUID_STR_LEN, "00000000-0000-4000-8000-%012x", (unsigned)s->arriving + 1);
}

void sim_install_ops(struct sim *s) { s->ctl.ops = (struct controller_ops){s, op_start, op_stop, NULL, op_new_uid}; }

bool sim_deliver_exit(struct sim *s, const struct sim_event *ev)
{
    struct sim_proc *p = &s->procs[ev->ref];
    if (!p->live || p->gen != ev->gen)
        return false;
    p->live = false;
    s->live_procs--;
    struct replica_exit ex = {p->exit_code, p->signal, false, SIM_EPOCH_MS + ev->time_ms};
    controller_replica_exited(&s->ctl, p->job, p->flat, &ex);
    return true;
}
