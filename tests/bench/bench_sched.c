/* The scheduler at scale, in-process, through the same parser and placement code the server uses:
 *   sched_placements_per_s - replicas placed per second by one cycle over 100,000 pending tasks
 *                            (gangs of 1-64, 500m-2 cpu and 1-8Gi each, 4 queues of weights 1-4,
 *                            2 priorities) on 5,000 nodes of 32 cpu and 256Gi, default tiers;
 *   sched_cycle_s          - that cycle's wall time (snapshot, enqueue, allocate, backfill);
 *   sched_bytes_per_task   - resident memory the 100,000 pending tasks take, per task;
 *   sched_placements_per_s_affinity - the same cycle with half the jobs asking for a required pod
 *                            anti-affinity (one replica per node) or a topology spread (maxSkew 1
 *                            over 50 zones of 100 nodes), each job selecting its own pods.
 * Medians of 5 cycles over the same state (a session never changes the cluster). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapters/intake/intake.h"
#include "adapters/objects/queue.h"
#include "adapters/dialects/volcano/job.h"
#include "common/fs.h"
#include "scheduler/framework/session.h"
#include "scheduler/registry.h"
#include "tests/lib/bench.h"

#define NODES 5000
#define TASKS 100000
#define QUEUES 4
#define RUNS 5

static long rss_bytes(void)
{
    char *data = NULL;
    long pages = 0;
    if (read_file("/proc/self/statm", 256, &data, NULL) == 0)
        sscanf(data, "%*d %ld", &pages);
    free(data);
    return pages * sysconf(_SC_PAGESIZE);
}

static void add_nodes(struct cluster *c)
{
    c->nodes = calloc(NODES, sizeof *c->nodes);
    for (int i = 0; i < NODES; i++) {
        struct node *n = &c->nodes[c->nnodes++];
        char name[32];
        snprintf(name, sizeof name, "node-%04d", i);
        n->name = strdup(name);
        char zone[16];
        snprintf(zone, sizeof zone, "zone-%02d", i / 100);
        n->labels = json_pack("{s:s, s:s}", "kubernetes.io/hostname", name, "topology.kubernetes.io/zone", zone);
        n->taints = json_array();
        n->allocatable.v[RES_CPU] = 32000;
        n->allocatable.v[RES_MEMORY] = 256LL << 30;
        n->allocatable.v[RES_PODS] = 110;
    }
}

static void add_queues(struct cluster *c)
{
    static const char *const names[QUEUES] = {"default", "team-a", "team-b", "team-c"};
    for (int q = 0; q < QUEUES; q++) {
        struct queue *queue = queue_new_default(q);
        free(queue->name);
        queue->name = strdup(names[q]);
        queue->weight = q + 1;
        cluster_add_queue(c, queue);
    }
}

/* A deterministic mix: xorshift, so every run places the same jobs. */
static uint32_t next_random(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* Job n's pod rule in the affinity mix: none for even jobs, else anti-affinity or spread over its own pods. */
static void pod_rule_of(int n, bool rules, char *out, size_t len)
{
    out[0] = '\0';
    if (!rules || n % 2 == 0)
        return;
    if (n % 4 == 1)
        snprintf(out, len,
                 "        affinity:\n          podAntiAffinity:\n"
                 "            requiredDuringSchedulingIgnoredDuringExecution:\n"
                 "            - {labelSelector: {matchLabels: {app: job-%d}}, topologyKey: kubernetes.io/hostname}\n",
                 n);
    else
        snprintf(out, len,
                 "        topologySpreadConstraints:\n"
                 "        - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,\n"
                 "           labelSelector: {matchLabels: {app: job-%d}}}\n",
                 n);
}

static int add_jobs(struct cluster *c, bool rules)
{
    static const char *const queues[QUEUES] = {"default", "team-a", "team-b", "team-c"};
    uint32_t seed = 12345;
    int tasks = 0, n = 0;
    while (tasks < TASKS) {
        int gang = 1 + (int)(next_random(&seed) % 64);
        if (tasks + gang > TASKS)
            gang = TASKS - tasks;
        char yaml[2048], rule[512];
        pod_rule_of(n, rules, rule, sizeof rule);
        snprintf(yaml, sizeof yaml,
                 "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: job-%d}\n"
                 "spec:\n  queue: %s\n  tasks:\n  - name: worker\n    replicas: %d\n"
                 "    template:\n      metadata: {labels: {app: job-%d}}\n      spec:\n%s"
                 "        containers:\n        - name: main\n          image: train:latest\n"
                 "          command: [python, train.py, --shard, \"$(VC_TASK_INDEX)\"]\n"
                 "          resources: {requests: {cpu: %dm, memory: %dGi}}\n",
                 n, queues[n % QUEUES], gang, n, rule, 500 * (1 + (int)(next_random(&seed) % 4)),
                 1 + (int)(next_random(&seed) % 8));
        struct intake in;
        struct api_status st = {0};
        struct job *job = NULL;
        if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st) != 0 ||
            volcano_job_from_doc(&in.docs[0], "default", &job, &st) != 0) {
            fprintf(stderr, "bench_sched: %s\n", st.message);
            return -1;
        }
        intake_free(&in);
        snprintf(job->uid, sizeof job->uid, "00000000-0000-4000-8000-%012d", n);
        job->created_ms = n;
        job->priority = n % 2 ? 1000 : 0; /* two priorities */
        if (asprintf(&job->key, "default/%s", job->name) < 0)
            return -1;
        job->status.phase = JOB_PENDING;
        job->pg.phase = PG_PENDING;
        cluster_add_job(c, job);
        tasks += gang;
        n++;
    }
    return n;
}

