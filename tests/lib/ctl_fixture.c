/* The controller fixture: real admission, a real scheduling cycle and fake processes, so tests drive
 * a job's whole lifecycle without starting anything. */
#include "tests/lib/ctl_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "adapters/objects/queue.h"
#include "adapters/dialects/volcano/job.h"
#include "common/uuid.h"

static int op_start(void *ctx, struct job *job, int flat, const struct attempt_spec *spec, struct attempt_started *out,
                    char *why, size_t why_len)
{
    struct ctl_fixture *fx = ctx;
    if (fx->fail_starts || fx->nprocs == CTL_FIXTURE_MAX_PROCS) {
        snprintf(why, why_len, "exec: \"%s\": executable file not found in $PATH", spec->argv[0]);
        return -1;
    }
    int i = fx->nprocs++;
    fx->procs[i] = (struct ctl_proc){job, flat, true, false, *spec};
    fx->starts++;
    job->replicas[flat].proc = i;
    out->pid = 1000 + i;
    out->pid_start = 1;
    out->start_ms = fx->started_at_ms;
    return fx->async_starts ? 0 : 1;
}

static void op_stop(void *ctx, struct job *job, int flat, int grace_ms)
{
    struct ctl_fixture *fx = ctx;
    (void)grace_ms;
    struct ctl_proc *p = ctlfx_proc(fx, job, flat);
    if (p && !p->stop_sent) {
        p->stop_sent = true;
        fx->stops++;
    }
}

static void op_moved(void *ctx, struct job *job, int old_flat, int new_flat)
{
    struct ctl_fixture *fx = ctx;
    (void)old_flat;
    int32_t i = job->replicas[new_flat].proc;
    if (i >= 0 && i < fx->nprocs && fx->procs[i].job == job)
        fx->procs[i].flat = new_flat;
}

void ctlfx_init(struct ctl_fixture *fx, int nnodes)
{
    memset(fx, 0, sizeof *fx);
    for (int i = 0; i < nnodes; i++) {
        fx->cluster.nodes = realloc(fx->cluster.nodes, (size_t)(i + 1) * sizeof *fx->cluster.nodes);
        struct node *n = &fx->cluster.nodes[i];
        memset(n, 0, sizeof *n);
        char name[32];
        snprintf(name, sizeof name, "node-%d", i);
        n->name = strdup(name);
        n->labels = json_object();
        n->taints = json_array();
        n->allocatable.v[RES_CPU] = 8000;
        n->allocatable.v[RES_MEMORY] = 32LL << 30;
        n->allocatable.v[RES_PODS] = 110;
        fx->cluster.nnodes++;
    }
    sched_conf_default(&fx->conf);
    fx->zones = zone_table_build(&fx->cluster, &fx->conf);
    fx->ctl = (struct controller){.cluster = &fx->cluster,
                                  .zones = fx->zones,
                                  .data_dir = "/nonexistent/ctlfx",
                                  .now_ms = 1700000000000LL,
                                  .shutdown_grace_ms = 1000,
                                  .backoff_base_ms = 1000,
                                  .backoff_max_ms = 8000};
    fx->ctl.ops = (struct controller_ops){fx, op_start, op_stop, NULL, NULL, op_moved};
    controller_finish_recovery(&fx->ctl); /* the default queue and built-in priority classes */
    ctlfx_drain(fx);
}

void ctlfx_free(struct ctl_fixture *fx)
{
    journal_list_free(&fx->ctl.journal);
    controller_free_timers(&fx->ctl);
    zone_table_free(fx->zones);
    cluster_free(&fx->cluster);
    sched_conf_free(&fx->conf);
}

struct job *ctlfx_submit(struct ctl_fixture *fx, const char *yaml)
{
    struct api_status st = {0};
    struct intake in;
    struct job *job = NULL;
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st) != 0) {
        fprintf(stderr, "# submit: %s\n", st.message);
        return NULL;
    }
    int rc = volcano_job_from_doc(&in.docs[0], "default", &job, &st);
    intake_free(&in);
    uint64_t seq;
    if (rc != 0 || controller_create_job(&fx->ctl, job, &seq, &st) != 0) {
        fprintf(stderr, "# submit: %s\n", st.message);
        for (int i = 0; i < st.ncauses && i < API_MAX_CAUSES; i++)
            fprintf(stderr, "#   %s: %s\n", st.causes[i].field, st.causes[i].message);
        job_free(job);
        return NULL;
    }
    return job;
}

