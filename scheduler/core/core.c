/* The core thread: an epoll loop over the mailbox (eventfd), the scheduling period (timerfd) and
 * one pidfd per running attempt. It alone touches the cluster, so nothing inside needs a lock. */
#include "scheduler/core/core.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/grow.h"
#include "common/log.h"
#include "common/memory.h"
#include "scheduler/core/internal.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/launcher.h"
#include "runtime/loopback_probe.h"
#include "runtime/spare_files.h"
#include "scheduler/controller/companions.h"
#include "scheduler/controller/cron.h"
#include "scheduler/controller/flow.h"

#define TAG_MAILBOX 0
#define TAG_TIMER 1
#define TAG_LAUNCHER 2
#define TAG_REAPER 3
#define TAG_FIRST_SLOT 4
/* With fewer attempts than this running, the core collects their exits itself (no hand-over). */
#define HELP_REAP_BELOW 4
#define STOP_EXTRA_MS 2000 /* beyond the longest grace, before the loop gives up waiting */
#define KILL_WAIT_MS 5000  /* how long a SIGKILLed task may take to die at the very end */
#define WARM_POLL_MS 5     /* while the start waits for the store's checks to end */

/* --- process slots ------------------------------------------------------ */

static int slot_alloc(struct core *c)
{
    if (c->free_slot < 0) {
        int old = c->nslots;
        if (GROW(c->slots, c->nslots, (size_t)old + 1, 64) != 0)
            return -1;
        for (int i = old; i < c->nslots; i++)
            c->slots[i] = (struct proc_slot){.job = NULL, .next_free = i + 1 < c->nslots ? i + 1 : -1};
        c->free_slot = old;
    }
    int i = c->free_slot;
    c->free_slot = c->slots[i].next_free;
    return i;
}

static void slot_release(struct core *c, int i)
{
    if (c->slots[i].kill_at_ms)
        c->pending_kills--;
    if (c->slots[i].elsewhere)
        c->live_elsewhere--;
    c->slots[i] = (struct proc_slot){.job = NULL, .next_free = c->free_slot};
    c->free_slot = i;
    c->live_slots--;
}

static void slot_unallocate(struct core *c, int i)
{
    c->slots[i].job = NULL;
    c->slots[i].next_free = c->free_slot;
    c->free_slot = i;
}

/* A plain process attempt is ordered from the launcher's spawners (0: it reports back through
 * controller_attempt_started/failed, ARCHITECTURE.md "The process runtime"); one with pod volumes or
 * an OCI container, or any without a launcher, starts on this thread. */
static int op_start(void *ctx, struct job *job, int flat, const struct attempt_spec *spec, struct attempt_started *out,
                    char *why, size_t why_len)
{
    struct core *c = ctx;
    int i = slot_alloc(c);
    if (i < 0) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    struct proc_slot *s = &c->slots[i];
    *s = (struct proc_slot){.job = job, .flat = flat, .proc = {.pid = -1, .pidfd = -1}};
    struct attempt_copy *copy = c->launcher && attempt_copyable(spec) ? attempt_copy(spec) : NULL;
    if (copy) {
        s->starting = true;
        c->starting++;
        job->replicas[flat].proc = i;
        launcher_queue(c->launcher, i, copy);
        return 0;
    }
    if (process_start(spec, &s->proc, out, why, why_len) != 0) {
        slot_unallocate(c, i);
        return -1;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)i + TAG_FIRST_SLOT};
    if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, s->proc.pidfd, &ev) != 0)
        log_error("epoll_ctl(pidfd %d): %s", s->proc.pidfd, strerror(errno));
    c->live_slots++;
    job->replicas[flat].proc = i;
    return 1;
}

static void op_stop(void *ctx, struct job *job, int flat, int grace_ms)
{
    struct core *c = ctx;
    int i = job->replicas[flat].proc;
    if (i < 0 || i >= c->nslots || c->slots[i].job != job)
        return;
    struct proc_slot *s = &c->slots[i];
    if (!s->starting) /* else sent once it has started */
        process_signal(&s->proc, SIGTERM);
    if (!s->kill_at_ms)
        c->pending_kills++;
    s->kill_at_ms = clock_mono_ms() + (grace_ms > 0 ? grace_ms : 0);
}

