/* A CronJob (batch.volcano.sh/v1alpha1, as Kubernetes' batch/v1 CronJob): a schedule in a time
 * zone and a Volcano Job template; the core keeps it and creates the jobs it owns. */
#ifndef CALDERA_MODEL_CRONJOB_H
#define CALDERA_MODEL_CRONJOB_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/tzfile.h"
#include "common/uuid.h"
#include "model/cron.h"

enum cron_concurrency { CRON_ALLOW, CRON_FORBID, CRON_REPLACE };

/* Kubernetes' defaults. */
#define CRONJOB_SUCCESSFUL_HISTORY_DEFAULT 3
#define CRONJOB_FAILED_HISTORY_DEFAULT 1
/* A job's name is "<cron>-<minutes>" and must stay a 63-character label. */
#define CRONJOB_NAME_MAX 52

struct cron_job {
    char *ns;
    char *name;
    char uid[UUID_STR_LEN];
    int64_t created_ms;
    uint64_t resource_version;
    struct cron_schedule schedule;
    struct tz_zone *zone; /* spec.timeZone's, or UTC (owned) */
    uint8_t concurrency;  /* enum cron_concurrency */
    bool suspend;
    int64_t starting_deadline_s; /* -1 when unset */
    int32_t successful_history, failed_history;
    json_t *manifest; /* metadata + spec as accepted (owned) */
    /* status (the core's) */
    int64_t last_schedule_ms;   /* 0: never */
    int64_t last_successful_ms; /* 0: never */
    int64_t next_sync_ms;       /* the core's: when to look at it again (0: at once, -1: never) */
};

void cron_job_free(struct cron_job *cj);

#endif
