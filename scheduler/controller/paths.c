/* Where a job's files live under the data directory: jobs/<uid>/work (its working directory and
 * HOME, the task's), jobs/<uid>/logs/<pod>.<attempt>.log (no directory per pod: a mkdir costs more
 * than the task it logs; logs/ and the logs are the server's alone) and jobs/<uid>/exits (the
 * supervisors' status lines, the server's). By uid, so a reused job name never mixes files. Also the
 * name of an attempt's cgroup. */
#include <stdio.h>

#include "scheduler/controller/controller.h"

const char *const controller_job_subdirs[] = {"work", "logs", NULL};
const char *const controller_job_files[] = {"exits", NULL};

void controller_job_dir(const struct controller *ctl, const struct job *job, char *buf, size_t len)
{
    snprintf(buf, len, "%s/jobs/%s", ctl->data_dir, job->uid);
}

void controller_log_relpath(const struct job *job, const char *pod, uint32_t attempt, char *buf, size_t len)
{
    snprintf(buf, len, "jobs/%s/logs/%s.%u.log", job->uid, pod, attempt);
}

void controller_exits_path(const struct controller *ctl, const char *job_uid, char *buf, size_t len)
{
    snprintf(buf, len, "%s/jobs/%s/exits", ctl->data_dir, job_uid);
}

/* Flat below caldera/: a directory per job would cost one more mkdir and rmdir per hierarchy. */
void controller_cgroup_name(const char *job_uid, const char *pod, uint32_t attempt, char *buf, size_t len)
{
    snprintf(buf, len, "%s.%u.%s", pod, attempt, job_uid);
}