/* A scale laid the job's replicas out again: the slot follows its replica. */
static void op_moved(void *ctx, struct job *job, int old_flat, int new_flat)
{
    struct core *c = ctx;
    int i = job->replicas[new_flat].proc;
    (void)old_flat;
    if (i >= 0 && i < c->nslots && c->slots[i].job == job)
        c->slots[i].flat = new_flat;
}

/* An attempt of the last run: watched again when its process still runs (a slot like any start's). */
static int op_adopt(void *ctx, struct job *job, int flat, int32_t pid, int64_t pid_start, struct replica_exit *ex)
{
    struct core *c = ctx;
    const struct replica *r = &job->replicas[flat];
    int task = job_task_of(job, flat);
    char pod[320], cgroup[512], exits[4200];
    job_pod_name(job, task, flat - job->task_first[task], pod, sizeof pod);
    controller_cgroup_name(job->uid, pod, r->attempts, cgroup, sizeof cgroup);
    controller_exits_path(&c->ctl, job->uid, exits, sizeof exits);
    struct process_adoption a = {pid, pid_start, cgroup, exits, pod, r->attempts, c->census};
    int i = slot_alloc(c);
    struct process proc;
    if (process_adopt(&a, &proc, ex) != PROCESS_ADOPTED) {
        if (i >= 0)
            slot_unallocate(c, i);
        return 0;
    }
    if (i < 0) { /* out of memory: it cannot be watched, so it cannot stay */
        process_signal(&proc, SIGKILL);
        process_forget(&proc);
        *ex = (struct replica_exit){.unknown = true, .exit_code = -1, .end_ms = clock_wall_ms()};
        return 0;
    }
    struct proc_slot *s = &c->slots[i];
    *s = (struct proc_slot){.job = job, .flat = flat, .proc = proc};
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)i + TAG_FIRST_SLOT};
    if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, s->proc.pidfd, &ev) != 0)
        log_error("epoll_ctl(pidfd %d): %s", s->proc.pidfd, strerror(errno));
    c->live_slots++;
    job->replicas[flat].proc = i;
    c->adopted++;
    return 1;
}

static void reap_slot(struct core *c, int i)
{
    struct proc_slot *s = &c->slots[i];
    struct replica_exit ex;
    if (!s->job || (s->proc.adopted ? process_reap_adopted(&s->proc, &ex) : process_reap(&s->proc, &ex)) != 0)
        return;
    ex.gpu = s->gpu;
    struct job *job = s->job;
    int flat = s->flat;
    slot_release(c, i);
    controller_replica_exited(&c->ctl, job, flat, &ex);
    c->kick = true; /* resources came free */
}

/* What the launcher did since the last look, in order: starts recorded, failures and exits handed to
 * the controller, the exits' zombies released in the next batch. */
static void take_launch_results(struct core *c)
{
    struct launch_result *r = launcher_take(c->launcher);
    int64_t now = r ? clock_wall_ms() : 0;
    if (now > c->ctl.now_ms) /* taken while settling starts: what follows an exit (a back-off) counts from now */
        c->ctl.now_ms = now;
    for (struct launch_result *next; r; r = next) {
        next = r->next;
        struct proc_slot *s = &c->slots[r->slot];
        struct job *job = s->job;
        int flat = s->flat;
        if (r->kind == LAUNCH_STARTED) {
            s->starting = false;
            s->elsewhere = true;
            s->proc = r->proc;
            c->starting--;
            c->live_slots++;
            c->live_elsewhere++;
            controller_attempt_started(&c->ctl, job, flat, &r->started);
            if (s->kill_at_ms) /* a stop came while it was starting */
                process_signal(&s->proc, SIGTERM);
        } else if (r->kind == LAUNCH_FAILED) {
            if (s->kill_at_ms)
                c->pending_kills--;
            c->starting--;
            slot_unallocate(c, r->slot);
            controller_attempt_failed(&c->ctl, job, flat, r->why);
            c->kick = true;
        } else {
            r->exit.gpu = s->gpu;
            slot_release(c, r->slot);
            controller_replica_exited(&c->ctl, job, flat, &r->exit);
            launcher_release(c->launcher, r->pidfd);
            c->kick = true;
        }
        free(r);
    }
}

