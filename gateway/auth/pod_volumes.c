/* The gateway's side of pod volumes: a hostPath is a privilege (Kubernetes' Pod Security "baseline"
 * level forbids it), so with --auth only an admin's token may mount one, or a user's in a namespace
 * of --host-path-namespaces; and where the server cannot
 * give tasks mount namespaces (no CAP_SYS_ADMIN) no pod volume can be honoured, so none is accepted. */
#include <stdio.h>
#include <string.h>

#include "adapters/objects/pod_volumes.h"
#include "gateway/auth/auth.h"
#include "gateway/auth/request.h"
#include "gateway/http/http.h"
#include "runtime/process.h"

static void volume_cause(struct api_status *st, int task, int mount, const char *message)
{
    char field[160];
    snprintf(field, sizeof field, "spec.tasks[%d].template.spec.containers[0].volumeMounts[%d]", task, mount);
    api_add_cause(st, field, "FieldValueForbidden", 0, 0, "%s", message);
}

/* Whether ns is one of the comma-separated list ("*": every namespace). */
static bool listed(const char *list, const char *ns)
{
    size_t n = strlen(ns);
    for (const char *p = list; p && *p;) {
        size_t l = strcspn(p, ",");
        if ((l == 1 && p[0] == '*') || (l == n && strncmp(p, ns, n) == 0))
            return true;
        p += l + (p[l] == ',');
    }
    return false;
}

int gateway_pod_volumes(const struct http_req *req, struct fields *f, struct job *job, const char *resource,
                        const char *group)
{
    const struct principal *who = req->who;
    bool privileged = !req->gw->auth || (who && principal_is_admin(who)) ||
                      (who && job->ns && listed(req->gw->host_path_namespaces, job->ns) &&
                       principal_writes_namespace(who, job->ns));
    bool can_mount = process_can_mount();
    int code = 0;
    for (int t = 0; t < job->ntasks; t++)
        for (int m = 0; m < job->tasks[t].nmounts; m++) {
            const struct pod_mount *pm = &job->tasks[t].mounts[m];
            if (!can_mount) {
                char message[512];
                snprintf(message, sizeof message,
                         "Forbidden: volume \"%s\": this server cannot give tasks a mount namespace of their own (it "
                         "runs without CAP_SYS_ADMIN), so pod volumes cannot be mounted",
                         pm->volume);
                volume_cause(f->st, t, m, message);
                code = 422;
            } else if (pm->kind == POD_VOLUME_HOST_PATH && !privileged) {
                char message[512];
                snprintf(message, sizeof message,
                         "Forbidden: hostPath volume \"%s\": mounting the node's files is a privilege (Pod Security "
                         "baseline forbids hostPath volumes): only an admin's token may",
                         pm->volume);
                volume_cause(f->st, t, m, message);
                code = code ? code : 403;
            }
        }
    if (code == 0)
        return 0;
    char kind_group[160];
    snprintf(kind_group, sizeof kind_group, "%s.%s", resource, group);
    api_fail_causes(f->st, code, code == 403 ? "Forbidden" : "Invalid", kind_group, job->name,
                    code == 403 ? "is forbidden" : "is invalid");
    api_set_details(f->st, resource, group, job->name);
    return -1;
}
