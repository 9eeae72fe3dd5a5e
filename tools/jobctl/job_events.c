/* A job's events from the namespace's event list: the server keeps one list of every recorded
 * change, so the job's are picked out here, page by page (at most MAX_PAGES pages). */
#include "tools/jobctl/job_events.h"

#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "tools/jobctl/api.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/output.h"

#define PAGE "500"
#define MAX_PAGES 40

static const char *str(const json_t *v, const char *path) { return json_string_value(json_at(v, path)); }

static int same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

int job_event_matches(const json_t *ev, const json_t *job, const json_t *pods)
{
    const char *kind = str(ev, "involvedObject.kind"), *name = str(ev, "involvedObject.name");
    if (same(kind, "Job") || same(kind, "PodGroup")) {
        const char *uid = str(ev, "involvedObject.uid"), *job_name = str(job, "metadata.name");
        const char *job_uid = str(job, "metadata.uid");
        size_t n = job_name ? strlen(job_name) : 0;
        bool named = same(name, job_name) || /* a PodGroup: "<job>-<uid>", as Volcano names it */
                     (same(kind, "PodGroup") && name && n && strncmp(name, job_name, n) == 0 && name[n] == '-' &&
                      same(name + n + 1, job_uid));
        return named && (!uid || same(uid, job_uid));
    }
    if (!same(kind, "Pod"))
        return 0;
    int64_t created, at;
    if (rfc3339_parse(str(job, "metadata.creationTimestamp") ? str(job, "metadata.creationTimestamp") : "", &created) ==
            0 &&
        rfc3339_parse(str(ev, "eventTime") ? str(ev, "eventTime") : "", &at) == 0 && at + 1000 < created)
        return 0; /* a pod of that name of an earlier job */
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod) if (same(name, str(pod, "metadata.name"))) return 1;
    return 0;
}

int job_events_fetch(const struct jobctl_args *a, const json_t *job, const json_t *pods, json_t **out)
{
    *out = json_array();
    char *cont = NULL;
    int rc = *out ? JOBCTL_OK : report_oom();
    for (int page = 0; rc == JOBCTL_OK && page < MAX_PAGES; page++) {
        const char *keys[] = {"limit", "continue"}, *values[] = {PAGE, cont};
        char *path = api_with_query(api_ns_path(CORE_API, a->ns, "events", NULL, NULL), keys, values, 2);
        json_t *list = NULL;
        rc = path ? api_get_json(a, path, &list) : report_oom();
        free(path);
        free(cont);
        cont = NULL;
        if (rc != JOBCTL_OK)
            break;
        size_t i;
        json_t *ev;
        json_array_foreach(json_object_get(list, "items"), i, ev) if (job_event_matches(ev, job, pods))
            json_array_append(*out, ev);
        const char *next = str(list, "metadata.continue");
        cont = next && *next ? strdup(next) : NULL;
        json_decref(list);
        if (!cont)
            break;
    }
    free(cont);
    if (rc != JOBCTL_OK) {
        json_decref(*out);
        *out = NULL;
    }
    return rc;
}