/* Until every ordered start has started or failed (at most timeout_ms, < 0: no limit), exits that
 * come meanwhile handled too. Before each journal flush: an iteration's starts are recorded with the
 * changes that made them, as when they started on this thread, so nothing shows a pod Running whose
 * attempt is not in the same commit. The spawners start them while the core builds the next ones. */
static void settle_starts(struct core *c, int timeout_ms)
{
    int64_t until = clock_mono_ms() + timeout_ms;
    while (c->launcher && c->starting > 0 && (timeout_ms < 0 || clock_mono_ms() < until)) {
        while (launcher_help(c->launcher)) /* rather than wait for the spawners: one more of them */
            ;
        take_launch_results(c);
        if (c->starting > 0)
            launcher_wait(c->launcher, 100);
        take_launch_results(c);
    }
}

static void send_due_kills(struct core *c, int64_t now)
{
    if (c->pending_kills == 0)
        return;
    for (int i = 0; i < c->nslots; i++) {
        struct proc_slot *s = &c->slots[i];
        if (s->job && !s->starting && s->kill_at_ms && s->kill_at_ms <= now) {
            process_signal(&s->proc, SIGKILL);
            s->kill_at_ms = 0;
            c->pending_kills--;
        }
    }
}

static int next_timeout_ms(const struct core *c, int64_t now)
{
    int64_t wait = -1;
    int64_t timer = controller_next_timer(&c->ctl); /* on the wall clock */
    if (timer >= 0 && !c->stopping) {
        int64_t wall = clock_wall_ms();
        wait = timer > wall ? timer - wall : 0;
    }
    for (int i = 0; c->pending_kills > 0 && i < c->nslots; i++) {
        const struct proc_slot *s = &c->slots[i];
        if (s->job && !s->starting && s->kill_at_ms) {
            int64_t left = s->kill_at_ms > now ? s->kill_at_ms - now : 0;
            if (wait < 0 || left < wait)
                wait = left;
        }
    }
    if (c->stopping) {
        int64_t left = c->stop_deadline_ms > now ? c->stop_deadline_ms - now : 0;
        if (wait < 0 || left < wait)
            wait = left;
    }
    return wait > 1000000 ? 1000000 : (int)wait;
}

/* --- scheduling, journal ------------------------------------------------ */

static void run_cycle(struct core *c)
{
    struct cycle_stats stats = {0};
    int64_t started = metrics_now_ns();
    schedule_cycle(&c->ctl, &c->conf, c->zones, &stats);
    controller_remote_cycle(&c->ctl); /* jobs an engine runs: sent once admitted */
    metrics_histogram_observe(&c->cycle_seconds, metrics_now_ns() - started);
}

static void settle_starts(struct core *c, int timeout_ms);

static void flush_journal(struct core *c)
{
    settle_starts(c, -1);
    if (c->ctl.journal.count == 0)
        return;
    controller_watch_flush(&c->ctl); /* what watches are shown of this iteration's changes */
    controller_watchdog_scan(&c->ctl);
    store_append(c->store, &c->ctl.journal);
}

/* --- mailbox ------------------------------------------------------------ */

/* A posted request: the request first, so the mailbox frees the block through it. */
struct posted_request {
    struct core_request req;
    char *kind, *ns, *name, *reason, *message;
    struct gpu_sample *samples;
    struct gpu_health_change *health;
};

static void free_posted(struct core_request *req)
{
    struct posted_request *p = (struct posted_request *)req;
    json_decref(req->body);
    free(p->kind);
    free(p->ns);
    free(p->name);
    free(p->reason);
    free(p->message);
    free(p->samples);
    free(p->health);
    free(p);
}

static void answer_stopping(struct core_request *req)
{
    if (req->posted) {
        free_posted(req);
        return;
    }
    api_fail(&req->status, 503, "ServiceUnavailable", "the job server is shutting down");
    sem_post(&req->done);
}

