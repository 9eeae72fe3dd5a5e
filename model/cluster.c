/* All live state the core thread owns, with its indexes. Jobs are kept in creation order
 * (FIFO placement and listing), by "ns/name" for the API and by uid for history and processes. */
#include "model/cluster.h"

#include <stdlib.h>
#include <string.h>

void cluster_claim(struct cluster *c)
{
    c->owner = pthread_self();
    c->owned = true;
}

bool cluster_on_owner(const struct cluster *c) { return !c->owned || pthread_equal(c->owner, pthread_self()); }

struct job *cluster_wake(const struct cluster *c, struct job *job)
{
    if (!job || !job->dormant)
        return job;
    return c->wake && c->wake(c->wake_ctx, job) == 0 ? job : NULL;
}

struct job *cluster_find_job(const struct cluster *c, const char *ns, const char *name)
{
    char key[512];
    int n = snprintf(key, sizeof key, "%s/%s", ns, name);
    if (n < 0 || n >= (int)sizeof key)
        return NULL;
    return cluster_wake(c, strmap_get(&c->jobs_by_key, key));
}

struct job *cluster_find_job_uid(const struct cluster *c, const char *uid)
{
    return cluster_wake(c, strmap_get(&c->jobs_by_uid, uid));
}

/* A job is in one of two lists through the same links: the active list, or once retired the retired
 * list (in retirement order). */
static void list_append(struct job **first, struct job **last, struct job *job)
{
    job->active_prev = *last;
    job->active_next = NULL;
    if (*last)
        (*last)->active_next = job;
    else
        *first = job;
    *last = job;
}

int job_order_compare(const struct job *job, int64_t created_ms, const char *uid)
{
    if (job->created_ms != created_ms)
        return job->created_ms < created_ms ? -1 : 1;
    return strcmp(job->uid, uid);
}

static int index_job(struct cluster *c, struct job *job)
{
    cluster_assert_owner(c);
    if (strmap_put(&c->jobs_by_key, job->key, job) != 0)
        return -1;
    if (strmap_put(&c->jobs_by_uid, job->uid, job) != 0) {
        strmap_remove(&c->jobs_by_key, job->key);
        return -1;
    }
    return 0;
}

/* Links an indexed job into the creation order after `before` (NULL: first) and into the active list. */
static void link_job(struct cluster *c, struct job *job, struct job *before)
{
    job->prev = before;
    job->next = before ? before->next : c->first;
    if (job->next)
        job->next->prev = job;
    else
        c->last = job;
    if (before)
        before->next = job;
    else
        c->first = job;
    c->njobs++;
    job->active = true;
    list_append(&c->active_first, &c->active_last, job);
    c->nactive++;
}

int cluster_add_job(struct cluster *c, struct job *job)
{
    if (index_job(c, job) != 0)
        return -1;
    struct job *before = c->last; /* nearly always the last: creation times grow */
    while (before && job_order_compare(before, job->created_ms, job->uid) > 0)
        before = before->prev;
    link_job(c, job, before);
    return 0;
}

int cluster_add_job_after(struct cluster *c, struct job *job, struct job **cursor)
{
    if (index_job(c, job) != 0)
        return -1;
    struct job *before = *cursor, *next = before ? before->next : c->first;
    for (; next && job_order_compare(next, job->created_ms, job->uid) < 0; next = next->next)
        before = next;
    link_job(c, job, before);
    *cursor = job;
    return 0;
}

static void list_unlink(struct job **first, struct job **last, struct job *job)
{
    if (job->active_prev)
        job->active_prev->active_next = job->active_next;
    else if (*first == job)
        *first = job->active_next;
    if (job->active_next)
        job->active_next->active_prev = job->active_prev;
    else if (*last == job)
        *last = job->active_prev;
    job->active_prev = job->active_next = NULL;
}

void cluster_retire_job(struct cluster *c, struct job *job)
{
    cluster_assert_owner(c);
    if (!job->active)
        return;
    list_unlink(&c->active_first, &c->active_last, job);
    job->active = false;
    c->nactive--;
    assert(c->nactive >= 0);
    list_append(&c->retired_first, &c->retired_last, job);
    c->nretired++;
}

void cluster_unname_job(struct cluster *c, struct job *job)
{
    cluster_assert_owner(c);
    if (strmap_get(&c->jobs_by_key, job->key) == job)
        strmap_remove(&c->jobs_by_key, job->key);
}

void cluster_remove_job(struct cluster *c, struct job *job)
{
    cluster_assert_owner(c);
    if (job->active) {
        list_unlink(&c->active_first, &c->active_last, job);
        job->active = false;
        c->nactive--;
    } else if (job->active_prev || job->active_next || c->retired_first == job) {
        list_unlink(&c->retired_first, &c->retired_last, job);
        c->nretired--;
    }
    cluster_unname_job(c, job);
    strmap_remove(&c->jobs_by_uid, job->uid);
    if (job->prev)
        job->prev->next = job->next;
    else
        c->first = job->next;
    if (job->next)
        job->next->prev = job->prev;
    else
        c->last = job->prev;
    job->prev = job->next = NULL;
    c->njobs--;
    assert(c->njobs >= 0 && c->nactive >= 0 && c->nretired >= 0);
}

