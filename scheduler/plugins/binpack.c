/* The binpack plugin: Volcano's best-fit score, favouring nodes that the task would fill most,
 * weighted per resource (cpu, memory, and the extended resources named in its arguments). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/framework/plugin.h"

#define MAX_NODE_SCORE 100

struct binpack_state {
    double weight;         /* binpack.weight: the whole score's */
    bool weighed[RES_MAX]; /* the resource is one binpack weighs (cpu, memory, binpack.resources) */
    double res_weight[RES_MAX];
};

/* Volcano's ResourceBinPackingScore for one resource: (used + request) x weight / allocatable.
 * Returns false when the request does not fit there. */
static bool resource_part(int64_t request, int64_t used, int64_t allocatable, double weight, double *part)
{
    *part = 0;
    if (allocatable == 0 || weight == 0)
        return true;
    if (used + request > allocatable)
        return false;
    *part = (double)(used + request) * weight / (double)allocatable;
    return true;
}

/* Σ_r weight_r x (used_r + request_r) / allocatable_r over the weighed resources the task requests,
 * over Σ weight_r, x 100 x binpack.weight; 0 when some of them does not fit. */
static double binpack_score(void *state, const struct task_info *task, const struct node_info *ni)
{
    const struct binpack_state *st = state;
    double score = 0, weights = 0;
    for (int r = 0; r < RES_MAX; r++) {
        int64_t request = task->request->v[r];
        if (request == 0 || !st->weighed[r])
            continue;
        int64_t allocatable = ni->node->allocatable.v[r];
        double part;
        if (!resource_part(request, allocatable - ni->idle.v[r], allocatable, st->res_weight[r], &part))
            return 0;
        score += part;
        weights += st->res_weight[r];
    }
    if (weights > 0)
        score /= weights;
    return score * MAX_NODE_SCORE * st->weight;
}

/* A resource weight from the arguments; Volcano puts a negative one back to 1. */
static double resource_weight(const struct plugin_conf *conf, const char *key)
{
    double w = plugin_arg_number(conf, key, 1);
    return w < 0 ? 1 : w;
}

static void weigh(struct binpack_state *st, int index, double weight)
{
    if (index < 0 || index >= RES_MAX || index == RES_PODS) /* unknown names: no node offers them */
        return;
    st->weighed[index] = true;
    st->res_weight[index] = weight;
}

/* binpack.resources: "nvidia.com/gpu, example.com/foo", each weighed by binpack.resources.<name>. */
static void weigh_listed_resources(struct binpack_state *st, const struct plugin_conf *conf)
{
    const json_t *arg = conf->arguments ? json_object_get(conf->arguments, "binpack.resources") : NULL;
    const char *list = json_string_value(arg);
    while (list && *list) {
        const char *comma = strchr(list, ',');
        const char *end = comma ? comma : list + strlen(list);
        while (list < end && isspace((unsigned char)*list))
            list++;
        size_t len = (size_t)(end - list);
        while (len > 0 && isspace((unsigned char)list[len - 1]))
            len--;
        char name[RES_NAME_MAX], key[RES_NAME_MAX + 32];
        if (len > 0 && len < sizeof name) {
            memcpy(name, list, len);
            name[len] = '\0';
            snprintf(key, sizeof key, "binpack.resources.%s", name);
            weigh(st, resource_index(name), resource_weight(conf, key));
        }
        list = comma ? comma + 1 : NULL;
    }
}

static int binpack_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    *state = NULL;
    double weight = plugin_arg_number(conf, "binpack.weight", 1);
    if (!conf->enabled[SW_NODE_ORDER] || weight == 0) /* Volcano skips a zero-weight binpack */
        return 0;
    struct binpack_state *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    st->weight = weight;
    weigh_listed_resources(st, conf);
    weigh(st, RES_CPU, resource_weight(conf, "binpack.cpu")); /* after the list: these two win, as in Volcano */
    weigh(st, RES_MEMORY, resource_weight(conf, "binpack.memory"));
    *state = st;
    session_add_node_order(ssn, conf, tier, binpack_score, st);
    return 0;
}

static void binpack_close(struct session *ssn, void *state)
{
    (void)ssn;
    free(state);
}

const struct plugin_def plugin_binpack = {"binpack", binpack_open, binpack_close};
