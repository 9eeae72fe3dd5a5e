/* End to end through a real jobserver (release build) on loopback, tasks running /bin/true:
 *   submit_p50_ms   - latency of POST /jobs (parse, admit, durable commit), median over the run;
 *   e2e_jobs_per_s  - 1-replica jobs, from the first POST until every job is Completed, 4 clients
 *                     submitting in parallel;
 *   e2e_tasks_per_s - tasks of 100-replica jobs, from the first POST until every job is Completed
 *                     (each task started in its cgroup, exited, reaped, its attempt committed);
 *   e2e_tasks_per_s_watched - the same while two watches (every pod, every job) follow it all: the
 *                     core renders each change for them (ARCHITECTURE.md, "Watch, events and the hub");
 *   spawn_limit_per_s - what the machine allows: posix_spawn + waitpid of /bin/true from one thread per
 *                     CPU (tests/lib/spawn_limit.h), taken right after e2e_tasks_per_s;
 *   e2e_spawn_ratio - e2e_tasks_per_s / spawn_limit_per_s, both of this run;
 *   spawn_supervised_per_s - the same loop doing what every attempt needs beyond a bare spawn, with
 *                     no server: a cgroup of its own in every hierarchy (made, joined, removed) and
 *                     caldera-shim between it and /bin/true (tests/lib/supervised_limit.h);
 *   e2e_supervised_ratio - e2e_tasks_per_s / spawn_supervised_per_s: the server's own share;
 *   e2e_tasks_per_s_cpus_N - e2e_tasks_per_s of a fresh server held to the first N CPUs (as taskset -c
 *                     0-(N-1) would, the tasks with it), N = 1, 2, 4, ... and the machine's count;
 *   spawn_limit_per_s_cpus_N, e2e_spawn_ratio_cpus_N - the spawn limit on those N CPUs (N threads)
 *                     and the ratio of the two: what the figures would be on a machine of N cores.
 * A job reads Completed only once the store has committed it, so "Completed" means in the history.
 * Each figure is the median of several waves on one server: this machine is shared and noisy. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/bench.h"
#include "tests/lib/bench_server.h"
#include "tests/lib/server.h"
#include "tests/lib/spawn_limit.h"
#include "tests/lib/supervised_limit.h"
#include "tests/lib/watch_client.h"

#define CLIENTS 4
#define JOBS_PER_CLIENT 250
/* Waves come after the server has been idle a moment, as bursts do: a started server keeps a stock
 * of made files (runtime/spare_files.h), which idle time refills. */
#define IDLE_BEFORE_WAVE_S 2
#define NARROW_WAVES 3
#define WIDE_WAVES 5
#define WIDE_JOBS 10
#define WIDE_REPLICAS 100
#define CURVE_WAVES 3
#define SPAWN_LIMIT_ROUNDS 3
#define SPAWN_LIMIT_ROUND_S 1.0
#define JOBS_PATH "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"

struct client {
    const struct test_server *s;
    int wave, id, jobs, replicas;
    double latency_ms[JOBS_PER_CLIENT];
};

static void *submit_jobs(void *arg)
{
    struct client *c = arg;
    for (int i = 0; i < c->jobs; i++) {
        char body[512];
        snprintf(body, sizeof body,
                 "{\"apiVersion\":\"batch.volcano.sh/"
                 "v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"t-%d-%d-%d-%d\",\"labels\":{\"wave\":\"w%d\"}},"
                 "\"spec\":{\"tasks\":[{\"name\":\"t\",\"replicas\":%d,\"template\":{\"spec\":{\"containers\":"
                 "[{\"name\":\"c\",\"command\":[\"/bin/true\"],\"resources\":{\"requests\":{\"cpu\":\"10m\"}}}]}}}]}}",
                 c->replicas, c->wave, c->id, i, c->wave, c->replicas);
        long code;
        double t0 = bench_now();
        json_decref(server_request(c->s, "POST", JOBS_PATH, body, "application/json", &code));
        c->latency_ms[i] = (bench_now() - t0) * 1000;
        if (code != 201)
            fprintf(stderr, "bench_e2e: POST answered %ld\n", code);
    }
    return NULL;
}

