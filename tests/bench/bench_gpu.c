/* GPU device binding at scale, in-process, through the same parser, placement and device choice the
 * server uses:
 *   gpu_place_placements_per_s - replicas placed per second by one cycle over 100,000 pending
 *                                1-8-GPU tasks on 5,000 nodes of 8 listed GPU devices (placement alone);
 *   gpu_bind_placements_per_s  - the same cycle followed by what the controller does for every placed
 *                                replica: choose its devices (model/gpu.c gpu_choose) and hold them;
 *   gpu_bind_ratio             - the second over the first, per cycle (1.0: binding costs nothing);
 *   gpu_bind_ns_per_replica    - the device choice and hold alone, per placed replica.
 * Both rates come from the same cycles (the placement and the binding timed apart), so a busy
 * machine moves them together; medians of 5 cycles over the same state, the devices freed between
 * cycles (not timed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "adapters/intake/intake.h"
#include "adapters/objects/queue.h"
#include "scheduler/framework/session.h"
#include "scheduler/registry.h"
#include "tests/lib/bench.h"

#define NODES 5000
#define GPUS_PER_NODE 8
#define TASKS 100000
#define RUNS 5

static void add_nodes(struct cluster *c)
{
    c->nodes = calloc(NODES, sizeof *c->nodes);
    for (int i = 0; i < NODES; i++) {
        struct node *n = &c->nodes[c->nnodes++];
        char name[32];
        snprintf(name, sizeof name, "gpu-%04d", i);
        n->name = strdup(name);
        n->labels = json_pack("{s:s}", "kubernetes.io/hostname", name);
        n->taints = json_array();
        n->allocatable.v[RES_CPU] = 96000;
        n->allocatable.v[RES_MEMORY] = 1024LL << 30;
        n->allocatable.v[RES_PODS] = 110;
        n->allocatable.v[RES_GPU] = GPUS_PER_NODE;
        for (int g = 0; g < GPUS_PER_NODE; g++) { /* two NUMA nodes of four, as on a DGX */
            struct gpu_device d = {.index = g, .numa = g / 4, .memory_mib = 81559};
            snprintf(d.uuid, sizeof d.uuid, "GPU-%04d-%d", i, g);
            gpu_set_add(&n->gpus, &d);
        }
    }
}

static uint32_t next_random(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* Jobs of 1-8 replicas, each replica asking for 1-8 GPUs, until TASKS replicas. */
static int add_jobs(struct cluster *c)
{
    uint32_t seed = 4242;
    int tasks = 0, n = 0;
    while (tasks < TASKS) {
        int gang = 1 + (int)(next_random(&seed) % 8);
        if (tasks + gang > TASKS)
            gang = TASKS - tasks;
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: job-%d}\n"
                 "spec:\n  tasks:\n  - name: worker\n    replicas: %d\n"
                 "    template:\n      spec:\n        containers:\n        - name: main\n"
                 "          image: train:latest\n          command: [python, train.py]\n"
                 "          resources: {limits: {cpu: \"4\", memory: 32Gi, nvidia.com/gpu: %d}}\n",
                 n, gang, 1 + (int)(next_random(&seed) % 8));
        struct intake in;
        struct api_status st = {0};
        struct job *job = NULL;
        if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st) != 0 ||
            volcano_job_from_doc(&in.docs[0], "default", &job, &st) != 0) {
            fprintf(stderr, "bench_gpu: %s\n", st.message);
            return -1;
        }
        intake_free(&in);
        snprintf(job->uid, sizeof job->uid, "00000000-0000-4000-8000-%012d", n);
        job->created_ms = n;
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

/* What the controller does for each placed replica (replica_hold): its devices, held. Returns the
 * replicas given devices, -1 when one could not be (a bug: placement counted GPUs). */
static long bind_devices(struct cluster *c, const struct session *ssn)
{
    long bound = 0;
    for (int b = 0; b < ssn->nbinds; b++) {
        const struct bind_decision *d = &ssn->binds[b];
        const struct job *job = ssn->jobs[d->job].job;
        struct node *node = &c->nodes[ssn->nodes[d->node].index];
        int need = (int)job->tasks[d->task].request.v[RES_GPU];
        for (int32_t i = 0; i < d->count; i++) {
            uint64_t mask;
            if (gpu_choose(&node->gpus, need, &mask) != 0 || gpu_take(&node->gpus, mask) != 0)
                return -1;
            bound++;
        }
    }
    return bound;
}

/* One cycle and the binding of what it placed, timed apart: *place_s the cycle (snapshot, enqueue,
 * allocate, backfill), *bind_s the devices of every placed replica. Returns the replicas placed, or
 * -1 when the cycle failed or a placed replica found no free device. */
static long cycle(struct cluster *c, const struct sched_conf *conf, double *place_s, double *bind_s)
{
    struct session ssn;
    double t0 = bench_now();
    if (session_open(&ssn, &builtin_registry, c, conf, NULL, 1000) != 0)
        return -1;
    session_run(&ssn);
    session_close(&ssn);
    double t1 = bench_now();
    long bound = bind_devices(c, &ssn);
    double t2 = bench_now();
    *place_s = t1 - t0;
    *bind_s = t2 - t1;
    long placed = 0;
    for (int b = 0; b < ssn.nbinds; b++)
        placed += ssn.binds[b].count;
    session_free(&ssn);
    for (int i = 0; i < c->nnodes; i++)
        c->nodes[i].gpus.busy = 0;
    return bound == placed ? placed : -1;
}

int main(void)
{
    if (!bench_wanted("gpu_"))
        return 0;
    struct cluster c = {0};
    struct sched_conf conf;
    sched_conf_default(&conf);
    add_nodes(&c);
    cluster_add_queue(&c, queue_new_default(0));
    int njobs = add_jobs(&c);
    if (njobs < 0)
        return 1;
    double place[RUNS], bind[RUNS], ratio[RUNS], bind_ns[RUNS];
    long placed = 0;
    for (int r = 0; r < RUNS; r++) {
        double place_s, bind_s;
        placed = cycle(&c, &conf, &place_s, &bind_s);
        if (placed <= 0) {
            fprintf(stderr, "bench_gpu: a cycle failed, placed nothing, or a placed replica found no free device\n");
            return 1;
        }
        place[r] = placed / place_s;
        bind[r] = placed / (place_s + bind_s);
        ratio[r] = place_s / (place_s + bind_s);
        bind_ns[r] = bind_s * 1e9 / placed;
    }
    fprintf(stderr, "bench_gpu: %d jobs, %d tasks, %ld placed per cycle (%d GPUs)\n", njobs, TASKS, placed,
            NODES * GPUS_PER_NODE);
    if (bench_wanted("gpu_place_placements_per_s"))
        bench_report("gpu_place_placements_per_s", bench_median(place, RUNS), "placements/s");
    if (bench_wanted("gpu_bind_placements_per_s"))
        bench_report("gpu_bind_placements_per_s", bench_median(bind, RUNS), "placements/s");
    if (bench_wanted("gpu_bind_ratio"))
        bench_report("gpu_bind_ratio", bench_median(ratio, RUNS), "ratio");
    if (bench_wanted("gpu_bind_ns_per_replica"))
        bench_report("gpu_bind_ns_per_replica", bench_median(bind_ns, RUNS), "ns");
    cluster_free(&c);
    sched_conf_free(&conf);
    return 0;
}
