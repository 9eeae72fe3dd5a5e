/* What Kubernetes' CronJob controller (syncCronJob, cleanupFinishedJobs) decides for one CronJob at
 * one moment, as a plan the core carries out: the job to create (at most one, the most recent
 * missed time), the active jobs Replace deletes, the finished jobs past the history limits, one
 * event, and when to look again. Pure: the caller says what the CronJob owns and what time it is. */
#ifndef CALDERA_CRON_SYNC_H
#define CALDERA_CRON_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "model/cronjob.h"

enum cron_owned_state { CRON_OWNED_ACTIVE, CRON_OWNED_SUCCEEDED, CRON_OWNED_FAILED };

/* One job the CronJob owns. */
struct cron_owned {
    int64_t scheduled_ms; /* from its name or annotation */
    uint8_t state;        /* enum cron_owned_state */
    int64_t finished_ms;  /* when it finished (finished ones) */
};

struct cron_plan {
    int64_t create_ms;          /* the scheduled time to create a job for; -1: none */
    bool delete_active;         /* Replace: every active job goes first */
    int ndelete;                /* finished jobs past the history limits: indexes into the owned jobs */
    int64_t last_successful_ms; /* status.lastSuccessfulTime as the owned jobs say (0: none) */
    const char *event_reason;   /* NULL, or a Warning/Normal event to record */
    bool event_warning;
    char event_message[256];
    int64_t wake_ms; /* when to sync again (the next scheduled time); -1: never (suspended) */
};

/* Fills plan. delete_idx has room for n indexes. */
void cron_sync_plan(const struct cron_job *cj, const struct cron_owned *owned, int n, int64_t now_ms,
                    struct cron_plan *plan, int *delete_idx);

#endif
