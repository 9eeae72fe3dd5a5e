/* A sample of every queue that has arrived: the requests its running replicas hold (the pods
 * count left out) and how many of its jobs are Running and Pending. */
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/render.h"
#include "tools/simulate/sim_internal.h"

static int queue_index(const struct sim *s, const char *name)
{
    for (int i = 0; i < s->nqueues; i++)
        if (strcmp(s->queues[i].name, name) == 0)
            return i;
    return -1;
}

int sim_sample_queues(struct sim *s)
{
    int32_t *running = calloc((size_t)s->nqueues + 1, sizeof *running);
    int32_t *pending = calloc((size_t)s->nqueues + 1, sizeof *pending);
    int rc = running && pending ? 0 : -1;
    for (const struct job *job = s->cluster.first; rc == 0 && job; job = job->next) {
        int q = job->deleted ? -1 : queue_index(s, job->queue);
        if (q >= 0 && job->status.phase == JOB_RUNNING)
            running[q]++;
        else if (q >= 0 && job->status.phase == JOB_PENDING)
            pending[q]++;
    }
    for (int i = 0; rc == 0 && i < s->nqueues; i++) {
        const struct queue *q = s->queues[i].queue;
        if (!q)
            continue;
        struct resvec allocated = q->allocated, deserved = q->fair_share;
        allocated.v[RES_PODS] = deserved.v[RES_PODS] = 0;
        json_t *sample = json_pack("{s:o, s:o, s:o, s:i, s:i}", "t", sim_seconds(s->now_ms), "allocated",
                                   render_resources(&allocated, false), "deserved", render_resources(&deserved, false),
                                   "running_jobs", running[i], "pending_jobs", pending[i]);
        if (json_array_append_new(s->queues[i].samples, sample) != 0)
            rc = -1;
    }
    free(running);
    free(pending);
    return rc;
}
