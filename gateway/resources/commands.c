/* Acting on jobs over HTTP: Volcano's Commands (what `vcctl job suspend|resume|...` creates),
 * Caldera's shorter POST .../jobs/{name}/{action}, and deleting a pod (it is created again). */
#include <string.h>

#include "adapters/intake/intake.h"
#include "adapters/objects/command.h"
#include "gateway/auth/auth.h"
#include "gateway/auth/request.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"
#include "gateway/watch/watch.h"

void handle_command_create(struct http_req *req)
{
    struct api_status st = {0};
    struct intake in;
    struct command *cmd = NULL;
    if (gateway_read_document(req, "Command", &in, &st) == 0) {
        command_from_doc(&in.docs[0], req->params[0], &cmd, &st);
        intake_free(&in);
    }
    if (!cmd) {
        http_respond_status(req, &st);
        return;
    }
    if (cmd->target_is_queue && req->gw->auth && !principal_is_admin(req->who)) { /* queues are the admins' */
        auth_refuse(req, "create", "commands", "bus.volcano.sh", req->params[0], NULL,
                    "a Command on a Queue opens or closes it, which only admins do");
        command_free(cmd);
        return;
    }
    struct core_request creq = {.op = CORE_COMMAND, .ns = req->params[0], .object = cmd};
    gateway_answer_core(req, &creq);
    command_free(cmd); /* run, never kept: Volcano's controller deletes a Command once it acted */
}

/* Commands are deleted once run, so there is never one to list; a watch sees each one run. */
void handle_command_list(struct http_req *req)
{
    gateway_answer_list(req, NULL, &(struct list_kind){COMMAND_API_VERSION, "Command", NULL});
}

/* The verbs of POST .../jobs/{name}/{verb}: vcctl's names, plus abort as Volcano's action says it. */
static const struct {
    const char *verb;
    enum job_action action;
} job_verbs[] = {
    {"suspend", ACT_ABORT_JOB},   {"abort", ACT_ABORT_JOB},         {"resume", ACT_RESUME_JOB},
    {"restart", ACT_RESTART_JOB}, {"terminate", ACT_TERMINATE_JOB}, {"complete", ACT_COMPLETE_JOB},
};

void handle_job_action(struct http_req *req)
{
    const char *verb = req->params[2];
    for (size_t i = 0; i < sizeof job_verbs / sizeof job_verbs[0]; i++) {
        if (strcmp(job_verbs[i].verb, verb) == 0) {
            struct core_request creq = {.op = CORE_JOB_ACTION,
                                        .ns = req->params[0],
                                        .name = req->params[1],
                                        .action = (int)job_verbs[i].action};
            gateway_answer_core(req, &creq);
            return;
        }
    }
    struct api_status st = {0};
    api_fail(&st, 404, "NotFound",
             "no action \"%s\" on jobs: use suspend (or abort), resume, restart, terminate or "
             "complete",
             verb);
    http_respond_status(req, &st);
}

void handle_pod_delete(struct http_req *req)
{
    struct core_request creq = {.op = CORE_POD_DELETE, .ns = req->params[0], .name = req->params[1]};
    gateway_answer_core(req, &creq);
}
