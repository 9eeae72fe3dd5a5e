/* End to end through a real jobserver (release build) on loopback, tasks running /bin/true:
 *   submit_p50_ms   - latency of POST /jobs (parse, admit, durable commit), median over the run;
 *   e2e_jobs_per_s  - 1-replica jobs, from the first POST until every job is Completed, 4 clients
 *                     submitting in parallel;
 *   e2e_tasks_per_s - tasks of 100-replica jobs, from the first POST until every job is Completed
 *                     (each task started in its cgroup, exited, reaped, its attempt committed);
 *   e2e_tasks_per_s_watched - the same while two watches (every pod, every job) follow it all: the
 *                     core renders each change for them (ARCHITECTURE.md, "Watch, events and the hub").
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

int main(void)
{
    bool narrow = bench_wanted("submit_p50_ms") || bench_wanted("e2e_jobs_per_s");
    bool wide = bench_wanted("e2e_tasks_per_s");
    bool watched = bench_wanted("e2e_tasks_per_s_watched");
    if (!narrow && !wide && !watched)
        return 0;
    struct bench_server b;
    if (bench_server_start(&b, "e2e") != 0)
        return 1;
    const struct test_server *s = &b.s;
    static struct client clients[CLIENTS];
    static double latency[NARROW_WAVES * CLIENTS * JOBS_PER_CLIENT];
    double rate[WIDE_WAVES > NARROW_WAVES ? WIDE_WAVES : NARROW_WAVES];
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
    for (int w = 0; wide && w < WIDE_WAVES; w++) {
        double elapsed = run_wave(s, clients, 1, WIDE_JOBS, WIDE_REPLICAS, jobs);
        jobs += WIDE_JOBS;
        rate[w] = elapsed > 0 ? WIDE_JOBS * WIDE_REPLICAS / elapsed : 0;
        status |= elapsed < 0;
    }
    if (wide)
        bench_report("e2e_tasks_per_s", bench_median(rate, WIDE_WAVES), "tasks/s");
    if (watched) {
        struct watch_client *pods = watch_open(s, "/api/v1/pods?watch=true&resourceVersion=0", NULL);
        struct watch_client *all_jobs = watch_open(s, "/apis/batch.volcano.sh/v1alpha1/jobs?watch=true", NULL);
        for (int w = 0; w < WIDE_WAVES; w++) {
            double elapsed = run_wave(s, clients, 1, WIDE_JOBS, WIDE_REPLICAS, jobs);
            jobs += WIDE_JOBS;
            rate[w] = elapsed > 0 ? WIDE_JOBS * WIDE_REPLICAS / elapsed : 0;
            status |= elapsed < 0;
        }
        int pod_events = watch_wait_count(pods, 1 << 30, 0);
        bench_report("e2e_tasks_per_s_watched", bench_median(rate, WIDE_WAVES), "tasks/s");
        fprintf(stderr, "bench_e2e: e2e_tasks_per_s_watched: the pods watch received %d events\n", pod_events);
        status |= pod_events < WIDE_WAVES * WIDE_JOBS * WIDE_REPLICAS;
        watch_close(pods);
        watch_close(all_jobs);
    }
    bench_server_finish(&b);
    return status;
}
