/* Exclusive CPUs (the static CPU manager policy): a bound replica of a Guaranteed task asking whole
 * CPUs holds them from its node's topology, an adopted one takes back what its cgroup's cpuset says,
 * and on this machine's own node the other live attempts' cpusets are kept to the shared pool. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "runtime/cgroup/cgroup.h"
#include "scheduler/controller/internal.h"

/* The name of the replica's current attempt cgroup. */
static void attempt_cgroup(const struct job *job, int flat, char *out, size_t len)
{
    char pod[320];
    int task = job_task_of(job, flat);
    job_pod_name(job, task, flat - job->task_first[task], pod, sizeof pod);
    controller_cgroup_name(job->uid, pod, job->replicas[flat].attempts, out, len);
}

/* Writes the shared pool into every live attempt of node that holds no CPUs of its own. */
static void apply_shared_pool(struct controller *ctl, int node)
{
    const struct numa_topology *t = ctl->cluster->nodes[node].numa;
    if (!t || !t->real || !t->static_cpus || !cgroup_has_cpuset())
        return;
    struct cpu_bits shared;
    char list[CPU_LIST_MAX], name[512];
    numa_shared_cpus(t, &shared);
    cpu_bits_format(&shared, list, sizeof list);
    for (struct job *job = ctl->cluster->first; job; job = job->next)
        for (int32_t i = 0; i < job->total_replicas; i++) {
            const struct replica *r = &job->replicas[i];
            if (r->node != node || r->phase != POD_RUNNING || r->cpus || r->backoff)
                continue;
            attempt_cgroup(job, i, name, sizeof name);
            if (cgroup_set_cpuset(name, list, NULL) != 0)
                log_debug("cpuset of %s: %s", name, strerror(errno));
        }
}

/* The replica keeps cpus (held in t); out of memory, they go back and it runs in the shared pool. */
static bool keep(struct numa_topology *t, struct replica *r, const struct cpu_bits *cpus)
{
    r->cpus = malloc(sizeof *r->cpus);
    if (!r->cpus) {
        numa_give(t, cpus);
        return false;
    }
    *r->cpus = *cpus;
    return true;
}

void replica_hold_cpus(struct controller *ctl, struct job *job, int flat, bool adopted)
{
    struct replica *r = &job->replicas[flat];
    struct numa_topology *t = ctl->cluster->nodes[r->node].numa;
    const struct task_spec *ts = &job->tasks[job_task_of(job, flat)];
    free(r->cpus);
    r->cpus = NULL;
    int want = t && t->static_cpus ? numa_exclusive_cpus(&ts->request, &ts->limit) : 0;
    if (want == 0)
        return;
    struct cpu_bits cpus;
    char list[CPU_LIST_MAX], name[512];
    if (adopted && t->real) { /* what the attempt's cgroup was given before the restart */
        attempt_cgroup(job, flat, name, sizeof name);
        if (cgroup_read_cpuset(name, list, sizeof list) == 0 && cpu_bits_parse(list, &cpus) == 0 &&
            cpu_bits_count(&cpus) == want && numa_hold(t, &cpus) == 0) {
            keep(t, r, &cpus);
            return;
        }
    }
    int gpu_nodes[GPU_DEVICES_MAX], ngpu_nodes = 0; /* its GPUs' NUMA nodes: its CPUs go there when they fit */
    const struct gpu_set *gpus = &ctl->cluster->nodes[r->node].gpus;
    for (int g = 0; g < gpus->count && r->gpus_held; g++)
        if ((r->gpus >> g & 1) && gpus->devices[g].numa >= 0)
            gpu_nodes[ngpu_nodes++] = gpus->devices[g].numa;
    if (numa_take_near(t, want, numa_cells_of_nodes(t, gpu_nodes, ngpu_nodes), &cpus) != 0) {
        log_warn(
            "node %s has no %d exclusive CPUs for a replica of %s/%s under its %s policy: it runs in the "
            "shared pool",
            ctl->cluster->nodes[r->node].name, want, job->ns, job->name, topology_policy_name(t->policy));
        return;
    }
    if (keep(t, r, &cpus))
        apply_shared_pool(ctl, r->node);
}

void replica_release_cpus(struct controller *ctl, struct job *job, int flat)
{
    struct replica *r = &job->replicas[flat];
    if (!r->cpus || r->node < 0)
        return;
    struct numa_topology *t = ctl->cluster->nodes[r->node].numa;
    if (t)
        numa_give(t, r->cpus);
    free(r->cpus);
    r->cpus = NULL;
    apply_shared_pool(ctl, r->node);
}

bool replica_cpuset(const struct controller *ctl, const struct replica *r, char *cpus, size_t cpus_len, char *mems,
                    size_t mems_len)
{
    const struct numa_topology *t = r->node >= 0 ? ctl->cluster->nodes[r->node].numa : NULL;
    if (!t || !t->real || !t->static_cpus)
        return false;
    struct cpu_bits set;
    if (r->cpus) {
        set = *r->cpus;
        numa_mems_of(t, &set, mems, mems_len);
    } else {
        numa_shared_cpus(t, &set);
        struct cpu_bits all;
        numa_all_cpus(t, &all);
        numa_mems_of(t, &all, mems, mems_len);
    }
    cpu_bits_format(&set, cpus, cpus_len);
    return cpus[0] != '\0';
}
