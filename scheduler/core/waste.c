/* The WatchDog's waste notices on the core thread: once per waste.period a running job's attempts are
 * read (CPU time and peak memory from their cgroups, GPU utilisation from the sampling rounds the core
 * already sums); a job using under waste.fraction of its request of any of them gets a Warning Event
 * ResourceWaste and a notice naming requested against used, once. */
#include <stdio.h>
#include <string.h>

#include "common/duration.h"
#include "common/sbuf.h"
#include "runtime/cgroup/cgroup.h"
#include "scheduler/core/internal.h"

#define TICK_MS 1000

/* What a job's running attempts hold and have used: sums over them now. */
struct job_reading {
    int replicas;
    int64_t cpu_request, memory_request, gpu_request; /* millicores, bytes, devices */
    int64_t cpu_usec, memory_peak;
    bool memory_known;
    double gpu_util_sum;
    int64_t gpu_rounds;
};

static void read_job(struct core *c, struct job *job, struct job_reading *out)
{
    memset(out, 0, sizeof *out);
    out->memory_known = true;
    for (int flat = 0; flat < job->total_replicas; flat++) {
        const struct replica *r = &job->replicas[flat];
        if (r->phase != POD_RUNNING || r->proc < 0 || r->proc >= c->nslots || c->slots[r->proc].job != job)
            continue;
        const struct proc_slot *s = &c->slots[r->proc];
        const struct task_spec *ts = &job->tasks[job_task_of(job, flat)];
        out->replicas++;
        out->cpu_request += ts->request.v[RES_CPU];
        out->memory_request += ts->request.v[RES_MEMORY];
        out->gpu_request += ts->request.v[RES_GPU];
        struct cgroup_usage u = {0};
        if (s->proc.cgroup_name[0])
            cgroup_read_usage(s->proc.cgroup_name, &u);
        out->cpu_usec += u.cpu_usec;
        out->memory_peak += u.peak_memory;
        if (u.peak_memory <= 0)
            out->memory_known = false;
        out->gpu_util_sum += s->gpu.util_sum;
        out->gpu_rounds += s->gpu.rounds;
    }
}

/* Appends "cpu: requested 4, used 0.31 (8%)" style figures for each resource under the fraction;
 * returns how many. */
static int under_fraction(const struct job_reading *now, const struct job_watchdog *then, int64_t period_ms,
                          double fraction, struct sbuf *msg)
{
    int n = 0;
    if (now->cpu_request > 0 && period_ms > 0) {
        int64_t used_usec = now->cpu_usec > then->cpu_usec ? now->cpu_usec - then->cpu_usec : 0;
        double used_m = (double)used_usec / (double)period_ms; /* usec per ms = millicores */
        if (used_m < fraction * (double)now->cpu_request) {
            sbuf_printf(msg, "%scpu: requested %g, used %.3g (%.0f%%)", n++ ? "; " : "", now->cpu_request / 1000.0,
                        used_m / 1000.0, 100.0 * used_m / (double)now->cpu_request);
        }
    }
    if (now->memory_request > 0 && now->memory_known &&
        (double)now->memory_peak < fraction * (double)now->memory_request) {
        char req[32], used[32];
        resource_format(RES_MEMORY, now->memory_request, req, sizeof req);
        resource_format(RES_MEMORY, now->memory_peak, used, sizeof used);
        sbuf_printf(msg, "%smemory: requested %s, peak %s (%.0f%%)", n++ ? "; " : "", req, used,
                    100.0 * (double)now->memory_peak / (double)now->memory_request);
    }
    int64_t rounds = now->gpu_rounds - then->gpu_rounds;
    if (now->gpu_request > 0 && rounds > 0) {
        double util = (now->gpu_util_sum - then->gpu_util_sum) / (double)rounds; /* mean percent */
        if (util / 100.0 < fraction)
            sbuf_printf(msg, "%snvidia.com/gpu: requested %lld, mean utilisation %.0f%%", n++ ? "; " : "",
                        (long long)now->gpu_request, util);
    }
    return n;
}

static void start_period(struct job *job, const struct job_reading *now, int64_t at)
{
    job->watchdog.waste_since_ms = at;
    job->watchdog.cpu_usec = now->cpu_usec;
    job->watchdog.gpu_util_sum = now->gpu_util_sum;
    job->watchdog.gpu_rounds = now->gpu_rounds;
}

static void check_job(struct core *c, struct job *job, const struct watchdog_conf *w, int64_t now)
{
    struct job_reading r;
    if (job->watchdog.waste_since_ms == 0) {
        read_job(c, job, &r);
        start_period(job, &r, now);
        return;
    }
    int64_t period = now - job->watchdog.waste_since_ms;
    if (period < w->waste_period_ms)
        return;
    read_job(c, job, &r);
    struct sbuf msg = {0};
    int n = r.replicas > 0 ? under_fraction(&r, &job->watchdog, period, w->waste_fraction, &msg) : 0;
    if (n > 0 && !msg.failed) {
        char text[1024], waited[32];
        snprintf(text, sizeof text, "under %g%% of its request for %s: %s", w->waste_fraction * 100,
                 duration_text(period, waited, sizeof waited), sbuf_str(&msg));
        job->watchdog.waste_noticed = true;
        controller_record_job_event(&c->ctl, job, "ResourceWaste", text);
        controller_notify(&c->ctl, job, NOTICE_WASTE, "ResourceWaste", NULL, NULL, text);
    }
    sbuf_free(&msg);
    start_period(job, &r, now);
}

void core_waste_tick(struct core *c)
{
    const struct watchdog_conf *w = c->ctl.watchdog;
    int64_t now = c->ctl.now_ms;
    if (!w || w->waste_fraction <= 0 || c->stopping || now - c->waste_checked_ms < TICK_MS)
        return;
    c->waste_checked_ms = now;
    for (struct job *job = c->cluster.active_first; job; job = job->active_next) {
        if (job->deleted || job->watchdog.waste_noticed || job->status.phase != JOB_RUNNING) {
            job->watchdog.waste_since_ms = 0;
            continue;
        }
        check_job(c, job, w, now);
    }
}