static void begin_stop(struct core *c)
{
    c->stopping = true;
    controller_companions_stop_all(&c->ctl, c->keep_tasks); /* no companion outlives the server's watch */
    if (c->keep_tasks) {
        if (c->live_slots)
            log_info("leaving %d running task%s for the next server to adopt", c->live_slots,
                     c->live_slots == 1 ? "" : "s");
        return;
    }
    int stopped = controller_stop_all(&c->ctl);
    c->stop_deadline_ms = clock_mono_ms() + c->ctl.shutdown_grace_ms + STOP_EXTRA_MS;
    if (stopped)
        log_info("stopping %d running task%s (grace up to %d ms)", stopped, stopped == 1 ? "" : "s",
                 c->ctl.shutdown_grace_ms);
}

static void answer_refused(struct core *c, struct core_request *req)
{
    if (req->posted) {
        free_posted(req);
        return;
    }
    api_fail(&req->status, 503, "ServiceUnavailable", "the job server did not start: %s", c->refusal);
    sem_post(&req->done);
}

/* Until the start is over, a request waits in order, unless core_answer_early takes it. */
static void park(struct core *c, struct core_request *req)
{
    req->next = NULL;
    if (c->parked_tail)
        c->parked_tail->next = req;
    else
        c->parked_head = req;
    c->parked_tail = req;
}

/* One request taken from the mailbox (or from the parked ones, once the start is over). */
static void take_request(struct core *c, struct core_request *req)
{
    if (c->stopping)
        return answer_stopping(req);
    if (c->start_state < 0)
        return answer_refused(c, req);
    if (c->warming) {
        if (core_answer_early(c, req))
            sem_post(&req->done);
        else
            park(c, req);
        return;
    }
    core_handle_request(c, req);
    if (req->posted)
        free_posted(req);
    else
        sem_post(&req->done);
}

static void drain_mailbox(struct core *c)
{
    uint64_t n;
    if (read(c->mailbox_fd, &n, sizeof n) < 0 && errno != EAGAIN)
        log_warn("mailbox read: %s", strerror(errno));
    pthread_mutex_lock(&c->lock);
    struct core_request *req = c->head;
    c->head = c->tail = NULL;
    c->posted = 0; /* every posted request is taken now */
    bool stop = c->stop_requested;
    pthread_mutex_unlock(&c->lock);
    while (req) {
        struct core_request *next = req->next;
        take_request(c, req);
        req = next;
    }
    if (stop && !c->stopping && !c->warming && c->start_state > 0) /* a start not over ends on its own */
        begin_stop(c);
}

/* Appends req to the mailbox and wakes the core. False when refused: the core is stopping, or req is
 * posted and CORE_MAX_POSTED posted requests wait already. */
static bool enqueue(struct core *c, struct core_request *req)
{
    req->next = NULL;
    pthread_mutex_lock(&c->lock);
    bool refused = c->stop_requested || (req->posted && c->posted >= CORE_MAX_POSTED);
    if (!refused) {
        if (c->tail)
            c->tail->next = req;
        else
            c->head = req;
        c->tail = req;
        c->posted += req->posted;
    }
    pthread_mutex_unlock(&c->lock);
    if (refused)
        return false;
    uint64_t one = 1;
    if (write(c->mailbox_fd, &one, sizeof one) < 0)
        log_warn("mailbox write: %s", strerror(errno));
    return true;
}

int core_call(struct core *c, struct core_request *req)
{
    memset(&req->status, 0, sizeof req->status);
    req->http_code = 0;
    req->body = NULL;
    req->log_path = NULL;
    req->durable_seq = 0;
    req->posted = false;
    sem_init(&req->done, 0, 0);
    if (!enqueue(c, req)) {
        api_fail(&req->status, 503, "ServiceUnavailable", "the job server is shutting down");
        sem_destroy(&req->done);
        return -1;
    }
    while (sem_wait(&req->done) != 0 && errno == EINTR)
        ;
    sem_destroy(&req->done);
    return req->http_code ? 0 : -1;
}

int core_post_event(struct core *c, const char *kind, const char *ns, const char *name, const char *reason,
                    const char *message)
{
    struct posted_request *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    p->kind = strdup(kind);
    p->ns = strdup(ns ? ns : "");
    p->name = strdup(name ? name : "");
    p->reason = strdup(reason ? reason : "");
    p->message = strdup(message ? message : "");
    struct core_request *req = &p->req;
    if (!p->kind || !p->ns || !p->name || !p->reason || !p->message) {
        free_posted(req);
        return -1;
    }
    *req = (struct core_request){.op = CORE_RECORD_EVENT,
                                 .ns = p->ns,
                                 .name = p->name,
                                 .posted = true,
                                 .record = {.kind = p->kind, .reason = p->reason, .message = p->message}};
    if (enqueue(c, req))
        return 0;
    free_posted(req);
    return -1;
}

