/* Volcano's task-topology plugin: a job's annotations say which of its tasks talk (affinity), which
 * must stay apart (anti-affinity) and which go first (task order); the job's replicas are put in
 * buckets meant for one node each, tasks in buckets are placed first, and nodes score by bucket. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hashmap.h"
#include "scheduler/framework/plugin.h"

#define AFFINITY_ANNOTATION "volcano.sh/task-topology-affinity"
#define ANTI_AFFINITY_ANNOTATION "volcano.sh/task-topology-anti-affinity"
#define TASK_ORDER_ANNOTATION "volcano.sh/task-topology-task-order"
#define MAX_NODE_SCORE 100

/* Volcano's priorities of a task's topology kinds: the higher one a task has is its priority. */
enum { PRIO_INTER_ANTI = 1, PRIO_SELF_AFFINITY = 2, PRIO_INTER_AFFINITY = 3, PRIO_SELF_ANTI = 4 };

struct node_count {
    int node;
    int32_t count;
};

struct bucket {
    int32_t *names;           /* per job task: replicas of it in the bucket, bound or not (taskNameSet) */
    int32_t *unbound;         /* per job task: replicas of it not placed yet (bucket.tasks) */
    int32_t nunbound;         /* sum of unbound */
    struct resvec request;    /* requests of the unbound replicas */
    double req_score;         /* 1 cpu = 1 GPU = 1Gi alike, as Volcano weighs them */
    struct node_count *nodes; /* replicas of the bucket bound per session node */
    int nnodes, nodes_cap;
};

/* One job's topology (Volcano's JobManager). Task indexes are the job's. */
struct job_topology {
    const struct job *job;
    int ntasks;
    uint8_t *affinity; /* ntasks x ntasks: i and j (or i itself) want one node */
    uint8_t *anti;     /* ntasks x ntasks: i and j (or i itself) want different nodes */
    int *priority;     /* per task: the highest kind it has, 0: none (out of buckets) */
    int *order;        /* per task: from the task-order annotation, first listed highest, 0 unlisted */
    struct bucket *buckets;
    int nbuckets;
    int32_t bucket_max; /* the most replicas any bucket holds */
    int **bucket_of;    /* per job task: the bucket of its k-th pending replica */
    int32_t *initial;   /* per job task: its pending replicas when the session opened */
    int32_t *placed_on; /* session nodes x ntasks: replicas placed there in this session (nodeTaskSet) */
    int nnodes;
};

struct topology_state {
    double weight;
    struct hmap jobs; /* job_info -> struct job_topology */
    const struct session *ssn;
};

/* --- reading the annotations --------------------------------------------------------------------- */

static int task_index(const struct job *job, const char *name, size_t len)
{
    for (int t = 0; t < job->ntasks; t++)
        if (strlen(job->tasks[t].name) == len && strncmp(job->tasks[t].name, name, len) == 0)
            return t;
    return -1;
}

/* Volcano's splitAnnotations and affinityCheck: "a,b;c" into groups; a name that is no task of the
 * job, or twice in a group, makes the whole annotation invalid (-1). Marks matrix and the tasks' priorities. */
static int read_groups(const struct job *job, const char *text, struct job_topology *jt, uint8_t *matrix, int self_prio,
                       int inter_prio)
{
    int *members = malloc((size_t)(job->ntasks + 1) * sizeof *members);
    if (!members)
        return -1;
    const char *p = text;
    int rc = 0;
    while (rc == 0) {
        const char *end = strchr(p, ';');
        size_t glen = end ? (size_t)(end - p) : strlen(p);
        int n = 0;
        for (const char *q = p; q < p + glen && rc == 0;) {
            const char *comma = memchr(q, ',', (size_t)(p + glen - q));
            size_t len = comma ? (size_t)(comma - q) : (size_t)(p + glen - q);
            if (len > 0) {
                int t = task_index(job, q, len);
                for (int i = 0; i < n && t >= 0; i++)
                    if (members[i] == t)
                        t = -1;
                if (t < 0 || n == job->ntasks)
                    rc = -1;
                else
                    members[n++] = t;
            }
            q += len + (comma ? 1 : 0);
            if (!comma)
                break;
        }
        if (rc == 0 && n == 1) {
            matrix[members[0] * jt->ntasks + members[0]] = 1;
            if (jt->priority[members[0]] < self_prio)
                jt->priority[members[0]] = self_prio;
        } else if (rc == 0 && n > 1) {
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++)
                    if (i != j)
                        matrix[members[i] * jt->ntasks + members[j]] = 1;
                if (jt->priority[members[i]] < inter_prio)
                    jt->priority[members[i]] = inter_prio;
            }
        }
        if (!end)
            break;
        p = end + 1;
    }
    free(members);
    return rc;
}

