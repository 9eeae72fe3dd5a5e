/* The Kubernetes backend's table of the jobs it follows (found, added, dropped; mu held) and the small
 * shared parts its threads use: a report posted, a ref split, a wait that a stop cuts short. */
#include "runtime/kube/kube_backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"

bool kube_wait(struct kube_backend *kb, int64_t ms)
{
    struct timespec until = clock_deadline(CLOCK_MONOTONIC, ms);
    while (!atomic_load(&kb->stop))
        if (pthread_cond_timedwait(&kb->cv, &kb->mu, &until) == ETIMEDOUT)
            break;
    return atomic_load(&kb->stop);
}

int kube_split_ref(const struct kube_backend *kb, const char *ref, char *ns, size_t ns_len, char *name, size_t name_len)
{
    if (!ref || !*ref)
        return -1;
    const char *slash = strchr(ref, '/');
    if (slash) {
        snprintf(ns, ns_len, "%.*s", (int)(slash - ref), ref);
        snprintf(name, name_len, "%s", slash + 1);
    } else {
        snprintf(ns, ns_len, "%s", kb->ns);
        snprintf(name, name_len, "%s", ref);
    }
    return *name ? 0 : -1;
}

struct kube_job *kube_job_find(struct kube_backend *kb, const char *uid)
{
    for (int i = 0; uid && i < kb->njobs; i++)
        if (strcmp(kb->jobs[i]->uid, uid) == 0)
            return kb->jobs[i];
    return NULL;
}

struct kube_job *kube_job_track(struct kube_backend *kb, const char *uid)
{
    struct kube_job *j = kube_job_find(kb, uid);
    if (j)
        return j;
    if (kb->njobs == kb->jobs_cap) {
        int cap = kb->jobs_cap ? 2 * kb->jobs_cap : 16;
        struct kube_job **grown = realloc(kb->jobs, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        kb->jobs = grown;
        kb->jobs_cap = cap;
    }
    if (!(j = calloc(1, sizeof *j)))
        return NULL;
    snprintf(j->uid, sizeof j->uid, "%s", uid);
    j->held = json_object();
    j->companions = json_array();
    j->epoch = ++kb->epoch;
    kb->jobs[kb->njobs++] = j;
    return j;
}

void kube_job_drop(struct kube_backend *kb, struct kube_job *j)
{
    for (int i = 0; i < kb->njobs; i++) {
        if (kb->jobs[i] != j)
            continue;
        kb->jobs[i] = kb->jobs[--kb->njobs];
        json_decref(j->held);
        json_decref(j->companions);
        free(j->pods);
        free(j);
        return;
    }
}

void kube_post(struct kube_backend *kb, struct backend_update *u)
{
    if (u)
        kb->host.post(kb->host.ctx, u);
}
