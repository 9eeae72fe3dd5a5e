/* The gateway's side of running tasks as their submitter: which ids the caller's principal gives
 * (none for an admin without them: the manifest decides), and the refusal of a caller who has none. */
#include <stdio.h>
#include <string.h>

#include "adapters/objects/run_as.h"
#include "gateway/auth/auth.h"
#include "gateway/auth/request.h"
#include "gateway/http/http.h"
#include "model/watchdog.h"

/* A job posted records who posted it (the WatchDog routes its notices by user): the annotation
 * caldera.io/user, whatever the body said. */
static void stamp_user(const struct http_req *req, struct job *job)
{
    json_t *meta = json_object_get(job_manifest(job), "metadata");
    if (!req->method || strcmp(req->method, "POST") != 0 || !json_is_object(meta))
        return;
    json_t *ann = json_object_get(meta, "annotations");
    if (!json_is_object(ann)) {
        ann = json_object();
        if (!ann || json_object_set_new(meta, "annotations", ann) != 0)
            return;
    }
    json_object_set_new(ann, WATCHDOG_USER_ANNOTATION, json_string(principal_user(req->who)));
}

int gateway_run_as(const struct http_req *req, struct fields *f, struct job *job, const char *resource,
                   const char *group)
{
    if (gateway_pod_volumes(req, f, job, resource, group) != 0)
        return -1;
    stamp_user(req, job);
    const struct principal *who = req->who;
    if (!req->gw->auth || !who || (who->uid < 0 && principal_is_admin(who)))
        return 0;
    char kind_group[160];
    snprintf(kind_group, sizeof kind_group, "%s.%s", resource, group);
    int rc;
    if (who->uid < 0 || who->gid < 0) {
        rc = api_fail(f->st, 403, "Forbidden",
                      "%s \"%s\" is forbidden: User \"%s\" has no uid and gid for its tasks to run as: ask an admin "
                      "for a token with them (jobctl token create --uid N --gid N)",
                      kind_group, job->name, principal_user(who));
    } else {
        const struct run_as ids = {principal_user(who), who->uid, who->gid};
        rc = run_as_enforce(f, job, &ids, kind_group);
    }
    if (rc != 0)
        api_set_details(f->st, resource, group, job->name);
    return rc;
}
