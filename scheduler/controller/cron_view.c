/* What is read of CronJobs without changing anything: finding one, the jobs it owns (by their
 * names), and its status.active. Used by the CronJob controller and by the watch rendering. */
#include "scheduler/controller/cron_view.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"

int controller_cronjob_index(const struct cluster *c, const char *ns, const char *name)
{
    for (int i = 0; i < c->ncronjobs; i++)
        if (strcmp(c->cronjobs[i]->ns, ns) == 0 && strcmp(c->cronjobs[i]->name, name) == 0)
            return i;
    return -1;
}

struct cron_job *controller_find_cronjob(const struct cluster *c, const char *ns, const char *name)
{
    int i = controller_cronjob_index(c, ns, name);
    return i < 0 ? NULL : c->cronjobs[i];
}

/* The scheduled time a job's name gives (in cron_name_unit_ms) when the job is one of cj's, else -1. */
int64_t controller_cronjob_owns(const struct cron_job *cj, const struct job *job)
{
    size_t n = strlen(cj->name);
    if (job->deleted || strcmp(job->ns, cj->ns) != 0 || strncmp(job->name, cj->name, n) != 0 || job->name[n] != '-' ||
        !job->name[n + 1])
        return -1;
    int64_t minute = 0;
    for (const char *p = job->name + n + 1; *p; p++) {
        if (!isdigit((unsigned char)*p) || minute > INT64_MAX / 600)
            return -1;
        minute = minute * 10 + (*p - '0');
    }
    return minute;
}

json_t *controller_cronjob_active(const struct controller *ctl, const struct cron_job *cj)
{
    json_t *active = json_array();
    for (struct job *job = ctl->cluster->first; job && active; job = job->next)
        if (controller_cronjob_owns(cj, job) >= 0 && !job_phase_final(job->status.phase))
            json_array_append_new(active,
                                  json_pack("{s:s, s:s, s:s, s:s, s:s}", "apiVersion", VOLCANO_JOB_API_VERSION, "kind",
                                            "Job", "namespace", job->ns, "name", job->name, "uid", job->uid));
    return active;
}