int core_post_touch(struct core *c, const char *ns, const char *name, int64_t now_ms)
{
    struct posted_request *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    p->ns = strdup(ns ? ns : "");
    p->name = strdup(name ? name : "");
    struct core_request *req = &p->req;
    if (!p->ns || !p->name) {
        free_posted(req);
        return -1;
    }
    *req = (struct core_request){
        .op = CORE_COMPANION_TOUCH, .ns = p->ns, .name = p->name, .posted = true, .companion = {.touch_ms = now_ms}};
    if (enqueue(c, req))
        return 0;
    free_posted(req);
    return -1;
}

int core_post_gpu_samples(struct core *c, const struct gpu_sample *samples, int n)
{
    struct posted_request *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    struct core_request *req = &p->req;
    if (n > 0 && !(p->samples = malloc((size_t)n * sizeof *p->samples))) {
        free_posted(req);
        return -1;
    }
    if (n > 0)
        memcpy(p->samples, samples, (size_t)n * sizeof *p->samples);
    *req = (struct core_request){.op = CORE_GPU_SAMPLES, .posted = true, .gpu_samples = p->samples, .ngpu_samples = n};
    if (enqueue(c, req))
        return 0;
    free_posted(req);
    return -1;
}

int core_post_gpu_health(struct core *c, const struct gpu_health_change *change)
{
    struct posted_request *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    struct core_request *req = &p->req;
    if (!(p->health = malloc(sizeof *p->health))) {
        free_posted(req);
        return -1;
    }
    *p->health = *change;
    *req = (struct core_request){.op = CORE_GPU_HEALTH, .posted = true, .gpu_health = p->health};
    if (enqueue(c, req))
        return 0;
    free_posted(req);
    return -1;
}

/* The probe thread has results: the loop takes them (controller_companions_tick, controller_flow_tick)
 * once awake. */
static void wake_core(void *ctx)
{
    struct core *c = ctx;
    uint64_t one = 1;
    if (write(c->mailbox_fd, &one, sizeof one) < 0)
        log_warn("mailbox write: %s", strerror(errno));
}

/* --- the loop ----------------------------------------------------------- */

static void handle_events(struct core *c, const struct epoll_event *evs, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t tag = evs[i].data.u64;
        if (tag == TAG_MAILBOX) {
            drain_mailbox(c);
        } else if (tag == TAG_LAUNCHER) {
            take_launch_results(c);
        } else if (tag == TAG_REAPER) {
            if (c->live_elsewhere < HELP_REAP_BELOW) /* a lone task's exit: no wait for the reaper */
                launcher_help_reap(c->launcher);
            take_launch_results(c);
        } else if (tag == TAG_TIMER) {
            uint64_t ticks;
            if (read(c->timer_fd, &ticks, sizeof ticks) > 0)
                c->kick = true;
        } else {
            reap_slot(c, (int)(tag - TAG_FIRST_SLOT));
        }
    }
}

/* A stop that keeps tasks: they run on, recorded as running, for the next server to adopt. */
static void let_go(struct core *c)
{
    settle_starts(c, KILL_WAIT_MS); /* their starts recorded; the launcher lets its own go as it stops */
    for (int i = 0; i < c->nslots; i++)
        if (c->slots[i].job)
            process_forget(&c->slots[i].proc);
}

/* At the deadline, whatever still runs is killed and waited for, so nothing outlives the server
 * by accident and every end is recorded. */
static void kill_leftovers(struct core *c)
{
    settle_starts(c, KILL_WAIT_MS);
    for (int i = 0; i < c->nslots; i++) {
        struct proc_slot *s = &c->slots[i];
        if (!s->job || s->starting)
            continue;
        process_signal(&s->proc, SIGKILL);
        if (s->elsewhere)
            continue;                              /* the reaper collects it */
        process_wait_exit(&s->proc, KILL_WAIT_MS); /* process_reap collects it */
        reap_slot(c, i);
    }
    for (int64_t until = clock_mono_ms() + KILL_WAIT_MS; c->live_elsewhere > 0 && clock_mono_ms() < until;) {
        launcher_flush(c->launcher);
        launcher_wait(c->launcher, 100);
        take_launch_results(c);
    }
}

