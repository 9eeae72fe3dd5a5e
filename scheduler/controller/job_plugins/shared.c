/* What the job plugins share: pod domain names as Volcano makes them, finding tasks by name (in the
 * job, or in a spec being admitted), writing a plugin's files, and setting an environment variable. */
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

bool plugin_spec_has_task(const json_t *spec, const char *name)
{
    const json_t *tasks = json_object_get(spec, "tasks");
    for (size_t i = 0; i < json_array_size(tasks); i++) {
        const char *n = json_string_value(json_object_get(json_array_get(tasks, i), "name"));
        char default_name[32];
        if (!n || !*n) { /* not defaulted yet: the name admission will give it */
            snprintf(default_name, sizeof default_name, "default%zu", i);
            n = default_name;
        }
        if (strcmp(n, name) == 0)
            return true;
    }
    return false;
}

bool plugin_require_task(struct fields *f, json_t *plugins, const char *plugin, const json_t *spec, const char *task,
                         const char *role, const char *flag)
{
    if (plugin_spec_has_task(spec, task))
        return true;
    char path[FIELD_PATH_MAX];
    snprintf(path, sizeof path, "spec.plugins[%s]", plugin);
    field_error(f, plugins, plugin, path, "FieldValueInvalid",
                "Invalid value: \"%.63s\": the %s %s task is not a task of the job (name it with %s=<task>)", task,
                plugin, role, flag);
    return false;
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

