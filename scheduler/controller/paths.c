/* Where a job's files live under the data directory: jobs/<uid>/work (its working directory and
 * HOME) and jobs/<uid>/logs/<pod>.<attempt>.log (no directory per pod: a mkdir costs more than the
 * task it logs). By uid, so a reused job name never mixes files. */
#include <stdio.h>

#include "scheduler/controller/controller.h"

const char *const controller_job_subdirs[] = {"work", "logs", NULL};

void controller_job_dir(const struct controller *ctl, const struct job *job, char *buf, size_t len)
{
    snprintf(buf, len, "%s/jobs/%s", ctl->data_dir, job->uid);
}

void controller_log_relpath(const struct job *job, const char *pod, uint32_t attempt, char *buf, size_t len)
{
    snprintf(buf, len, "jobs/%s/logs/%s.%u.log", job->uid, pod, attempt);
}
