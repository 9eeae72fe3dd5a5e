/* Refusing changes the job database cannot record: while its writer is failing, a request that would
 * change state is answered at once, before it reaches the core (507 on a full disk, else 503). */
#include <stdio.h>
#include <string.h>

#include "gateway/http/http.h"
#include "gateway/limits/gates.h"
#include "store/store.h"

bool gateway_is_read(const struct http_req *req)
{
    return strcmp(req->method, "GET") == 0 || strcmp(req->method, "HEAD") == 0;
}

const char *gateway_data_dir(const struct http_req *req)
{
    return req->gw->data_dir ? req->gw->data_dir : "the data directory";
}

bool gateway_refuse_write_while_failing(struct http_req *req)
{
    if (!req->gw->store || gateway_is_read(req))
        return false;
    char why[512];
    enum store_failure kind = store_failure_kind(req->gw->store, why, sizeof why);
    if (kind == STORE_FAILURE_NONE)
        return false;
    /* POSTs create (a Job, a Queue, a Command) or act; PUTs and DELETEs change. */
    const char *outcome = strcmp(req->method, "POST") == 0 ? "nothing was created" : "nothing was changed";
    struct api_status st = {0};
    if (kind == STORE_FAILURE_DISK_FULL)
        api_fail(&st, 507, "InsufficientStorage",
                 "the disk of the data directory %s is full: the job database cannot record anything, so %s; "
                 "free space there and retry (%s)",
                 gateway_data_dir(req), outcome, why);
    else
        api_fail(&st, 503, "ServiceUnavailable",
                 "the job database is failing: it cannot record anything, so %s; retry later (%s)", outcome, why);
    http_respond_status(req, &st);
    return true;
}
