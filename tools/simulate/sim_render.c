/* The simulator's output: per job its times, phase, attempts, evictions and replicas; per queue
 * its samples; when and why the run stopped. Times in seconds; keys in the order written here. */
#include "tools/simulate/sim_internal.h"

json_t *sim_seconds(int64_t ms) { return ms % 1000 == 0 ? json_integer(ms / 1000) : json_real((double)ms / 1000.0); }

static json_t *seconds_or_null(int64_t ms) { return ms < 0 ? json_null() : sim_seconds(ms); }

static json_t *replica_json(const struct sim *s, const struct job *job, int task, int index)
{
    const struct replica *r = &job->replicas[job->task_first[task] + index];
    char pod[320];
    bool started = r->attempts > 0, ended = started && r->phase != POD_RUNNING && r->end_ms > 0;
    const char *node = r->node >= 0 && r->node < s->cluster.nnodes ? s->cluster.nodes[r->node].name : NULL;
    return json_pack("{s:s, s:o, s:o, s:o, s:i, s:s, s:o}", "pod", job_pod_name(job, task, index, pod, sizeof pod),
                     "node", node ? json_string(node) : json_null(), "start",
                     started ? sim_seconds(r->start_ms - SIM_EPOCH_MS) : json_null(), "end",
                     ended ? sim_seconds(r->end_ms - SIM_EPOCH_MS) : json_null(), "attempts", (int)r->attempts, "phase",
                     pod_phase_name((enum pod_phase)r->phase), "exit_code",
                     ended ? json_integer(r->exit_code) : json_null());
}

static json_t *replicas_json(const struct sim *s, const struct job *job)
{
    json_t *list = json_array();
    for (int t = 0; job && list && t < job->ntasks; t++)
        for (int i = 0; i < job->tasks[t].replicas; i++)
            if (json_array_append_new(list, replica_json(s, job, t, i)) != 0) {
                json_decref(list);
                return NULL;
            }
    return list;
}

static json_t *phase_json(const struct sim_job *sj)
{
    if (sj->rejected)
        return json_string("Rejected");
    return sj->job ? json_string(job_phase_name(sj->job->status.phase)) : json_null();
}

static json_t *job_json(const struct sim *s, const struct sim_job *sj)
{
    json_t *obj = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:i, s:i}", "name", sj->name, "namespace", sj->ns,
                            "queue", sj->queue, "arrival", sim_seconds(sj->arrival_ms), "start",
                            seconds_or_null(sj->start_ms), "end", seconds_or_null(sj->end_ms), "phase", phase_json(sj),
                            "attempts", (int)sj->attempts, "evictions", (int)sj->evictions);
    if (obj && sj->rejected)
        json_object_set_new(obj, "message", json_string(sj->rejected));
    if (obj && json_object_set_new(obj, "replicas", replicas_json(s, sj->job)) != 0) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

json_t *sim_render(const struct sim *s)
{
    json_t *jobs = json_array(), *queues = json_array();
    for (int i = 0; jobs && i < s->njobs; i++)
        if (json_array_append_new(jobs, job_json(s, &s->jobs[i])) != 0) {
            json_decref(jobs);
            jobs = NULL;
        }
    for (int i = 0; queues && i < s->nqueues; i++) {
        const struct sim_queue *q = &s->queues[i];
        if (json_array_append_new(queues, json_pack("{s:s, s:i, s:O}", "name", q->name, "weight", (int)q->weight,
                                                    "samples", q->samples)) != 0) {
            json_decref(queues);
            queues = NULL;
        }
    }
    json_t *out = json_pack("{s:o, s:o, s:o, s:s}", "jobs", jobs, "queues", queues, "end", sim_seconds(s->end_ms),
                            "stopped", s->stopped ? s->stopped : "finished");
    if (out && s->events && json_object_set(out, "events", s->events) != 0) {
        json_decref(out);
        return NULL;
    }
    return out;
}
