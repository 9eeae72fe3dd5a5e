/* Kubernetes' CronJob controller's decisions for one CronJob: missed schedules (at most one
 * catch-up, "too many missed start times" past 100, a deadline that makes a start too late),
 * concurrencyPolicy, and the history limits, oldest finished jobs first. */
#include "scheduler/controller/cron_sync.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/clock.h"

static void event(struct cron_plan *plan, bool warning, const char *reason, const char *fmt, const char *arg)
{
    if (plan->event_reason) /* one event a sync: the first says most */
        return;
    plan->event_reason = reason;
    plan->event_warning = warning;
    snprintf(plan->event_message, sizeof plan->event_message, fmt, arg);
}

/* The oldest finished jobs of a state beyond limit, into delete_idx. */
static void past_limit(const struct cron_owned *owned, int n, uint8_t state, int32_t limit, struct cron_plan *plan,
                       int *delete_idx)
{
    int count = 0;
    for (int i = 0; i < n; i++)
        count += owned[i].state == state;
    for (; count > limit; count--) {
        int oldest = -1;
        for (int i = 0; i < n; i++) {
            bool taken = false;
            for (int d = 0; d < plan->ndelete && !taken; d++)
                taken = delete_idx[d] == i;
            if (owned[i].state == state && !taken && (oldest < 0 || owned[i].scheduled_ms < owned[oldest].scheduled_ms))
                oldest = i;
        }
        delete_idx[plan->ndelete++] = oldest;
    }
}

static bool exists_for(const struct cron_job *cj, const struct cron_owned *owned, int n, int64_t scheduled_ms)
{
    int64_t unit = cron_name_unit_ms(&cj->schedule); /* what the name says: the minute */
    for (int i = 0; i < n; i++)
        if (owned[i].scheduled_ms / unit == scheduled_ms / unit)
            return true;
    return false;
}

static void schedule(const struct cron_job *cj, const struct cron_owned *owned, int n, int64_t now_ms,
                     struct cron_plan *plan)
{
    int64_t earliest = cj->last_schedule_ms > 0 ? cj->last_schedule_ms : cj->created_ms;
    if (cj->starting_deadline_s >= 0 && earliest < now_ms - cj->starting_deadline_s * 1000)
        earliest = now_ms - cj->starting_deadline_s * 1000;
    int missed = 0;
    int64_t scheduled = cron_most_recent(&cj->schedule, cj->zone, earliest, now_ms, &missed);
    if (missed > CRON_MISSED_COUNT_MAX)
        event(plan, true, "TooManyMissedTimes",
              "too many missed start times: > 100. Set or decrease .spec.startingDeadlineSeconds or check clock "
              "skew%s",
              "");
    if (scheduled < 0)
        return;
    char when[RFC3339_LEN];
    if (cj->starting_deadline_s >= 0 && scheduled + cj->starting_deadline_s * 1000 < now_ms) {
        event(plan, true, "MissSchedule", "Missed scheduled time to start a job: %s", rfc3339(scheduled, when));
        return;
    }
    if (exists_for(cj, owned, n, scheduled))
        return;
    int active = 0;
    for (int i = 0; i < n; i++)
        active += owned[i].state == CRON_OWNED_ACTIVE;
    if (cj->concurrency == CRON_FORBID && active > 0) {
        event(plan, false, "JobAlreadyActive",
              "Not starting job because prior execution is running and concurrency policy is Forbid%s", "");
        return;
    }
    plan->delete_active = cj->concurrency == CRON_REPLACE && active > 0;
    plan->create_ms = scheduled;
}

void cron_sync_plan(const struct cron_job *cj, const struct cron_owned *owned, int n, int64_t now_ms,
                    struct cron_plan *plan, int *delete_idx)
{
    *plan = (struct cron_plan){.create_ms = -1, .wake_ms = -1, .last_successful_ms = cj->last_successful_ms};
    for (int i = 0; i < n; i++)
        if (owned[i].state == CRON_OWNED_SUCCEEDED && owned[i].finished_ms > plan->last_successful_ms)
            plan->last_successful_ms = owned[i].finished_ms;
    if (!cj->suspend) {
        schedule(cj, owned, n, now_ms, plan);
        plan->wake_ms = cron_next(&cj->schedule, cj->zone, now_ms);
    }
    past_limit(owned, n, CRON_OWNED_SUCCEEDED, cj->successful_history, plan, delete_idx);
    past_limit(owned, n, CRON_OWNED_FAILED, cj->failed_history, plan, delete_idx);
}
