/* Laying a job's replicas out again (an elastic scale): the timers and the runtime follow each
 * replica; a scale down is laid out once its extra pods are gone. */
#include <stdlib.h>

#include "scheduler/controller/internal.h"

/* Lays the job out for counts and tells the timers and the runtime where each replica went. */
int replicas_relayout(struct controller *ctl, struct job *job, const int32_t *counts)
{
    int32_t old_total = job->total_replicas;
    int32_t *old_to_new = malloc((size_t)(old_total > 0 ? old_total : 1) * sizeof *old_to_new);
    if (!old_to_new || job_relayout(job, counts, old_to_new) != 0) {
        free(old_to_new);
        return -1;
    }
    timers_remap(ctl, job, old_to_new, old_total);
    for (int32_t old = 0; ctl->ops.moved && old < old_total; old++) {
        int32_t now = old_to_new[old];
        if (now >= 0 && now != old && job->replicas[now].proc >= 0)
            ctl->ops.moved(ctl->ops.ctx, job, old, now);
    }
    free(old_to_new);
    return 0;
}

void job_finish_shrinks(struct controller *ctl, struct job *job)
{
    bool pending = false, ready = true;
    for (int t = 0; t < job->ntasks && ready; t++) {
        const struct task_spec *ts = &job->tasks[t];
        if (ts->shrink_to < 0)
            continue;
        pending = true;
        for (int32_t i = ts->shrink_to; i < ts->replicas && ready; i++) {
            const struct replica *r = job_replica(job, t, i);
            ready = r->phase == POD_ABSENT && !r->stopping;
        }
    }
    if (!pending || !ready)
        return;
    int32_t *counts = malloc((size_t)job->ntasks * sizeof *counts);
    if (!counts)
        return;
    for (int t = 0; t < job->ntasks; t++)
        counts[t] = job->tasks[t].shrink_to >= 0 ? job->tasks[t].shrink_to : job->tasks[t].replicas;
    if (replicas_relayout(ctl, job, counts) == 0)
        for (int t = 0; t < job->ntasks; t++)
            job->tasks[t].shrink_to = -1;
    free(counts);
    job_count_replicas(job);
}