static bool stop_was_requested(struct core *c)
{
    pthread_mutex_lock(&c->lock);
    bool stop = c->stop_requested;
    pthread_mutex_unlock(&c->lock);
    return stop;
}

/* Before the loop runs (the start not over, or refused): waits up to timeout_ms for the mailbox and
 * takes what is in it; the period's timer is read (its level would wake every wait). */
static void take_mailbox(struct core *c, int timeout_ms)
{
    struct epoll_event evs[8];
    int n = epoll_wait(c->epfd, evs, 8, timeout_ms);
    for (int i = 0; i < n; i++) {
        uint64_t ticks;
        if (evs[i].data.u64 == TAG_MAILBOX)
            drain_mailbox(c);
        else if (evs[i].data.u64 == TAG_TIMER && read(c->timer_fd, &ticks, sizeof ticks) < 0 && errno != EAGAIN)
            log_warn("timer read: %s", strerror(errno));
    }
}

static void answer_meanwhile(void *ctx) { take_mailbox(ctx, 0); }

/* The start's end on the core thread: requests are taken (most wait, parked) until the store's checks
 * are over, then the rest of the start runs and the parked requests are answered in order. Returns
 * 0 once the start is over, or -1 when it was refused (every request is refused from then on) or the
 * core was stopped first. */
static int warm_up(struct core *c)
{
    char why[512] = "the server was stopped before its start was over";
    c->ctl.restore_yield = answer_meanwhile; /* GETs answered between the batches of sleeping jobs */
    c->ctl.restore_yield_ctx = c;
    int loaded = core_load_asleep(c, why, sizeof why);
    c->ctl.restore_yield = NULL;
    bool stopped = false;
    while (loaded == 0 && !store_checks_over(c->store) && !(stopped = stop_was_requested(c)))
        take_mailbox(c, WARM_POLL_MS); /* the checks' end is polled for */
    int rc = -1;
    char refusal[512];
    if (loaded != 0 && store_confirm(c->store, refusal, sizeof refusal) != 0)
        snprintf(why, sizeof why, "%s", refusal); /* a corrupt file may fail the load too: the checks say why */
    else if (loaded == 0 && !stopped)
        rc = core_finish_start(c, why, sizeof why);
    c->warming = false;
    c->ctl.now_ms = clock_wall_ms();
    core_start_settled(c, rc == 0 ? NULL : why);
    struct core_request *req = c->parked_head;
    c->parked_head = c->parked_tail = NULL;
    while (req) {
        struct core_request *next = req->next;
        take_request(c, req);
        req = next;
    }
    return rc;
}

/* After a refused start: every request refused, until the stop. */
static void refuse_until_stopped(struct core *c)
{
    while (!stop_was_requested(c))
        take_mailbox(c, -1);
    drain_mailbox(c);
}

