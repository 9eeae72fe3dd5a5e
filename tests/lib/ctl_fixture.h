/* The job controller under test without processes: Jobs parsed from YAML as the API parses them,
 * admitted, scheduled by the real cycle on nodes made here, and "run" by fake ops that record what
 * was started and stopped. A test ends attempts by hand and moves the clock to fire timers. */
#ifndef CALDERA_CTL_FIXTURE_H
#define CALDERA_CTL_FIXTURE_H

#include "scheduler/controller/controller.h"
#include "scheduler/core/cycle.h"

#define CTL_FIXTURE_MAX_PROCS 256

struct ctl_proc {
    struct job *job;
    int flat;
    bool live, stop_sent;
    struct attempt_spec spec; /* strings are not kept: only the numbers */
};

struct ctl_fixture {
    struct cluster cluster;
    struct controller ctl;
    struct sched_conf conf;
    struct zone_table *zones;
    struct ctl_proc procs[CTL_FIXTURE_MAX_PROCS];
    int nprocs;
    int starts, stops;
    bool fail_starts;      /* the next starts fail (StartError) */
    bool async_starts;     /* starts go on "in the background" until ctlfx_finish_start() */
    int64_t started_at_ms; /* the runtime's clock each start reports (attempt_started.start_ms), 0: none */
};

/* A cluster of nnodes nodes of 8 cpu / 32Gi, the default queue, the default scheduler conf. */
void ctlfx_init(struct ctl_fixture *fx, int nnodes);
void ctlfx_free(struct ctl_fixture *fx);
/* Parses and admits a Job document (YAML); NULL when refused (the reason on stderr). */
struct job *ctlfx_submit(struct ctl_fixture *fx, const char *yaml);
/* PUT of a Job document (YAML) for job: 0, or the HTTP code of the refusal (reason on stderr). */
int ctlfx_update(struct ctl_fixture *fx, struct job *job, const char *yaml);
/* One scheduling cycle, as the core runs it. */
void ctlfx_cycle(struct ctl_fixture *fx);
/* The live process of a replica, or NULL. */
struct ctl_proc *ctlfx_proc(struct ctl_fixture *fx, struct job *job, int flat);
/* Ends the replica's running attempt: exit code, OOM kill. Returns false when nothing ran. */
bool ctlfx_exit(struct ctl_fixture *fx, struct job *job, int flat, int code, bool oom);
/* With async_starts: the background start of a replica ends, running (ok) or failing. */
bool ctlfx_finish_start(struct ctl_fixture *fx, struct job *job, int flat, bool ok);
/* Every attempt a stop was sent to exits (SIGTERM honoured: code 143). Returns how many. */
int ctlfx_settle(struct ctl_fixture *fx);
/* Moves the clock on and runs the timers that came due. */
void ctlfx_advance(struct ctl_fixture *fx, int64_t ms);
/* Drops the journal (the tests read state, not entries). Returns how many entries there were. */
int ctlfx_drain(struct ctl_fixture *fx);
/* Replicas of the job in a phase (POD_ABSENT included). */
int ctlfx_count(const struct job *job, enum pod_phase phase);

#endif
