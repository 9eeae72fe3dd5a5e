/* Requests while the server's start is not over (scheduler/core/startup.c): the router lets a Volcano
 * Job's GET go on to the core, which answers it early when it can; anything else waits here for the
 * start, so no handler opens the database file before its checks have passed. */
#include "gateway/http/http.h"
#include "gateway/limits/gates.h"
#include "scheduler/core/core.h"

bool gateway_wait_for_start(struct http_req *req)
{
    if (!req->gw->core)
        return false;
    char why[512];
    if (core_wait_ready(req->gw->core, why, sizeof why) == 0)
        return false;
    struct api_status st = {0};
    api_fail(&st, 503, "ServiceUnavailable", "the job server did not start: %s", why);
    http_respond_status(req, &st);
    return true;
}