static void *core_main(void *arg)
{
    struct core *c = arg;
    struct epoll_event evs[64];
    pthread_setname_np(pthread_self(), "caldera-core"); /* for top -H and perf */
    cluster_claim(&c->cluster); /* from here only this thread touches it (cluster_assert_owner) */
    c->ctl.now_ms = clock_wall_ms();
    if (warm_up(c) != 0) {
        refuse_until_stopped(c);
        return NULL;
    }
    if (stop_was_requested(c))
        begin_stop(c);
    c->kick = true;
    for (;;) {
        int64_t mono = clock_mono_ms();
        if (c->launcher) /* idle, so the exits of a few attempts are its own to collect, until it is busy again */
            launcher_caller_helps(c->launcher, c->live_elsewhere < HELP_REAP_BELOW);
        int n = epoll_wait(c->epfd, evs, 64, next_timeout_ms(c, mono));
        if (n < 0 && errno != EINTR) {
            log_error("epoll_wait: %s", strerror(errno));
            break;
        }
        c->ctl.now_ms = clock_wall_ms();
        c->ctl.watch_render = watch_demand_wanted(c->watch_demand, mono);
        handle_events(c, evs, n > 0 ? n : 0);
        if (c->launcher)
            launcher_caller_helps(c->launcher, false);
        if (core_backends_drain(c) > 0)
            c->kick = true;
        core_check_store(c);
        if (!c->stopping && controller_run_timers(&c->ctl) > 0)
            c->kick = true;
        if (!c->stopping)
            controller_companions_tick(&c->ctl);
        if (!c->stopping && controller_cron_tick(&c->ctl) > 0) /* each period's wake-up at most late */
            c->kick = true;
        if (!c->stopping && controller_flow_tick(&c->ctl) > 0) /* after the exits: a step's end starts the next */
            c->kick = true;
        if (!c->stopping) {
            controller_capability_sync(&c->ctl); /* nodes or queues changed: the WatchDog's percentages */
            controller_watchdog_tick(&c->ctl);
            core_waste_tick(c);
        }
        mono = clock_mono_ms();
        send_due_kills(c, mono);
        if (c->kick && !c->stopping) {
            /* what the requests and exits changed goes to the writer first: clients waiting for
             * those commits are answered while the cycle starts tasks */
            flush_journal(c);
            c->kick = false;
            run_cycle(c);
        }
        controller_sync_queues(&c->ctl);
        memory_return_due(); /* after a big job or a long list was freed (common/memory.h) */
        if (c->stopping && c->keep_tasks) {
            let_go(c);
            flush_journal(c);
            break;
        }
        if (c->stopping && ((c->live_slots == 0 && c->starting == 0) || mono >= c->stop_deadline_ms)) {
            kill_leftovers(c);
            flush_journal(c);
            break;
        }
        flush_journal(c); /* this iteration's starts made first (settle_starts) */
        if (c->launcher)
            launcher_flush(c->launcher); /* the exits handled: their zombies to the reaper */
    }
    return NULL;
}

/* --- start and stop ----------------------------------------------------- */

static int open_fds(struct core *c, char *err, size_t errlen)
{
    c->epfd = epoll_create1(EPOLL_CLOEXEC);
    c->mailbox_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    c->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    int spawners = launcher_default_spawners();
    if (spawners > 0 && !(c->launcher = launcher_new(spawners)))
        log_warn("cannot start the launcher's threads: tasks start and are reaped on the core thread");
    if (c->epfd < 0 || c->mailbox_fd < 0 || c->timer_fd < 0) {
        snprintf(err, errlen, "cannot create the core's event descriptors: %s", strerror(errno));
        return -1;
    }
    struct itimerspec period = {
        .it_interval = {c->period_ms / 1000, (long)(c->period_ms % 1000) * 1000000L},
        .it_value = {c->period_ms / 1000, (long)(c->period_ms % 1000) * 1000000L},
    };
    struct epoll_event mev = {.events = EPOLLIN, .data.u64 = TAG_MAILBOX};
    struct epoll_event tev = {.events = EPOLLIN, .data.u64 = TAG_TIMER};
    struct epoll_event lev = {.events = EPOLLIN, .data.u64 = TAG_LAUNCHER};
    struct epoll_event rev = {.events = EPOLLIN | EPOLLET, .data.u64 = TAG_REAPER};
    if (timerfd_settime(c->timer_fd, 0, &period, NULL) != 0 ||
        epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->mailbox_fd, &mev) != 0 ||
        epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->timer_fd, &tev) != 0 ||
        (c->launcher && (epoll_ctl(c->epfd, EPOLL_CTL_ADD, launcher_fd(c->launcher), &lev) != 0 ||
                         epoll_ctl(c->epfd, EPOLL_CTL_ADD, launcher_reap_fd(c->launcher), &rev) != 0))) {
        snprintf(err, errlen, "cannot arm the core's event loop: %s", strerror(errno));
        return -1;
    }
    return 0;
}

