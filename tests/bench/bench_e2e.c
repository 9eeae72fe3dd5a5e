/* End to end through a real jobserver (release build) on loopback, tasks running /bin/true:
 *   submit_p50_ms   - latency of POST /jobs (parse, admit, durable commit), median over the run;
 *   e2e_jobs_per_s  - 1-replica jobs, from the first POST until every job is Completed, 4 clients
 *                     submitting in parallel;
 *   e2e_tasks_per_s - tasks of 100-replica jobs, from the first POST until every job is Completed
 *                     (each task started in its cgroup, exited, reaped, its attempt committed).
 * A job reads Completed only once the store has committed it, so "Completed" means in the history. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/bench.h"
#include "tests/lib/server.h"

#define BENCH_DATA (getenv("BENCH_DATA_DIR") ? getenv("BENCH_DATA_DIR") : "build/bench-data")
#define CLIENTS 4
#define JOBS_PER_CLIENT 250
#define WIDE_JOBS 10
#define WIDE_REPLICAS 100
#define JOBS_PATH "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"

struct client {
    const struct test_server *s;
    int id, jobs, replicas;
    double latency_ms[JOBS_PER_CLIENT];
};

static void *submit_jobs(void *arg)
{
    struct client *c = arg;
    for (int i = 0; i < c->jobs; i++) {
        char body[512];
        snprintf(body, sizeof body,
                 "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"t-%d-%d-%d\"},"
                 "\"spec\":{\"tasks\":[{\"name\":\"t\",\"replicas\":%d,\"template\":{\"spec\":{\"containers\":"
                 "[{\"name\":\"c\",\"command\":[\"/bin/true\"],\"resources\":{\"requests\":{\"cpu\":\"10m\"}}}]}}}]}}",
                 c->replicas, c->id, i, c->replicas);
        long code;
        double t0 = bench_now();
        json_decref(server_request(c->s, "POST", JOBS_PATH, body, "application/json", &code));
        c->latency_ms[i] = (bench_now() - t0) * 1000;
        if (code != 201)
            fprintf(stderr, "bench_e2e: POST answered %ld\n", code);
    }
    return NULL;
}

static int completed(const struct test_server *s)
{
    long code;
    json_t *list = server_request(s, "GET", JOBS_PATH, NULL, NULL, &code);
    int n = 0;
    size_t i;
    json_t *job;
    json_array_foreach(json_object_get(list, "items"), i, job) {
        const char *phase = json_string_value(json_object_get(json_object_get(json_object_get(job, "status"), "state"), "phase"));
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
    double t0 = bench_now();
    for (int i = 0; i < nclients; i++) {
        clients[i] = (struct client){.s = s, .id = i + before, .jobs = jobs_per_client, .replicas = replicas};
        pthread_create(&threads[i], NULL, submit_jobs, &clients[i]);
    }
    for (int i = 0; i < nclients; i++)
        pthread_join(threads[i], NULL);
    int total = before + nclients * jobs_per_client;
    for (int waited = 0; completed(s) < total && waited < 2400; waited++)
        usleep(25000);
    double elapsed = bench_now() - t0;
    return completed(s) == total ? elapsed : -1;
}

int main(void)
{
    bool narrow = bench_wanted("submit_p50_ms") || bench_wanted("e2e_jobs_per_s");
    bool wide = bench_wanted("e2e_tasks_per_s");
    if (!narrow && !wide)
        return 0;
    char nodes[] = "/tmp/caldera-bench-nodes-XXXXXX";
    int fd = mkstemp(nodes);
    const char *yaml = "apiVersion: v1\nkind: Node\nmetadata: {name: bench}\nstatus:\n  allocatable: {cpu: \"1000\", "
                       "memory: 1Ti, pods: \"100000\"}\n";
    if (fd < 0 || write(fd, yaml, strlen(yaml)) < 0)
        return 1;
    close(fd);
    const char *const args[] = {"--nodes", nodes, "--log-level", "warn", NULL};
    struct test_server s;
    /* In the build tree, not /tmp: the test suite creates and deletes so much under /tmp that an
     * ext4 mkdir there costs 0.5 ms (10x elsewhere on the same disk), which measures the disk. */
    remove_tree(BENCH_DATA);
    if (server_start(&s, BENCH_DATA, args) != 0)
        return 1;
    static struct client clients[CLIENTS];
    int status = 0, jobs = 0;
    if (narrow) {
        double elapsed = run_wave(&s, clients, CLIENTS, JOBS_PER_CLIENT, 1, jobs);
        jobs += CLIENTS * JOBS_PER_CLIENT;
        static double all[CLIENTS * JOBS_PER_CLIENT];
        for (int i = 0; i < CLIENTS; i++)
            memcpy(all + i * JOBS_PER_CLIENT, clients[i].latency_ms, sizeof clients[i].latency_ms);
        if (bench_wanted("submit_p50_ms"))
            bench_report("submit_p50_ms", bench_median(all, CLIENTS * JOBS_PER_CLIENT), "ms");
        if (elapsed > 0 && bench_wanted("e2e_jobs_per_s"))
            bench_report("e2e_jobs_per_s", CLIENTS * JOBS_PER_CLIENT / elapsed, "jobs/s");
        status |= elapsed < 0;
    }
    if (wide) {
        double elapsed = run_wave(&s, clients, 1, WIDE_JOBS, WIDE_REPLICAS, jobs);
        if (elapsed > 0)
            bench_report("e2e_tasks_per_s", WIDE_JOBS * WIDE_REPLICAS / elapsed, "tasks/s");
        status |= elapsed < 0;
    }
    server_stop(&s);
    server_cleanup(&s);
    remove_tree(BENCH_DATA);
    unlink(nodes);
    return status;
}