int ctlfx_update(struct ctl_fixture *fx, struct job *job, const char *yaml)
{
    struct api_status st = {0};
    struct intake in;
    struct job *upd = NULL;
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st) != 0)
        return st.code;
    int rc = volcano_job_from_doc(&in.docs[0], "default", &upd, &st);
    intake_free(&in);
    if (rc == 0)
        rc = controller_update_job(&fx->ctl, job, upd, &st);
    job_free(upd);
    ctlfx_drain(fx);
    if (rc != 0)
        fprintf(stderr, "# update: %s\n", st.message);
    return rc == 0 ? 0 : st.code;
}

void ctlfx_cycle(struct ctl_fixture *fx)
{
    struct cycle_stats stats = {0};
    schedule_cycle(&fx->ctl, &fx->conf, fx->zones, &stats);
    controller_remote_cycle(&fx->ctl); /* as the core: jobs of queues routed to an engine are sent */
    controller_sync_queues(&fx->ctl);
    ctlfx_drain(fx);
}

/* The process record of a replica, started or still starting. */
static struct ctl_proc *ctlfx_proc_any(struct ctl_fixture *fx, struct job *job, int flat)
{
    int32_t i = job->replicas[flat].proc;
    if (i < 0 || i >= fx->nprocs)
        return NULL;
    struct ctl_proc *p = &fx->procs[i];
    return p->live && p->job == job && p->flat == flat ? p : NULL;
}

struct ctl_proc *ctlfx_proc(struct ctl_fixture *fx, struct job *job, int flat)
{
    int32_t i = job->replicas[flat].proc;
    if (job->replicas[flat].pid == 0 || i < 0 || i >= fx->nprocs)
        return NULL;
    struct ctl_proc *p = &fx->procs[i];
    return p->live && p->job == job && p->flat == flat ? p : NULL;
}

static void end(struct ctl_fixture *fx, struct ctl_proc *p, int code, bool oom)
{
    p->live = false;
    struct replica_exit ex = {
        .exit_code = code, .signal = code > 128 ? code - 128 : 0, .oom = oom, .end_ms = fx->ctl.now_ms};
    controller_replica_exited(&fx->ctl, p->job, p->flat, &ex);
}

bool ctlfx_finish_start(struct ctl_fixture *fx, struct job *job, int flat, bool ok)
{
    struct ctl_proc *p = ctlfx_proc_any(fx, job, flat);
    if (!p)
        return false;
    if (ok) {
        struct attempt_started st = {
            .pid = 1000 + (int32_t)(p - fx->procs), .pid_start = 1, .start_ms = fx->started_at_ms};
        controller_attempt_started(&fx->ctl, job, flat, &st);
    } else {
        p->live = false;
        controller_attempt_failed(&fx->ctl, job, flat, "exec: \"x\": permission denied");
    }
    ctlfx_drain(fx);
    return true;
}

bool ctlfx_exit(struct ctl_fixture *fx, struct job *job, int flat, int code, bool oom)
{
    struct ctl_proc *p = ctlfx_proc(fx, job, flat);
    if (!p)
        return false;
    end(fx, p, code, oom);
    ctlfx_drain(fx);
    return true;
}

int ctlfx_settle(struct ctl_fixture *fx)
{
    int n = 0;
    for (int i = 0; i < fx->nprocs; i++) {
        if (fx->procs[i].live && fx->procs[i].stop_sent) {
            end(fx, &fx->procs[i], 143, false);
            n++;
        }
    }
    ctlfx_drain(fx);
    return n;
}

void ctlfx_advance(struct ctl_fixture *fx, int64_t ms)
{
    fx->ctl.now_ms += ms;
    controller_run_timers(&fx->ctl);
    ctlfx_drain(fx);
}

int ctlfx_drain(struct ctl_fixture *fx)
{
    int n = fx->ctl.journal.count;
    journal_list_free(&fx->ctl.journal);
    return n;
}

int ctlfx_count(const struct job *job, enum pod_phase phase)
{
    int n = 0;
    for (int32_t i = 0; i < job->total_replicas; i++)
        n += job->replicas[i].phase == phase;
    return n;
}
