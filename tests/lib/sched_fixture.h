/* Hand-built clusters for scheduler tests: nodes, queues and jobs made directly in the model (no
 * YAML), replicas put to running with their resources accounted as the controller would, and a
 * session run over it all. */
#ifndef CALDERA_SCHED_FIXTURE_H
#define CALDERA_SCHED_FIXTURE_H

#include "scheduler/framework/session.h"

#define GiB (1024LL * 1024 * 1024)

struct sched_fixture {
    struct cluster c;
    struct sched_conf conf;
    int64_t now_ms;
};

/* A cluster with the `default` queue and `actions` (comma-separated) over Volcano's default tiers. */
void fixture_init(struct sched_fixture *fx, const char *actions);
void fixture_free(struct sched_fixture *fx);
void fixture_node(struct sched_fixture *fx, const char *name, int64_t cpu_milli, int64_t mem);
struct queue *fixture_queue(struct sched_fixture *fx, const char *name, int32_t weight);
/* A one-task job of `replicas` replicas of cpu_milli each, gang min_available, PodGroup Inqueue. */
struct job *fixture_job(struct sched_fixture *fx, const char *name, const char *queue, int replicas, int min_available,
                        int64_t cpu_milli);
/* Puts replica `flat` of job to running on node (index), accounting node, job and queue. */
void fixture_run(struct sched_fixture *fx, struct job *job, int flat, int node, int64_t start_ms);
/* Opens, runs and closes a session over the default zone; the caller frees it. */
struct session fixture_cycle(struct sched_fixture *fx);
/* Replicas of job bound, and evicted, in a session. */
int fixture_bound(const struct session *ssn, const struct job *job);
int fixture_evicted(const struct session *ssn, const struct job *job);
const struct job_info *fixture_info(const struct session *ssn, const struct job *job);
/* Makes the cluster count every wake of a dormant job in *count and refuse it (the job stays a stub). */
void fixture_count_wakes(struct sched_fixture *fx, int *count);

#endif
