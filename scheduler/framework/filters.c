/* The static-filter cache: which nodes a task may ever use (labels, affinity, taints) depends only
 * on its constraints signature, so it is computed once per signature and session, one byte per
 * node (0 = passes, k = fails with the k-th recorded reason). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hashmap.h"
#include "scheduler/framework/hooks.h"

#define MAX_FILTER_REASONS 16

struct filter_entry {
    char *signature;
    uint8_t *verdict; /* per session node */
    int nreasons;
    char reasons[MAX_FILTER_REASONS][SESSION_REASON_MAX];
};

struct filter_cache {
    struct hmap by_signature;
    struct filter_entry **entries;
    int n;
};

static uint8_t reason_code(struct filter_entry *e, const char *reason)
{
    for (int i = 0; i < e->nreasons; i++)
        if (strcmp(e->reasons[i], reason) == 0)
            return (uint8_t)(i + 1);
    if (e->nreasons == MAX_FILTER_REASONS)
        return MAX_FILTER_REASONS; /* more distinct reasons than kept: the last one stands for them */
    snprintf(e->reasons[e->nreasons], SESSION_REASON_MAX, "%s", reason[0] ? reason : "node(s) didn't match");
    return (uint8_t)++e->nreasons;
}

static struct filter_entry *compute(struct session *ssn, const struct task_info *task, const char *signature)
{
    struct filter_entry *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->signature = strdup(signature);
    e->verdict = calloc((size_t)(ssn->nnodes > 0 ? ssn->nnodes : 1), 1);
    if (!e->signature || !e->verdict) {
        free(e->signature);
        free(e->verdict);
        free(e);
        return NULL;
    }
    char reason[SESSION_REASON_MAX];
    for (int n = 0; n < ssn->nnodes; n++) {
        reason[0] = '\0';
        if (!session_run_node_filters(ssn, task, ssn->nodes[n].node, reason, sizeof reason))
            e->verdict[n] = reason_code(e, reason);
    }
    return e;
}

static int entry_for(struct session *ssn, const struct task_info *task)
{
    if (!ssn->filters && !(ssn->filters = calloc(1, sizeof *ssn->filters)))
        return -1;
    struct filter_cache *fc = ssn->filters;
    const char *sig = task->spec && task->spec->constraints.signature ? task->spec->constraints.signature : "";
    struct filter_entry *found = strmap_get(&fc->by_signature, sig);
    if (found) {
        for (int i = 0; i < fc->n; i++)
            if (fc->entries[i] == found)
                return i;
    }
    struct filter_entry **grown = realloc(fc->entries, (size_t)(fc->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    fc->entries = grown;
    struct filter_entry *e = compute(ssn, task, sig);
    if (!e || strmap_put(&fc->by_signature, e->signature, e) != 0) {
        if (e) {
            free(e->signature);
            free(e->verdict);
            free(e);
        }
        return -1;
    }
    fc->entries[fc->n] = e;
    return fc->n++;
}

bool session_node_passes_filters(struct session *ssn, struct task_info *task, int node, char *reason, int reason_len)
{
    if (ssn->hooks->node_filter.n == 0)
        return true;
    if (task->filter < 0)
        task->filter = entry_for(ssn, task);
    if (task->filter < 0) /* out of memory: ask the filters directly */
        return session_run_node_filters(ssn, task, ssn->nodes[node].node, reason, reason_len);
    const struct filter_entry *e = ssn->filters->entries[task->filter];
    uint8_t v = e->verdict[node];
    if (v == 0)
        return true;
    snprintf(reason, (size_t)reason_len, "%s", e->reasons[v - 1]);
    return false;
}

void session_filters_free(struct session *ssn)
{
    struct filter_cache *fc = ssn->filters;
    if (!fc)
        return;
    for (int i = 0; i < fc->n; i++) {
        free(fc->entries[i]->signature);
        free(fc->entries[i]->verdict);
        free(fc->entries[i]);
    }
    free(fc->entries);
    hmap_free(&fc->by_signature);
    free(fc);
    ssn->filters = NULL;
}
