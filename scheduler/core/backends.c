/* The engines jobs are sent to, as the core holds them: opened for the kinds the routes name, their
 * reports queued under the mailbox's lock (never dropped: a lost report would be a lost status) and
 * applied by the core thread, and closed after it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/log.h"
#include "scheduler/core/core.h"
#include "scheduler/core/internal.h"

/* backend_host.post: any backend thread. */
static void post_update(void *ctx, struct backend_update *u)
{
    struct core *c = ctx;
    pthread_mutex_lock(&c->lock);
    bool taken = !c->stop_requested && GROW(c->updates, c->updates_cap, (size_t)c->nupdates + 1, 64) == 0;
    if (taken)
        c->updates[c->nupdates++] = u;
    pthread_mutex_unlock(&c->lock);
    if (!taken) {
        if (!c->stop_requested)
            log_error("backend report about job %s dropped: out of memory", u->job_uid);
        backend_update_free(u);
        return;
    }
    uint64_t one = 1;
    if (write(c->mailbox_fd, &one, sizeof one) < 0)
        log_warn("mailbox write: %s", strerror(errno));
}

static bool routed_to(const struct backend_conf *conf, enum backend_kind kind)
{
    if (conf->default_kind == kind)
        return true;
    for (int i = 0; i < conf->nqueues; i++)
        if (conf->queues[i].kind == kind)
            return true;
    return false;
}

int core_backends_open(struct core *c, const struct backend_conf *conf, char *err, size_t errlen)
{
    c->ctl.backend_conf = conf;
    if (!conf)
        return 0;
    const struct backend_host host = {post_update, c};
    for (int k = BACKEND_KUBERNETES; k < BACKEND_KIND_COUNT; k++) {
        if (!routed_to(conf, (enum backend_kind)k))
            continue;
        struct api_status st = {0};
        int rc = k == BACKEND_KUBERNETES ? kube_backend_open(conf, &host, &c->ctl.backends[k], &st)
                                         : slurm_backend_open(conf, &host, &c->ctl.backends[k], &st);
        if (rc != 0) {
            snprintf(err, errlen, "the %s backend: %s", backend_kind_name((enum backend_kind)k), st.message);
            return -1;
        }
        log_info("backend %s open", backend_kind_name((enum backend_kind)k));
    }
    return 0;
}

struct backend *core_backend(struct core *c, enum backend_kind kind)
{
    return kind > BACKEND_LOCAL && kind < BACKEND_KIND_COUNT ? c->ctl.backends[kind] : NULL; /* set before the thread */
}

int core_backends_drain(struct core *c)
{
    pthread_mutex_lock(&c->lock);
    struct backend_update **got = c->updates;
    int n = c->nupdates;
    c->updates = NULL;
    c->nupdates = c->updates_cap = 0;
    pthread_mutex_unlock(&c->lock);
    for (int i = 0; i < n; i++) {
        controller_backend_update(&c->ctl, got[i]);
        backend_update_free(got[i]);
    }
    free(got);
    return n;
}

void core_backends_close(struct core *c)
{
    for (int k = 0; k < BACKEND_KIND_COUNT; k++) {
        struct backend *b = c->ctl.backends[k];
        c->ctl.backends[k] = NULL;
        if (b)
            b->close(b->ctx);
    }
    pthread_mutex_lock(&c->lock); /* what came while they stopped */
    for (int i = 0; i < c->nupdates; i++)
        backend_update_free(c->updates[i]);
    free(c->updates);
    c->updates = NULL;
    c->nupdates = c->updates_cap = 0;
    pthread_mutex_unlock(&c->lock);
}