/* Median placements per second and cycle time over RUNS cycles of one cluster; *placed per cycle. */
static int measure(struct cluster *c, const struct sched_conf *conf, double *rate_out, double *cycle_out, long *placed)
{
    double cycle[RUNS], rate[RUNS];
    for (int r = 0; r < RUNS; r++) {
        struct session ssn;
        double t0 = bench_now();
        if (session_open(&ssn, &builtin_registry, c, conf, NULL, 1000) != 0)
            return -1;
        session_run(&ssn);
        session_close(&ssn);
        cycle[r] = bench_now() - t0;
        *placed = 0;
        for (int b = 0; b < ssn.nbinds; b++)
            *placed += ssn.binds[b].count;
        rate[r] = *placed / cycle[r];
        session_free(&ssn);
    }
    *rate_out = bench_median(rate, RUNS);
    *cycle_out = bench_median(cycle, RUNS);
    return 0;
}

int main(void)
{
    if (!bench_wanted("sched_"))
        return 0;
    struct sched_conf conf;
    sched_conf_default(&conf);
    int failed = 0;
    for (int rules = 0; rules < 2; rules++) {
        const char *rate_name = rules ? "sched_placements_per_s_affinity" : "sched_placements_per_s";
        bool plain_wanted = bench_wanted("sched_placements_per_s") || bench_wanted("sched_cycle_s") ||
                            bench_wanted("sched_bytes_per_task");
        if (rules ? !bench_wanted(rate_name) : !plain_wanted)
            continue;
        struct cluster c = {0};
        add_nodes(&c);
        add_queues(&c);
        long before = rss_bytes();
        int njobs = add_jobs(&c, rules);
        if (njobs < 0)
            return 1;
        long after = rss_bytes();
        double rate, cycle;
        long placed = 0;
        if (measure(&c, &conf, &rate, &cycle, &placed) != 0)
            return 1;
        fprintf(stderr, "bench_sched%s: %d jobs, %d tasks, %ld placed per cycle\n", rules ? " (pod rules)" : "", njobs,
                TASKS, placed);
        if (bench_wanted(rate_name))
            bench_report(rate_name, rate, "placements/s");
        if (!rules && bench_wanted("sched_cycle_s"))
            bench_report("sched_cycle_s", cycle, "s");
        if (!rules && bench_wanted("sched_bytes_per_task"))
            bench_report("sched_bytes_per_task", (double)(after - before) / TASKS, "bytes");
        cluster_free(&c);
        failed += placed != TASKS;
    }
    sched_conf_free(&conf);
    return failed ? 1 : 0;
}
