/* What the job plugins' runtime side shares: pod domain names as Volcano makes them, finding a task
 * of the job by name, writing a plugin's files. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "common/strv.h"
#include "scheduler/controller/job_plugins/internal.h"

void plugin_domain_name(const struct job *job, int task, int index, char *buf, size_t len)
{
    char pod[256];
    job_pod_name(job, task, index, pod, (int)sizeof pod);
    snprintf(buf, len, "%s.%s", pod, job->name);
}

int plugin_task_index(const struct job *job, const char *name)
{
    for (int t = 0; name && t < job->ntasks; t++)
        if (job->tasks[t].name && strcmp(job->tasks[t].name, name) == 0)
            return t;
    return -1;
}

int plugin_write_file(const char *dir, const char *name, const char *data, size_t len, mode_t mode, char *why,
                      size_t why_len)
{
    char path[1024];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        snprintf(why, why_len, "path too long: %s/%s", dir, name);
        return -1;
    }
    if (write_file_atomic(path, data, len, mode) != 0) {
        snprintf(why, why_len, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
