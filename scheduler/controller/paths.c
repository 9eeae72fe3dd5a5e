/* Where a job's files live under the data directory: jobs/<uid>/work (its working directory and
 * HOME, the task's), jobs/<uid>/logs/<pod>.<attempt>.log (no directory per pod: a mkdir costs more
 * than the task it logs; logs/ and the logs are the server's alone) and jobs/<uid>/exits (the
 * supervisors' status lines, the server's). By uid, so a reused job name never mixes files. Also the
 * name of an attempt's cgroup, and where the tasks' volumes live. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "common/log.h"
#include "scheduler/controller/internal.h"

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

/* Where each of the task's volumes lives, decided once: a volumeClaimName is a directory shared by
 * every job of the namespace naming that claim, kept when jobs go (volumes/<ns>/<claim> under the
 * data directory); a volumeClaim is the job's own (jobs/<uid>/volumes/<i>), removed with the job. */
int controller_resolve_volumes(const struct controller *ctl, const struct job *job, struct task_spec *ts)
{
    for (int i = 0; i < ts->nvolumes; i++) {
        struct task_volume *v = &ts->volumes[i];
        if (v->dir)
            continue;
        char dir[4608];
        if (v->claim_name)
            snprintf(dir, sizeof dir, "%s/volumes/%s/%s", ctl->data_dir, job->ns, v->claim_name);
        else
            snprintf(dir, sizeof dir, "%s/jobs/%s/volumes/%d", ctl->data_dir, job->uid, i);
        if (!(v->dir = strdup(dir)))
            return -1;
    }
    return 0;
}

void controller_remove_job_volumes(const struct controller *ctl, const struct job *job)
{
    bool owned = false;
    for (int i = 0; job->ntasks > 0 && i < job->tasks[0].nvolumes; i++)
        owned = owned || !job->tasks[0].volumes[i].claim_name;
    if (!owned || !ctl->data_dir)
        return;
    char dir[4608];
    snprintf(dir, sizeof dir, "%s/jobs/%s/volumes", ctl->data_dir, job->uid);
    if (remove_tree(dir) != 0)
        log_warn("job %s/%s: cannot remove its volumes %s: %s", job->ns, job->name, dir, strerror(errno));
}
