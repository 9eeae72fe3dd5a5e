/* A JobFlow's network probes (httpGetList, tcpSocketList) on the core's side: each handed to the
 * loopback probe thread once a target's task runs, its answer taken back as a message, dropped once
 * its step started, its task stopped running or the flow ended. The core never waits on the network. */
#include <stdatomic.h>
#include <string.h>

#include "common/log.h"
#include "runtime/loopback_probe.h"
#include "scheduler/controller/flow_internal.h"
#include "scheduler/controller/internal.h"

#define FLOW_PROBE_EVERY_MS 500

static atomic_uint_fast64_t next_id; /* the probe thread is the process's: so are its ids */

/* Whether some target of s has a pod of task Running. */
static bool task_running(const struct controller *ctl, const struct job_flow *f, const struct flow_step *s,
                         const char *task)
{
    for (int t = 0; t < s->ntargets; t++) {
        int d = s->target_idx ? s->target_idx[t] : -1;
        struct job *job = d >= 0 && f->steps[d].state != STEP_WAITING ? flow_step_job(ctl, f, &f->steps[d]) : NULL;
        for (int k = 0; job && k < job->ntasks; k++)
            if (strcmp(job->tasks[k].name, task) == 0 && job->task_counts[k].running > 0)
                return true;
    }
    return false;
}

static void drop(struct flow_net_probe *n, bool forget)
{
    if (n->id)
        loopback_probe_remove(PROBE_OWNER_FLOW, n->id);
    n->id = 0;
    if (forget)
        n->answered = false;
}

static void watch(const struct job_flow *f, const struct flow_step *s, struct flow_net_probe *n)
{
    char *headers[] = {n->header, NULL};
    uint64_t id = (uint64_t)atomic_fetch_add(&next_id, 1) + 1;
    struct loopback_probe_target t = {
        .id = id,
        .owner = PROBE_OWNER_FLOW,
        .port = n->port,
        .tcp = !n->path,
        .every_ms = FLOW_PROBE_EVERY_MS,
        .headers = n->header ? headers : NULL,
        .ready_path = n->path,
    };
    if (loopback_probe_add(&t) == 0)
        n->id = id;
    else
        log_warn("jobflow %s/%s: cannot probe port %d for flow %s (out of memory)", f->ns, f->name, n->port, s->name);
}

bool flow_net_probes_pass(const struct controller *ctl, const struct job_flow *f, struct flow_step *s)
{
    bool pass = true;
    for (int p = 0; p < s->nnets; p++) {
        struct flow_net_probe *n = &s->nets[p];
        if (!task_running(ctl, f, s, n->task)) {
            drop(n, true); /* as a readiness probe: judged again once the task runs again */
            pass = false;
            continue;
        }
        if (!n->answered && !n->id)
            watch(f, s, n);
        pass = pass && n->answered;
    }
    return pass;
}

void flow_probes_collect(struct controller *ctl)
{
    struct loopback_probe_result res[32];
    int got;
    while ((got = loopback_probe_take(PROBE_OWNER_FLOW, res, 32)) > 0)
        for (int i = 0; i < got; i++)
            for (int j = 0; j < ctl->cluster->njobflows; j++) {
                struct job_flow *f = ctl->cluster->jobflows[j];
                for (int k = 0; k < f->nsteps; k++)
                    for (int p = 0; p < f->steps[k].nnets; p++) {
                        struct flow_net_probe *n = &f->steps[k].nets[p];
                        if (n->id == res[i].id && res[i].ready) {
                            n->answered = true;
                            drop(n, false); /* it passed: nothing more to poll */
                        }
                    }
            }
}

void flow_probes_stop(struct flow_step *s, bool forget)
{
    for (int p = 0; p < s->nnets; p++)
        drop(&s->nets[p], forget);
}
