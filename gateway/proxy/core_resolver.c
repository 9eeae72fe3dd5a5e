/* The proxy's resolver over the core (core_resolver.h): where a companion is comes from
 * CORE_COMPANION_TARGET, its activity goes back as CORE_COMPANION_TOUCH, posted without waiting. */
#include "gateway/proxy/core_resolver.h"

#include <stdio.h>
#include <string.h>

#include "scheduler/core/core.h"

static int resolve(void *ctx, const char *ns, const char *name, struct proxy_target *t, struct api_status *st)
{
    struct core_request req = {.op = CORE_COMPANION_TARGET, .ns = ns, .name = name};
    int rc = core_call(ctx, &req);
    json_decref(req.body);
    if (rc != 0) {
        *st = req.status;
        return -1;
    }
    const struct core_companion_target *c = &req.companion_target;
    memset(t, 0, sizeof *t);
    t->port = c->port;
    snprintf(t->phase, sizeof t->phase, "%s", c->phase);
    t->strip_prefix = c->strip_prefix;
    for (int i = 0; i < c->nheaders && t->nheaders < PROXY_MAX_HEADERS; i++)
        snprintf(t->headers[t->nheaders++], PROXY_HEADER_MAX, "%s", c->headers[i]);
    return 0;
}

static void touched(void *ctx, const char *ns, const char *name, int64_t now_ms)
{
    core_post_touch(ctx, ns, name, now_ms); /* dropped when the mailbox is full: the next touch counts */
}

void proxy_core_resolver(struct proxy_resolver *out, struct core *core)
{
    *out = (struct proxy_resolver){.resolve = resolve, .touched = touched, .ctx = core};
}