/* Completed jobs of one wave (its label), so the poll costs the server the same whatever ran before. */
static int completed(const struct test_server *s, int wave)
{
    long code;
    char path[256];
    snprintf(path, sizeof path, "%s?labelSelector=wave%%3Dw%d", JOBS_PATH, wave);
    json_t *list = server_request(s, "GET", path, NULL, NULL, &code);
    int n = 0;
    size_t i;
    json_t *job;
    json_array_foreach(json_object_get(list, "items"), i, job)
    {
        const char *phase = json_string_value(
            json_object_get(json_object_get(json_object_get(job, "status"), "state"), "phase"));
        n += phase && strcmp(phase, "Completed") == 0;
    }
    json_decref(list);
    return n;
}

/* Submits jobs_per_client jobs of `replicas` from each client and waits for all of them (and the
 * `before` jobs already there) to complete. Returns the seconds it took, or -1 when they did not. */
static double run_wave(const struct test_server *s, struct client *clients, int nclients, int jobs_per_client,
                       int replicas, int before)
{
    pthread_t threads[CLIENTS];
    sleep(IDLE_BEFORE_WAVE_S);
    double t0 = bench_now();
    for (int i = 0; i < nclients; i++) {
        clients[i] = (struct client){.s = s, .wave = before, .id = i, .jobs = jobs_per_client, .replicas = replicas};
        pthread_create(&threads[i], NULL, submit_jobs, &clients[i]);
    }
    for (int i = 0; i < nclients; i++)
        pthread_join(threads[i], NULL);
    int total = nclients * jobs_per_client;
    for (int waited = 0; completed(s, before) < total && waited < 2400; waited++)
        usleep(25000);
    double elapsed = bench_now() - t0;
    return completed(s, before) == total ? elapsed : -1;
}

/* A watch of the list at path from its current resourceVersion (a one-item page says it), or NULL. */
static struct watch_client *watch_from_now(const struct test_server *s, const char *path)
{
    char at[256];
    long code = 0;
    snprintf(at, sizeof at, "%s?limit=1", path);
    json_t *list = server_request(s, "GET", at, NULL, NULL, &code);
    const char *rv = json_string_value(json_object_get(json_object_get(list, "metadata"), "resourceVersion"));
    snprintf(at, sizeof at, "%s?watch=true&resourceVersion=%s", path, rv ? rv : "");
    json_decref(list);
    return code == 200 && rv ? watch_open(s, at, NULL) : NULL;
}

/* The median rate of `waves` waves of WIDE_JOBS jobs of WIDE_REPLICAS tasks; *jobs counts the jobs
 * the server has. Sets *failed when a wave did not complete. */
static double wide_rate(const struct test_server *s, struct client *clients, int waves, int *jobs, int *failed)
{
    double rate[WIDE_WAVES];
    for (int w = 0; w < waves && w < WIDE_WAVES; w++) {
        double elapsed = run_wave(s, clients, 1, WIDE_JOBS, WIDE_REPLICAS, *jobs);
        *jobs += WIDE_JOBS;
        rate[w] = elapsed > 0 ? WIDE_JOBS * WIDE_REPLICAS / elapsed : 0;
        *failed |= elapsed < 0;
    }
    return bench_median(rate, waves < WIDE_WAVES ? waves : WIDE_WAVES);
}

/* e2e_tasks_per_s of a fresh server (and its tasks) held to the first `cpus` CPUs. Returns 0, or 1. */
static int curve_point(struct client *clients, int cpus)
{
    struct bench_server b;
    if (spawn_limit_pin(cpus) != 0) {
        fprintf(stderr, "bench_e2e: cannot hold the server to %d CPUs\n", cpus);
        return 1;
    }
    double spawn = spawn_limit_per_s(cpus, SPAWN_LIMIT_ROUND_S, SPAWN_LIMIT_ROUNDS);
    int rc = bench_server_start(&b, "e2e-cpus");
    spawn_limit_pin(0); /* the server keeps the mask it started with; this client runs anywhere */
    if (rc != 0)
        return 1;
    int jobs = 0, failed = 0;
    double rate = wide_rate(&b.s, clients, CURVE_WAVES, &jobs, &failed);
    char name[64];
    snprintf(name, sizeof name, "e2e_tasks_per_s_cpus_%d", cpus);
    bench_report(name, rate, "tasks/s");
    snprintf(name, sizeof name, "spawn_limit_per_s_cpus_%d", cpus);
    bench_report(name, spawn, "spawns/s");
    snprintf(name, sizeof name, "e2e_spawn_ratio_cpus_%d", cpus);
    bench_report(name, spawn > 0 ? rate / spawn : 0, "ratio");
    bench_server_finish(&b);
    return failed || spawn < 0;
}

