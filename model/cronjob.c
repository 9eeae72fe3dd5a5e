/* A CronJob's memory: the object, its zone and its manifest are its own.
 * (The parsing is adapters/objects/cronjob.c's, the timing scheduler/controller/cron_sync.c's.) */
#include "model/cronjob.h"

#include <stdlib.h>

void cron_job_free(struct cron_job *cj)
{
    if (!cj)
        return;
    free(cj->ns);
    free(cj->name);
    free(cj->zone);
    json_decref(cj->manifest);
    free(cj);
}
