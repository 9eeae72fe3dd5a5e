/* The controller's timers: a binary min-heap of delayed policy actions, container restarts after
 * their back-off, pods' active deadlines and finished jobs' TTL deletions, on the controller's clock;
 * timers_due.c runs the due ones when the core (or the simulator) asks. */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/log.h"
#include "scheduler/controller/internal.h"

static bool earlier(const struct controller_timer *a, const struct controller_timer *b)
{
    return a->due_ms < b->due_ms;
}

static void swap(struct controller_timer *a, struct controller_timer *b)
{
    struct controller_timer t = *a;
    *a = *b;
    *b = t;
}

static void sift_up(struct controller_timer *h, int i)
{
    while (i > 0 && earlier(&h[i], &h[(i - 1) / 2])) {
        swap(&h[i], &h[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
}

static void sift_down(struct controller_timer *h, int n, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && earlier(&h[l], &h[m]))
            m = l;
        if (r < n && earlier(&h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        swap(&h[i], &h[m]);
        i = m;
    }
}

static void remove_at(struct controller *ctl, int i)
{
    ctl->timers[i] = ctl->timers[--ctl->ntimers];
    if (i < ctl->ntimers) {
        sift_down(ctl->timers, ctl->ntimers, i);
        sift_up(ctl->timers, i);
    }
}

void timer_arm(struct controller *ctl, struct job *job, const struct controller_timer *t)
{
    if (GROW(ctl->timers, ctl->timers_cap, (size_t)ctl->ntimers + 1, 16) != 0) {
        log_error("out of memory arming a timer for job %s/%s", job->ns, job->name);
        return;
    }
    struct controller_timer *slot = &ctl->timers[ctl->ntimers];
    *slot = *t;
    memcpy(slot->job_uid, job->uid, sizeof slot->job_uid);
    ctl->ntimers++;
    sift_up(ctl->timers, ctl->ntimers - 1);
    job->timers++;
}

void timers_cancel(struct controller *ctl, struct job *job, int flat, uint32_t event_mask)
{
    for (int i = 0; job->timers > 0 && i < ctl->ntimers;) {
        struct controller_timer *t = &ctl->timers[i];
        bool match = strcmp(t->job_uid, job->uid) == 0 &&
                     (flat < 0 ? true : t->kind == TIMER_ACTION && t->flat == flat && (event_mask & (1u << t->event)));
        if (match) {
            job->timers--;
            remove_at(ctl, i); /* the element moved into i is looked at next */
        } else {
            i++;
        }
    }
}

void timers_remap(struct controller *ctl, struct job *job, const int32_t *old_to_new, int32_t old_total)
{
    for (int i = 0; job->timers > 0 && i < ctl->ntimers;) {
        struct controller_timer *t = &ctl->timers[i];
        if (strcmp(t->job_uid, job->uid) != 0 || t->flat < 0 || t->flat >= old_total) {
            i++;
            continue;
        }
        t->flat = old_to_new[t->flat];
        if (t->flat < 0) {
            job->timers--;
            remove_at(ctl, i);
            continue;
        }
        t->task = job_task_of(job, t->flat);
        i++;
    }
}

int64_t controller_next_timer(const struct controller *ctl) { return ctl->ntimers ? ctl->timers[0].due_ms : -1; }

void controller_free_timers(struct controller *ctl)
{
    free(ctl->timers);
    ctl->timers = NULL;
    ctl->ntimers = ctl->timers_cap = 0;
}

bool timers_pop_due(struct controller *ctl, struct controller_timer *out)
{
    if (ctl->ntimers == 0 || ctl->timers[0].due_ms > ctl->now_ms)
        return false;
    *out = ctl->timers[0];
    remove_at(ctl, 0);
    return true;
}