static int read_order(const struct job *job, const char *text, struct job_topology *jt)
{
    int count = 1;
    for (const char *c = text; *c; c++)
        count += *c == ',';
    int position = 0;
    for (const char *q = text;; position++) {
        const char *comma = strchr(q, ',');
        size_t len = comma ? (size_t)(comma - q) : strlen(q);
        if (len > 0) {
            int t = task_index(job, q, len);
            if (t < 0 || jt->order[t] != 0)
                return -1;
            jt->order[t] = count - position;
        }
        if (!comma)
            break;
        q = comma + 1;
    }
    return 0;
}

/* --- buckets -------------------------------------------------------------------------------------- */

static double req_score(const struct resvec *r)
{
    return (double)r->v[RES_CPU] + (double)(r->v[RES_MEMORY] >> 20) + (double)r->v[RES_GPU] * 1000;
}

/* Volcano's checkTaskSetAffinity: + pods the task has affinity with, - those it must avoid. */
static int set_affinity(const struct job_topology *jt, int task, const int32_t *names, bool only_anti)
{
    int score = 0;
    for (int t = 0; t < jt->ntasks; t++) {
        if (names[t] == 0)
            continue;
        if (!only_anti && jt->affinity[task * jt->ntasks + t])
            score += names[t];
        if (jt->anti[task * jt->ntasks + t])
            score -= names[t];
    }
    return score;
}

