/* What preempt and reclaim share: finding, for a starving job's pending replicas, nodes where
 * evicting some running replicas would make room, as one statement kept only if the job's gang
 * can then run. */
#ifndef CALDERA_EVICTION_H
#define CALDERA_EVICTION_H

#include "scheduler/framework/session.h"

enum eviction_kind {
    EVICT_PREEMPT, /* victims from the same queue, filtered by session_preemptable */
    EVICT_RECLAIM, /* victims from other, reclaimable queues, filtered by session_reclaimable */
};

/* Makes room for job by evicting; returns true when it committed (the job is then pipelined: its
 * replicas bind once the victims are gone). */
bool evict_for_job(struct session *ssn, struct job_info *job, enum eviction_kind kind);

#endif