int main(void)
{
    bool narrow = bench_wanted("submit_p50_ms") || bench_wanted("e2e_jobs_per_s");
    bool wide = bench_wanted("e2e_tasks_per_s") || bench_wanted("e2e_spawn_ratio");
    bool limit = wide || bench_wanted("spawn_limit_per_s");
    bool watched = bench_wanted("e2e_tasks_per_s_watched");
    bool curve = bench_wanted("e2e_tasks_per_s_cpus") || bench_wanted("e2e_spawn_ratio_cpus");
    if (!narrow && !wide && !watched && !limit && !curve)
        return 0;
    int ncpus = spawn_limit_cpus();
    fprintf(stderr, "bench_e2e: %d CPU%s\n", ncpus, ncpus == 1 ? "" : "s");
    struct bench_server b;
    if (bench_server_start(&b, "e2e") != 0)
        return 1;
    const struct test_server *s = &b.s;
    static struct client clients[CLIENTS];
    static double latency[NARROW_WAVES * CLIENTS * JOBS_PER_CLIENT];
    double rate[NARROW_WAVES];
    int status = 0, jobs = 0, nlat = 0;
    for (int w = 0; narrow && w < NARROW_WAVES; w++) {
        double elapsed = run_wave(s, clients, CLIENTS, JOBS_PER_CLIENT, 1, jobs);
        jobs += CLIENTS * JOBS_PER_CLIENT;
        for (int i = 0; i < CLIENTS; i++, nlat += JOBS_PER_CLIENT)
            memcpy(latency + nlat, clients[i].latency_ms, sizeof clients[i].latency_ms);
        rate[w] = elapsed > 0 ? CLIENTS * JOBS_PER_CLIENT / elapsed : 0;
        status |= elapsed < 0;
    }
    if (narrow && bench_wanted("submit_p50_ms"))
        bench_report("submit_p50_ms", bench_median(latency, nlat), "ms");
    if (narrow && bench_wanted("e2e_jobs_per_s"))
        bench_report("e2e_jobs_per_s", bench_median(rate, NARROW_WAVES), "jobs/s");
    double tasks_per_s = wide ? wide_rate(s, clients, WIDE_WAVES, &jobs, &status) : 0;
    if (wide)
        bench_report("e2e_tasks_per_s", tasks_per_s, "tasks/s");
    if (limit) { /* the server is idle now: the machine's own rate, minutes within the one above */
        double spawn = spawn_limit_per_s(ncpus, SPAWN_LIMIT_ROUND_S, SPAWN_LIMIT_ROUNDS);
        bench_report("spawn_limit_per_s", spawn, "spawns/s");
        if (wide && spawn > 0)
            bench_report("e2e_spawn_ratio", tasks_per_s / spawn, "ratio");
        status |= spawn < 0;
        double supervised = supervised_limit_per_s(ncpus, SPAWN_LIMIT_ROUND_S, SPAWN_LIMIT_ROUNDS);
        if (supervised > 0) {
            bench_report("spawn_supervised_per_s", supervised, "spawns/s");
            if (wide)
                bench_report("e2e_supervised_ratio", tasks_per_s / supervised, "ratio");
        } else
            fprintf(stderr, "bench_e2e: spawn_supervised_per_s: no caldera-shim or no cgroups here\n");
    }
    if (watched) {
        /* from now, as an informer watches after its list: from the list's resourceVersion (without one the
         * watch would first get every pod of the earlier waves, and past 1,000 the server answers 410) */
        struct watch_client *pods = watch_from_now(s, "/api/v1/pods");
        struct watch_client *all_jobs = watch_from_now(s, "/apis/batch.volcano.sh/v1alpha1/jobs");
        double watched_rate = wide_rate(s, clients, WIDE_WAVES, &jobs, &status);
        int pod_events = pods ? watch_wait_count(pods, 1 << 30, 0) : 0;
        bench_report("e2e_tasks_per_s_watched", watched_rate, "tasks/s");
        fprintf(stderr, "bench_e2e: e2e_tasks_per_s_watched: the pods watch received %d events\n", pod_events);
        status |= pod_events < WIDE_WAVES * WIDE_JOBS * WIDE_REPLICAS;
        watch_close(pods);
        watch_close(all_jobs);
    }
    bench_server_finish(&b);
    /* the scaling curve: 1, 2, 4, ... CPUs, and the machine's count when it is no power of two */
    for (int n = 1; curve && n <= ncpus; n = n * 2 > ncpus && n < ncpus ? ncpus : n * 2)
        status |= curve_point(clients, n);
    return status;
}