void core_free(struct core *c)
{
    if (!c)
        return;
    for (struct core_request *req = c->head, *next; req; req = next) { /* what came after the last drain */
        next = req->next;
        answer_stopping(req);
    }
    if (c->epfd >= 0)
        close(c->epfd);
    if (c->mailbox_fd >= 0)
        close(c->mailbox_fd);
    if (c->timer_fd >= 0)
        close(c->timer_fd);
    core_backends_close(c);
    launcher_free(c->launcher);
    spare_files_stop();
    cgroup_stock_stop();
    loopback_probe_stop();
    controller_companions_free(&c->ctl);
    journal_list_free(&c->ctl.journal);
    controller_watch_free(&c->ctl);
    controller_free_timers(&c->ctl);
    free(c->ctl.recovered);
    zone_table_free(c->zones);
    cluster_free(&c->cluster);
    sched_conf_free(&c->conf);
    free(c->slots);
    free(c->gpu_last);
    free(c->data_dir);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->started);
    core_take_stored_tokens(c, NULL, NULL); /* frees any not taken */
    free(c);
}

int core_start(struct core_config *cfg, struct core **out, char *err, size_t errlen)
{
    struct core *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->started, NULL);
    c->epfd = c->mailbox_fd = c->timer_fd = -1;
    c->free_slot = -1;
    c->cluster.nodes = cfg->nodes;
    c->cluster.nnodes = cfg->nnodes;
    cfg->nodes = NULL;
    cfg->nnodes = 0;
    c->conf = cfg->conf;
    memset(&cfg->conf, 0, sizeof cfg->conf);
    c->store = cfg->store;
    c->data_dir = strdup(cfg->data_dir);
    c->period_ms = cfg->period_ms > 0 ? cfg->period_ms : 1000;
    c->keep_tasks = cfg->keep_tasks;
    c->watch_demand = cfg->watch_demand;
    c->ctl = (struct controller){
        .cluster = &c->cluster,
        .ops = {c, op_start, op_stop, op_adopt, NULL, op_moved},
        .data_dir = c->data_dir,
        .now_ms = clock_wall_ms(),
        .shutdown_grace_ms = cfg->shutdown_grace_ms > 0 ? cfg->shutdown_grace_ms : 10000,
        .backoff_base_ms = cfg->restart_backoff_ms,
        .backoff_max_ms = cfg->restart_backoff_max_ms,
        .port_first = cfg->port_first,
        .port_last = cfg->port_last,
        .gpu_uuids = cfg->gpu_uuids,
        .watchdog = cfg->watchdog,
        .notifier = cfg->notifier,
        .capability_dirty = true,
    };
    if (cfg->companion_types && controller_companions_init(&c->ctl, cfg->companion_types, cfg->companion_port_first,
                                                           cfg->companion_port_last, cfg->bin_dir) != 0) {
        snprintf(err, errlen, "out of memory");
        core_free(c);
        return -1;
    }
    c->zones = zone_table_build(&c->cluster, &c->conf);
    c->ctl.zones = c->zones;
    c->started_ms = clock_mono_ms();
    if (!c->data_dir || !c->zones || open_fds(c, err, errlen) != 0 ||
        core_backends_open(c, cfg->backends, err, errlen) != 0 || core_load_awake(c, err, errlen) != 0) {
        if (!err[0])
            snprintf(err, errlen, "cannot start the core");
        core_free(c);
        return -1;
    }
    c->awake_ms = clock_mono_ms();
    c->warming = true; /* the rest of the start is the core thread's (core_finish_start) */
    if (loopback_probe_start(wake_core, c) != 0)
        log_warn("cannot start the probe thread: companions never become Ready, flows' network probes never pass");
    if (pthread_create(&c->thread, NULL, core_main, c) != 0) {
        snprintf(err, errlen, "cannot start the core thread");
        core_free(c);
        return -1;
    }
    c->thread_started = true;
    *out = c;
    return 0;
}

void core_stop(struct core *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    c->stop_requested = true;
    pthread_mutex_unlock(&c->lock);
    uint64_t one = 1;
    if (write(c->mailbox_fd, &one, sizeof one) < 0)
        log_warn("mailbox write: %s", strerror(errno));
    if (c->thread_started) {
        pthread_join(c->thread, NULL);
        cluster_claim(&c->cluster); /* main frees it */
    }
    core_backends_close(c);
    if (process_runtime_flush(5000) != 0)
        log_warn("some tasks' cgroups are still being removed as the server stops");
}
