/* The tdm plugin (Volcano's time-division multiplexing): nodes labelled volcano.sh/revocable-zone=<zone>
 * take preemptable pods only while the zone's daily window (argument tdm.revocable-zone.<zone>:
 * "10:00-21:00", the server's local time) is open, and their preemptable pods are evicted once it closes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scheduler/framework/plugin.h"

#define ZONE_LABEL "volcano.sh/revocable-zone"
#define ZONE_ARG_PREFIX "tdm.revocable-zone."
#define ZONES_MAX 32
#define MINUTES_PER_DAY (24 * 60)

struct zone {
    char name[64];
    char window[16]; /* as configured, for messages */
    int start, end;  /* minutes of the day; end <= start: the window spans midnight */
    bool valid;
};

struct tdm {
    struct session *ssn;
    int minute; /* of the day, local time, at the session's now */
    int nzones;
    struct zone zones[ZONES_MAX];
};

static int parse_clock(const char *s, int *minutes)
{
    int h, m;
    char tail;
    if (sscanf(s, "%d:%d%c", &h, &m, &tail) != 2 || h < 0 || h > 23 || m < 0 || m > 59)
        return -1;
    *minutes = h * 60 + m;
    return 0;
}

/* "10:00-21:00" (spaces around allowed). Returns 0, or -1. */
static int parse_window(const char *text, struct zone *z)
{
    char a[16], b[16];
    if (sscanf(text, " %15[0-9:] - %15[0-9:] ", a, b) != 2)
        return -1;
    return parse_clock(a, &z->start) == 0 && parse_clock(b, &z->end) == 0 ? 0 : -1;
}

static bool window_open(const struct zone *z, int minute)
{
    if (!z->valid)
        return false;
    if (z->start < z->end)
        return minute >= z->start && minute < z->end;
    return minute >= z->start || minute < z->end;
}

/* The node's zone, or NULL when it is not revocable. *z is the configured zone, NULL when none is. */
static const char *node_zone(const struct tdm *s, const struct node *n, const struct zone **z)
{
    const char *name = json_string_value(json_object_get(n->labels, ZONE_LABEL));
    *z = NULL;
    if (!name || !*name)
        return NULL;
    for (int i = 0; i < s->nzones; i++)
        if (strcmp(s->zones[i].name, name) == 0)
            *z = &s->zones[i];
    return name;
}

/* May the task go to revocable nodes? Volcano lets pods annotated volcano.sh/revocable-zone: "*";
 * Caldera also lets preemptable ones, which are the ones evicted when the window closes. */
static bool task_revocable(const struct task_spec *ts) { return ts->revocable_zone || ts->preemptable; }

static bool job_preemptable(const struct job *job)
{
    for (int t = 0; t < job->ntasks; t++)
        if (!job->tasks[t].preemptable)
            return false;
    return job->ntasks > 0;
}

static bool tdm_predicate(void *state, const struct job_info *job, const struct task_info *task,
                          const struct node_info *node, char *reason, int reason_len)
{
    (void)job;
    const struct tdm *s = state;
    const struct zone *z;
    const char *name = node_zone(s, node->node, &z);
    if (!name)
        return true;
    if (!z || !window_open(z, s->minute)) {
        snprintf(reason, (size_t)reason_len, "node(s) were in revocable zone %s outside its window %s", name,
                 z ? z->window : "(none configured)");
        return false;
    }
    if (!task_revocable(task->spec)) {
        snprintf(reason, (size_t)reason_len, "node(s) were revocable and the pod is not preemptable");
        return false;
    }
    return true;
}

static double tdm_order(void *state, const struct task_info *task, const struct node_info *node)
{
    const struct tdm *s = state;
    const struct zone *z;
    if (!node_zone(s, node->node, &z) || !z || !window_open(z, s->minute) || !task_revocable(task->spec))
        return 0;
    return 100; /* MaxNodeScore: revocable capacity is used first by those who may use it */
}

static int tdm_job_order(void *state, const struct job_info *a, const struct job_info *b)
{
    (void)state;
    bool pa = job_preemptable(a->job), pb = job_preemptable(b->job);
    return pa == pb ? 0 : pa ? 1 : -1;
}

/* A preemptable or revocable preemptor evicts nobody; others may evict preemptable pods on nodes
 * that are not revocable. */
static int tdm_preemptable(void *state, const struct job_info *job, struct victim **cands, int n)
{
    const struct tdm *s = state;
    for (int t = 0; t < job->ntasks; t++) {
        const struct task_spec *ts = job->tasks[t].spec;
        if (job->tasks[t].pending > 0 && (ts->preemptable || ts->revocable_zone))
            return 0;
    }
    int kept = 0;
    for (int i = 0; i < n; i++) {
        const struct victim *v = cands[i];
        const struct task_spec *ts = &v->job->tasks[job_task_of(v->job, v->flat)];
        const struct zone *z;
        if (ts->preemptable && !node_zone(s, s->ssn->nodes[v->node].node, &z))
            cands[kept++] = cands[i];
    }
    return kept;
}

/* The zone's window closed: its nodes' preemptable pods are evicted, saying why. */
static void evict_closed_zones(struct tdm *s)
{
    struct session *ssn = s->ssn;
    for (int n = 0; n < ssn->nnodes; n++) {
        const struct zone *z;
        const char *name = node_zone(s, ssn->nodes[n].node, &z);
        if (!name || (z && window_open(z, s->minute)))
            continue;
        int count;
        struct victim **v = session_victims_on(ssn, n, &count);
        for (int i = 0; i < count; i++) {
            const struct task_spec *ts = &v[i]->job->tasks[job_task_of(v[i]->job, v[i]->flat)];
            if (v[i]->evicted || !ts->preemptable)
                continue;
            session_evict(ssn, v[i], "evicted by tdm: revocable zone %s closed (window %s) on node %s", name,
                          z ? z->window : "none configured", ssn->nodes[n].node->name);
        }
    }
}

static int tdm_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    struct tdm *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->ssn = ssn;
    time_t secs = (time_t)(ssn->now_ms / 1000);
    struct tm tm;
    localtime_r(&secs, &tm);
    s->minute = tm.tm_hour * 60 + tm.tm_min;
    const char *key;
    json_t *value;
    if (conf->arguments)
        json_object_foreach(conf->arguments, key, value)
        {
            if (strncmp(key, ZONE_ARG_PREFIX, strlen(ZONE_ARG_PREFIX)) != 0 || s->nzones == ZONES_MAX)
                continue;
            struct zone *z = &s->zones[s->nzones++];
            snprintf(z->name, sizeof z->name, "%s", key + strlen(ZONE_ARG_PREFIX));
            const char *text = json_string_value(value);
            snprintf(z->window, sizeof z->window, "%s", text ? text : "?");
            z->valid = text && parse_window(text, z) == 0; /* an unreadable window is never open */
        }
    *state = s;
    session_add_predicate(ssn, conf, tier, tdm_predicate, s);
    session_add_node_order(ssn, conf, tier, tdm_order, s);
    session_add_job_order(ssn, conf, tier, tdm_job_order, s);
    session_add_preemptable(ssn, conf, tier, tdm_preemptable, s);
    return 0;
}

static void tdm_close(struct session *ssn, void *state)
{
    (void)ssn;
    struct tdm *s = state;
    evict_closed_zones(s);
    free(s);
}

const struct plugin_def plugin_tdm = {"tdm", tdm_open, tdm_close};