struct queue *cluster_find_queue(const struct cluster *c, const char *name)
{
    for (int i = 0; i < c->nqueues; i++)
        if (strcmp(c->queues[i]->name, name) == 0)
            return c->queues[i];
    return NULL;
}

int cluster_add_queue(struct cluster *c, struct queue *q)
{
    cluster_assert_owner(c);
    struct queue **qs = realloc(c->queues, (size_t)(c->nqueues + 1) * sizeof *qs);
    if (!qs)
        return -1;
    qs[c->nqueues++] = q;
    c->queues = qs;
    return 0;
}

int cluster_find_node(const struct cluster *c, const char *name)
{
    for (int i = 0; i < c->nnodes; i++)
        if (strcmp(c->nodes[i].name, name) == 0)
            return i;
    return -1;
}

struct priority_class *cluster_find_priority_class(const struct cluster *c, const char *name)
{
    for (int i = 0; i < c->npriority_classes; i++)
        if (strcmp(c->priority_classes[i]->name, name) == 0)
            return c->priority_classes[i];
    return NULL;
}

struct priority_class *cluster_default_priority_class(const struct cluster *c)
{
    for (int i = 0; i < c->npriority_classes; i++)
        if (c->priority_classes[i]->global_default)
            return c->priority_classes[i];
    return NULL;
}

struct job *cluster_find_pod(const struct cluster *c, const char *ns, const char *pod, int *task, int *index)
{
    /* Pod names are "<job>-<task>-<index>" and names contain dashes: try each split point. */
    char key[512];
    int nslen = snprintf(key, sizeof key, "%s/", ns);
    size_t plen = strlen(pod);
    if (nslen < 0 || (size_t)nslen + plen >= sizeof key)
        return NULL;
    for (size_t i = 1; i < plen; i++) {
        if (pod[i] != '-')
            continue;
        memcpy(key + nslen, pod, i);
        key[(size_t)nslen + i] = '\0';
        struct job *job = cluster_wake(c, strmap_get(&c->jobs_by_key, key));
        if (job && job_parse_pod_name(job, pod, task, index) == 0)
            return job;
    }
    return NULL;
}

int cluster_add_remote_node(struct cluster *c, const char *name, const char *backend, int64_t now_ms)
{
    int at = cluster_find_node(c, name);
    if (at >= 0)
        return at;
    struct node *nodes = realloc(c->nodes, (size_t)(c->nnodes + 1) * sizeof *nodes);
    if (!nodes)
        return -1;
    c->nodes = nodes;
    struct node *n = &nodes[c->nnodes];
    memset(n, 0, sizeof *n);
    n->name = strdup(name);
    n->address = strdup(name);
    n->labels = json_pack("{s:s, s:s}", "kubernetes.io/hostname", name, "caldera.io/backend", backend);
    n->taints = json_array();
    n->manifest = n->labels ? json_pack("{s:{s:s, s:O}, s:{s:b}}", "metadata", "name", name, "labels", n->labels,
                                        "spec", "unschedulable", 1)
                            : NULL;
    n->unschedulable = true;
    n->remote = true;
    n->created_ms = now_ms;
    if (!n->name || !n->address || !n->labels || !n->taints || !n->manifest) {
        node_clear(n);
        return -1;
    }
    return c->nnodes++;
}

void cluster_free(struct cluster *c)
{
    struct job *j = c->first;
    while (j) {
        struct job *next = j->next;
        job_free(j);
        j = next;
    }
    hmap_free(&c->jobs_by_key);
    hmap_free(&c->jobs_by_uid);
    for (int i = 0; i < c->nnodes; i++)
        node_clear(&c->nodes[i]);
    free(c->nodes);
    for (int i = 0; i < c->nqueues; i++)
        queue_free(c->queues[i]);
    free(c->queues);
    for (int i = 0; i < c->npriority_classes; i++)
        priority_class_free(c->priority_classes[i]);
    free(c->priority_classes);
    for (int i = 0; i < c->nquotas; i++)
        resource_quota_free(c->quotas[i]);
    free(c->quotas);
    for (int i = 0; i < c->ncronjobs; i++)
        cron_job_free(c->cronjobs[i]);
    free(c->cronjobs);
    for (int i = 0; i < c->nconfigs; i++)
        config_object_free(c->configs[i]);
    free(c->configs);
    for (int i = 0; i < c->njobtemplates; i++)
        job_template_free(c->jobtemplates[i]);
    free(c->jobtemplates);
    for (int i = 0; i < c->njobflows; i++)
        job_flow_free(c->jobflows[i]);
    free(c->jobflows);
    memset(c, 0, sizeof *c);
}
