/* `jobctl suspend|resume|restart|terminate|complete JOB`: one of Volcano's job actions through
 * Caldera's POST .../jobs/{name}/{action}; prints what the job's phase became, kubectl style. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/jobctl/api.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/output.h"

/* What kubectl would print: "suspended", "resumed", ... */
static const char *past_tense(const char *verb)
{
    static const char *const pairs[][2] = {{"suspend", "suspended"},
                                           {"resume", "resumed"},
                                           {"restart", "restarted"},
                                           {"terminate", "terminated"},
                                           {"complete", "completed"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (strcmp(pairs[i][0], verb) == 0)
            return pairs[i][1];
    return verb;
}

int cmd_action(const struct jobctl_args *a)
{
    const char *name = a->pos[0];
    char *path = api_ns_path(CALDERA_API, a->ns, "jobs", name, a->command);
    if (!path)
        return report_oom();
    const struct api_body body = {"{}", 2, "application/json"};
    struct http_response resp;
    int rc = api_call(a, "POST", path, &body, &resp);
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    if (a->json) {
        print_body_as(a, resp.body, resp.len);
    } else {
        json_t *job = json_loadb(resp.body, resp.len, 0, NULL);
        const char *phase = json_string_value(
            json_object_get(json_object_get(json_object_get(job, "status"), "state"), "phase"));
        printf("job.batch.volcano.sh/%s %s (phase %s)\n", name, past_tense(a->command), phase ? phase : "?");
        json_decref(job);
    }
    http_response_free(&resp);
    return JOBCTL_OK;
}
