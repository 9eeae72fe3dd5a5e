/* The simulator's state shared by its files: the cluster and controller it drives, the event heap,
 * the virtual processes standing in for replicas, and what it records per job and queue. */
#ifndef CALDERA_SIMULATE_SIM_INTERNAL_H
#define CALDERA_SIMULATE_SIM_INTERNAL_H

#include "common/hashmap.h"
#include "scheduler/controller/controller.h"
#include "tools/simulate/event_heap.h"
#include "tools/simulate/sim.h"

/* Virtual time 0 on the controller's clock: 2026-01-01T00:00:00Z. The controller reads a time of
 * 0 as "never", so the virtual clock cannot start there. */
#define SIM_EPOCH_MS 1767225600000LL
/* Scheduling rounds at one instant (each after evicted replicas ended) before giving up. */
#define SIM_MAX_ROUNDS 10000
/* What a stopped replica exits with: SIGKILL. */
#define SIM_KILL_SIGNAL 9

/* A replica's attempt as the simulator runs it: no process, an end time in the event heap. */
struct sim_proc {
    struct job *job;
    int32_t flat;
    uint32_t gen; /* bumped when a stop moves its end: exit events of older generations are stale */
    bool live;
    int32_t exit_code;
    int signal;
};

struct sim_job {
    char *name, *ns, *queue; /* for the output, whatever becomes of the job */
    int64_t arrival_ms, duration_ms;
    int32_t exit_code;
    char uid[UUID_STR_LEN]; /* given at admission, in trace order (ties in creation time go by uid) */
    struct job *job;        /* the live job once admitted (the cluster owns it) */
    bool arrived;
    char *rejected;           /* admission's message when it refused the job */
    int64_t start_ms, end_ms; /* PodGroup first Running, job final; -1 when not (yet) */
    int32_t attempts;         /* replica attempts started, over every job version */
    int32_t evictions;        /* replicas the scheduler evicted */
};

struct sim_queue {
    char *name;
    int32_t weight;            /* as declared; the live queue's once it arrived */
    const struct queue *queue; /* the live queue once it arrived */
    json_t *samples;
};

struct sim {
    const char *file;
    struct trace trace; /* what is still to arrive */
    struct cluster cluster;
    struct controller ctl;
    struct zone_table *zones;
    struct event_heap heap;
    int64_t now_ms; /* virtual time */

    struct sim_proc *procs;
    int nprocs, procs_cap, live_procs;
    struct sim_job *jobs; /* in trace order */
    int njobs;
    struct sim_queue *queues; /* `default` first unless the trace declares it, then the trace's */
    int nqueues;
    struct hmap jobs_by_ptr; /* struct job * -> struct sim_job * */
    struct hmap jobs_by_uid;
    json_t *events; /* NULL unless asked for */

    int pending_arrivals;
    int64_t timer_at;   /* when the pending SIM_EVENT_TIMER fires, -1 when none is pending */
    int arriving;       /* trace index of the job being admitted (names its uid) */
    bool in_cycle;      /* stops now are the scheduler's evictions */
    bool out_of_memory; /* an op could not record what it did */
    int64_t end_ms;
    const char *stopped; /* "finished", "stalled", "until", "limit" */
};

/* Virtual processes (sim_procs.c). */
void sim_install_ops(struct sim *s);
/* Ends the attempt an exit event names, through controller_replica_exited. Returns false when
 * the event is stale (a stop moved that end). */
bool sim_deliver_exit(struct sim *s, const struct sim_event *ev);

/* Arrivals (sim_arrivals.c), through the controller as the API's requests go. A job admission
 * refuses is recorded as Rejected; a priority class, quota or queue the controller refuses makes
 * the trace wrong. Return 0, -1 (out of memory) or SIM_TRACE_REFUSED, with a sentence in err. */
int sim_object_arrives(struct sim *s, int index, char *err, size_t errlen);
int sim_queue_arrives(struct sim *s, int index, char *err, size_t errlen);
int sim_job_arrives(struct sim *s, int index, char *err, size_t errlen);

/* Takes the controller's journal entries: job starts and ends, and events when asked. Returns how
 * many there were, or -1 when memory ran out. */
int sim_drain_journal(struct sim *s);

/* Records every arrived queue's allocation and job counts now (sim_sample.c). */
int sim_sample_queues(struct sim *s);

/* Virtual milliseconds as JSON seconds: 60 or 1.5 (sim_render.c). */
json_t *sim_seconds(int64_t ms);

#endif
