/* End to end through a real jobserver (release build) on loopback:
 *   submit_p50_ms  - latency of POST /jobs (parse, admit, durable commit), median over the run;
 *   e2e_jobs_per_s - 1-replica jobs running /bin/true, from the first POST until every job is
 *                    Completed, with 4 clients submitting in parallel. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/bench.h"
#include "tests/lib/server.h"

#define CLIENTS 4
#define JOBS_PER_CLIENT 250
#define JOBS_PATH "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"

struct client {
    const struct test_server *s;
    int id;
    double latency_ms[JOBS_PER_CLIENT];
};

static void *submit_jobs(void *arg)
{
    struct client *c = arg;
    for (int i = 0; i < JOBS_PER_CLIENT; i++) {
        char body[512];
        snprintf(body, sizeof body,
                 "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"t-%d-%d\"},"
                 "\"spec\":{\"tasks\":[{\"name\":\"t\",\"replicas\":1,\"template\":{\"spec\":{\"containers\":"
                 "[{\"name\":\"c\",\"command\":[\"/bin/true\"]}]}}}]}}",
                 c->id, i);
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

int main(void)
{
    if (!bench_wanted("submit_p50_ms") && !bench_wanted("e2e_jobs_per_s"))
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
    if (server_start(&s, NULL, args) != 0)
        return 1;
    static struct client clients[CLIENTS];
    pthread_t threads[CLIENTS];
    double t0 = bench_now();
    for (int i = 0; i < CLIENTS; i++) {
        clients[i] = (struct client){.s = &s, .id = i};
        pthread_create(&threads[i], NULL, submit_jobs, &clients[i]);
    }
    for (int i = 0; i < CLIENTS; i++)
        pthread_join(threads[i], NULL);
    const int total = CLIENTS * JOBS_PER_CLIENT;
    for (int waited = 0; completed(&s) < total && waited < 1200; waited++)
        usleep(50000);
    double elapsed = bench_now() - t0;
    static double all[CLIENTS * JOBS_PER_CLIENT];
    for (int i = 0; i < CLIENTS; i++)
        memcpy(all + i * JOBS_PER_CLIENT, clients[i].latency_ms, sizeof clients[i].latency_ms);
    int done = completed(&s);
    if (bench_wanted("submit_p50_ms"))
        bench_report("submit_p50_ms", bench_median(all, total), "ms");
    if (bench_wanted("e2e_jobs_per_s"))
        bench_report("e2e_jobs_per_s", done / elapsed, "jobs/s");
    server_stop(&s);
    server_cleanup(&s);
    unlink(nodes);
    return done == total ? 0 : 1;
}