static struct bucket *new_bucket(struct job_topology *jt)
{
    struct bucket *grown = realloc(jt->buckets, (size_t)(jt->nbuckets + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    jt->buckets = grown;
    struct bucket *b = &jt->buckets[jt->nbuckets];
    memset(b, 0, sizeof *b);
    b->names = calloc((size_t)jt->ntasks, sizeof *b->names);
    b->unbound = calloc((size_t)jt->ntasks, sizeof *b->unbound);
    if (!b->names || !b->unbound) {
        free(b->names);
        free(b->unbound);
        return NULL;
    }
    jt->nbuckets++;
    return b;
}

static int bucket_node_add(struct bucket *b, int node, int32_t count)
{
    for (int i = 0; i < b->nnodes; i++)
        if (b->nodes[i].node == node) {
            b->nodes[i].count += count;
            return 0;
        }
    if (b->nnodes == b->nodes_cap) {
        int cap = b->nodes_cap ? b->nodes_cap * 2 : 4;
        struct node_count *n = realloc(b->nodes, (size_t)cap * sizeof *n);
        if (!n)
            return -1;
        b->nodes = n;
        b->nodes_cap = cap;
    }
    b->nodes[b->nnodes++] = (struct node_count){node, count};
    return 0;
}

static int32_t bucket_on(const struct bucket *b, int node)
{
    for (int i = 0; i < b->nnodes; i++)
        if (b->nodes[i].node == node)
            return b->nodes[i].count;
    return 0;
}

/* Volcano's taskAffinityOrder: >0 when a goes before b (listed earlier, then higher priority). */
static int affinity_order(const struct job_topology *jt, int a, int b)
{
    if (jt->order[a] != jt->order[b])
        return jt->order[a] > jt->order[b] ? 1 : -1;
    if (jt->priority[a] != jt->priority[b])
        return jt->priority[a] > jt->priority[b] ? 1 : -1;
    return 0;
}

/* Running replicas first, one bucket per node; then pending ones task by task in affinity order,
 * each into the bucket it has most affinity with (the lightest on ties), or a new one. */
static int build_buckets(struct job_topology *jt, const struct session *ssn, const struct job_info *ji)
{
    const struct job *job = ji->job;
    int *session_node_of = calloc((size_t)ssn->cluster->nnodes + 1, sizeof *session_node_of);
    int *node_bucket = malloc((size_t)(ssn->nnodes + 1) * sizeof *node_bucket);
    int *tasks = malloc((size_t)(jt->ntasks + 1) * sizeof *tasks);
    if (!session_node_of || !node_bucket || !tasks)
        goto fail;
    for (int n = 0; n < ssn->nnodes; n++) {
        session_node_of[ssn->nodes[n].index] = n + 1;
        node_bucket[n] = -1;
    }
    for (int t = 0; t < job->ntasks; t++) {
        if (!jt->priority[t])
            continue;
        for (int32_t i = 0; i < job->tasks[t].replicas; i++) {
            const struct replica *r = job_replica((struct job *)job, t, i);
            int n = r->node >= 0 && r->phase == POD_RUNNING ? session_node_of[r->node] - 1 : -1;
            if (n < 0)
                continue;
            if (node_bucket[n] < 0) {
                if (!new_bucket(jt))
                    goto fail;
                node_bucket[n] = jt->nbuckets - 1;
            }
            struct bucket *b = &jt->buckets[node_bucket[n]];
            b->names[t]++;
            if (bucket_node_add(b, n, 1) != 0)
                goto fail;
        }
    }
    int ntasks = 0;
    for (int i = 0; i < ji->ntasks; i++) {
        int t = ji->tasks[i].task;
        if (!jt->priority[t])
            continue;
        int at = ntasks++;
        for (; at > 0 && affinity_order(jt, t, tasks[at - 1]) > 0; at--)
            tasks[at] = tasks[at - 1];
        tasks[at] = t;
    }
    for (int i = 0; i < ntasks; i++) {
        int t = tasks[i];
        int32_t pending = jt->initial[t];
        if (!(jt->bucket_of[t] = malloc((size_t)(pending + 1) * sizeof *jt->bucket_of[t])))
            goto fail;
        const struct resvec *req = &job->tasks[t].request;
        for (int32_t k = 0; k < pending; k++) {
            int best = -1, most = INT_MIN;
            for (int b = 0; b < jt->nbuckets; b++) {
                int aff = set_affinity(jt, t, jt->buckets[b].names, false);
                if (aff > most ||
                    (aff == most && best >= 0 && jt->buckets[b].req_score < jt->buckets[best].req_score)) {
                    most = aff;
                    best = b;
                }
            }
            if (most < 0 || best < 0) {
                if (!new_bucket(jt))
                    goto fail;
                best = jt->nbuckets - 1;
            }
            struct bucket *b = &jt->buckets[best];
            b->names[t]++;
            b->unbound[t]++;
            b->nunbound++;
            resvec_add(&b->request, req);
            b->req_score += req_score(req);
            jt->bucket_of[t][k] = best;
        }
    }
    for (int b = 0; b < jt->nbuckets; b++) {
        int32_t size = 0;
        for (int t = 0; t < jt->ntasks; t++)
            size += jt->buckets[b].names[t];
        if (size > jt->bucket_max)
            jt->bucket_max = size;
    }
    free(session_node_of);
    free(node_bucket);
    free(tasks);
    return 0;
fail:
    free(session_node_of);
    free(node_bucket);
    free(tasks);
    return -1;
}

static void topology_free(struct job_topology *jt)
{
    if (!jt)
        return;
    for (int b = 0; b < jt->nbuckets; b++) {
        free(jt->buckets[b].names);
        free(jt->buckets[b].unbound);
        free(jt->buckets[b].nodes);
    }
    free(jt->buckets);
    for (int t = 0; jt->bucket_of && t < jt->ntasks; t++)
        free(jt->bucket_of[t]);
    free(jt->bucket_of);
    free(jt->affinity);
    free(jt->anti);
    free(jt->priority);
    free(jt->order);
    free(jt->initial);
    free(jt->placed_on);
    free(jt);
}

/* The job's topology, NULL when it has none (or its annotations are invalid: Volcano ignores them). */
static struct job_topology *read_topology(const struct session *ssn, const struct job_info *ji)
{
    const struct job *job = ji->job;
    const json_t *ann = job_annotations(job);
    const char *aff = json_string_value(json_object_get(ann, AFFINITY_ANNOTATION));
    const char *anti = json_string_value(json_object_get(ann, ANTI_AFFINITY_ANNOTATION));
    const char *order = json_string_value(json_object_get(ann, TASK_ORDER_ANNOTATION));
    if ((!aff && !anti && !order) || ji->pending == 0 || job->ntasks == 0)
        return NULL;
    struct job_topology *jt = calloc(1, sizeof *jt);
    if (!jt)
        return NULL;
    jt->job = job;
    int n = jt->ntasks = job->ntasks;
    jt->nnodes = ssn->nnodes;
    jt->affinity = calloc((size_t)(n * n), 1);
    jt->anti = calloc((size_t)(n * n), 1);
    jt->priority = calloc((size_t)n, sizeof *jt->priority);
    jt->order = calloc((size_t)n, sizeof *jt->order);
    jt->initial = calloc((size_t)n, sizeof *jt->initial);
    jt->bucket_of = calloc((size_t)n, sizeof *jt->bucket_of);
    jt->placed_on = calloc((size_t)(ssn->nnodes > 0 ? ssn->nnodes : 1) * (size_t)n, sizeof *jt->placed_on);
    if (!jt->affinity || !jt->anti || !jt->priority || !jt->order || !jt->initial || !jt->bucket_of || !jt->placed_on)
        goto fail;
    if ((aff && read_groups(job, aff, jt, jt->affinity, PRIO_SELF_AFFINITY, PRIO_INTER_AFFINITY) != 0) ||
        (anti && read_groups(job, anti, jt, jt->anti, PRIO_SELF_ANTI, PRIO_INTER_ANTI) != 0) ||
        (order && read_order(job, order, jt) != 0))
        goto fail;
    for (int i = 0; i < ji->ntasks; i++)
        jt->initial[ji->tasks[i].task] = ji->tasks[i].pending;
    if (build_buckets(jt, ssn, ji) != 0)
        goto fail;
    return jt;
fail:
    topology_free(jt);
    return NULL;
}

/* --- the callbacks ------------------------------------------------------------------------------------ */

static struct job_topology *topology_of(const struct topology_state *st, const struct job_info *ji)
{
    return ptrmap_get(&st->jobs, ji);
}

/* Tasks in buckets first; then the task-order annotation, then the topology kind's priority. */
static int topology_task_order(void *state, const struct job_info *ji, const struct task_info *a,
                               const struct task_info *b)
{
    const struct job_topology *jt = topology_of(state, ji);
    if (!jt)
        return 0;
    bool ain = jt->priority[a->task] != 0, bin = jt->priority[b->task] != 0;
    if (ain != bin)
        return ain ? -1 : 1;
    return -affinity_order(jt, a->task, b->task);
}

/* The bucket of the task's next replica, or NULL. */
static struct bucket *next_bucket(const struct job_topology *jt, const struct task_info *ti)
{
    if (!jt->bucket_of[ti->task])
        return NULL;
    int32_t k = jt->initial[ti->task] - ti->pending;
    return k >= 0 && k < jt->initial[ti->task] ? &jt->buckets[jt->bucket_of[ti->task][k]] : NULL;
}

/* Volcano's calcBucketScore: the bucket's replicas already on the node, less those the task must
 * avoid there, plus the bucket's unplaced replicas that the node could still take. */
static int bucket_score(const struct topology_state *st, const struct job_topology *jt, const struct task_info *ti,
                        int node)
{
    const struct node_info *ni = &st->ssn->nodes[node];
    struct resvec room = ni->idle;
    resvec_add(&room, &ni->releasing);
    if (resvec_first_short(ti->request, &room) >= 0)
        return 0;
    const struct bucket *b = next_bucket(jt, ti);
    if (!b)
        return 0;
    int score = bucket_on(b, node);
    int anti = set_affinity(jt, ti->task, &jt->placed_on[(size_t)node * (size_t)jt->ntasks], true);
    if (anti < 0)
        score += anti;
    score += b->nunbound;
    struct resvec remains = b->request;
    if (resvec_first_short(&remains, &room) < 0)
        return score;
    bool kept_self = false;
    for (int t = 0; t < jt->ntasks; t++) {
        for (int32_t k = 0; k < b->unbound[t]; k++) {
            if (t == ti->task && !kept_self) { /* the replica being placed stays in */
                kept_self = true;
                continue;
            }
            resvec_sub(&remains, &jt->job->tasks[t].request);
            score--;
            if (resvec_first_short(&remains, &room) < 0)
                return score;
        }
    }
    return score;
}

static double topology_node_order(void *state, const struct task_info *ti, const struct node_info *ni)
{
    const struct topology_state *st = state;
    const struct job_topology *jt = ti->job ? topology_of(st, ti->job) : NULL;
    if (!jt || jt->bucket_max == 0)
        return 0;
    int score = bucket_score(st, jt, ti, (int)(ni - st->ssn->nodes));
    return (double)score * st->weight * MAX_NODE_SCORE / jt->bucket_max;
}

/* Volcano's TaskBound: the replica leaves its bucket's unplaced set and counts on the node. */
static void topology_bind(void *state, const struct job_info *ji, const struct task_info *ti, int node, int32_t count)
{
    struct job_topology *jt = topology_of(state, ji);
    if (!jt)
        return;
    jt->placed_on[(size_t)node * (size_t)jt->ntasks + (size_t)ti->task] += count;
    if (!jt->bucket_of[ti->task])
        return;
    /* placing: ti->pending still counts this replica; undoing: it counts the undone ones already */
    int32_t first = jt->initial[ti->task] - ti->pending;
    int sign = count > 0 ? 1 : -1;
    for (int32_t i = 0; i < (count > 0 ? count : -count); i++) {
        int32_t k = first + i;
        if (k < 0 || k >= jt->initial[ti->task])
            continue;
        struct bucket *b = &jt->buckets[jt->bucket_of[ti->task][k]];
        const struct resvec *req = &jt->job->tasks[ti->task].request;
        b->unbound[ti->task] -= sign;
        b->nunbound -= sign;
        if (sign > 0) {
            resvec_sub(&b->request, req);
            b->req_score -= req_score(req);
        } else {
            resvec_add(&b->request, req);
            b->req_score += req_score(req);
        }
        bucket_node_add(b, node, sign);
    }
}

static void topology_close(struct session *ssn, void *state)
{
    (void)ssn;
    struct topology_state *st = state;
    if (!st)
        return;
    size_t pos = 0;
    const void *key;
    void *value;
    while (hmap_next(&st->jobs, &pos, &key, &value))
        topology_free(value);
    hmap_free(&st->jobs);
    free(st);
}

static int topology_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    struct topology_state *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    st->weight = plugin_arg_number(conf, "task-topology.weight", 1);
    st->ssn = ssn;
    *state = st;
    for (int j = 0; j < ssn->njobs; j++) {
        struct job_topology *jt = read_topology(ssn, &ssn->jobs[j]);
        if (jt && ptrmap_put(&st->jobs, &ssn->jobs[j], jt) != 0) {
            topology_free(jt);
            return -1;
        }
    }
    if (st->jobs.count == 0)
        return 0;
    session_add_task_order(ssn, conf, tier, topology_task_order, st);
    session_add_node_order(ssn, conf, tier, topology_node_order, st);
    session_add_bind_event(ssn, topology_bind, st);
    return 0;
}

const struct plugin_def plugin_task_topology = {"task-topology", topology_open, topology_close};
