/* The backends through a whole Caldera server (release build), as a platform sees them:
 *   backend_submit_per_s_e2e_kubernetes - 1-replica Volcano Jobs per second from the first POST to
 *       Caldera until Caldera's pod watch has shown every one of them Running on the engine (a second jobserver standing
 *       in for a cluster running Volcano, reached through a kubeconfig);
 *   backend_status_lag_p99_ms_e2e_kubernetes - each pod's Running on the engine (its "Started" event's
 *       eventTime there) to Caldera's watch event saying Running, p99;
 *   backend_submit_per_s_e2e_slurm, backend_status_lag_p99_ms_e2e_slurm - the same against a real Slurm
 *       cluster on loopback (tests/lib/slurm_cluster), the engine's time being the rank's start as the
 *       history records it (skipped, saying why, where Slurm cannot run).
 * The backends' own figures without a server in front are bench_backend_kube and bench_backend_slurm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "tests/lib/bench.h"
#include "tests/lib/bench_server.h"
#include "tests/lib/job_client.h"
#include "tests/lib/kube_stand_in.h"
#include "tests/lib/slurm_cluster.h"
#include "tests/lib/watch_client.h"

#define NJOBS 40
#define WAIT_MS 120000
/* The test cluster's three nodes of two CPUs run six 1-CPU jobs at once: as many, each long enough to
 * be seen Running, so the figure is the way in (POST, admission, send, Slurm's scheduling), not a queue. */
#define SLURM_JOBS 6
#define JOBS_PATH "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
#define PODS_WATCH "/api/v1/namespaces/default/pods?watch=true"
#define JOB_FMT                                                                                                      \
    "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"%s\"},\"spec\":{"       \
    "\"minAvailable\":1,\"tasks\":[{\"name\":\"w\",\"replicas\":1,\"template\":{\"spec\":{\"restartPolicy\":"        \
    "\"Never\",\"containers\":[{\"name\":\"c\",\"command\":[\"sleep\",\"%d\"],\"resources\":{\"requests\":{\"cpu\":" \
    "\"10m\"}}}]}}}]}}"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double p99(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[(int)((n - 1) * 0.99 + 0.5)];
}

/* The arrival of Caldera's first watch event showing each pod Running: pod name -> wall ms. */
static json_t *running_seen(struct watch_client *w)
{
    json_t *events = watch_events(w), *e, *seen = json_object();
    size_t i;
    json_array_foreach(events, i, e)
    {
        const char *name = jv_str(e, "object.metadata.name"), *phase = jv_str(e, "object.status.phase");
        if (name && phase && strcmp(phase, "Running") == 0 && !json_object_get(seen, name))
            json_object_set_new(seen, name, json_integer(watch_received_ms(w, (int)i)));
    }
    json_decref(events);
    return seen;
}

static int seen_with_prefix(struct watch_client *w, const char *prefix)
{
    json_t *seen = running_seen(w), *v;
    const char *name;
    int n = 0;
    json_object_foreach(seen, name, v) n += strncmp(name, prefix, strlen(prefix)) == 0;
    json_decref(seen);
    return n;
}

/* POSTs n jobs of `sleep_s` and waits until Caldera's watch has shown every pod Running (on the engine).
 * Returns jobs/s, or -1. */
static double submit_all(const struct test_server *caldera, struct watch_client *w, const char *prefix, int n,
                         int sleep_s)
{
    double t0 = bench_now();
    for (int i = 0; i < n; i++) {
        char name[48], body[1024];
        long code = 0;
        snprintf(name, sizeof name, "%s%d", prefix, i);
        snprintf(body, sizeof body, JOB_FMT, name, sleep_s);
        json_decref(server_request(caldera, "POST", JOBS_PATH, body, "application/json", &code));
        if (code != 201) {
            fprintf(stderr, "bench_backend_e2e: POST answered %ld\n", code);
            return -1;
        }
    }
    int64_t until = clock_mono_ms() + WAIT_MS;
    while (seen_with_prefix(w, prefix) < n) {
        if (clock_mono_ms() > until) {
            fprintf(stderr, "bench_backend_e2e: only %d of %d pods seen Running after %d s\n",
                    seen_with_prefix(w, prefix), n, WAIT_MS / 1000);
            return -1;
        }
        usleep(20000);
    }
    return n / (bench_now() - t0);
}

/* --- Kubernetes: a stand-in jobserver --------------------------------------------------------------- */

static int kube(void)
{
    struct bench_server engine, caldera;
    const char *const engine_args[] = {"--auth", "--schedule-period", "50", NULL};
    if (bench_server_start_with(&engine, "engine", engine_args) != 0)
        return 1;
    char kubeconfig[400], token[256];
    snprintf(kubeconfig, sizeof kubeconfig, "%s/kubeconfig", engine.s.data_dir);
    if (!stand_in_admin_token(&engine.s, token, sizeof token) || !stand_in_kubeconfig(kubeconfig, engine.s.url, token))
        return 1;
    const char *const caldera_args[] = {"--backend", "kubernetes", "--kubeconfig", kubeconfig, "--schedule-period",
                                        "50",        NULL};
    if (bench_server_start_with(&caldera, "caldera-kube", caldera_args) != 0)
        return 1;
    struct watch_client *w = watch_open(&caldera.s, PODS_WATCH, NULL);
    double rate = w ? submit_all(&caldera.s, w, "kb", NJOBS, 30) : -1;
    int rc = rate < 0;
    if (!rc) {
        bench_report("backend_submit_per_s_e2e_kubernetes", rate, "jobs/s");
        json_t *seen = running_seen(w);
        json_t *events = server_request_as(&engine.s, token, "GET", "/api/v1/namespaces/default/events", NULL, NULL,
                                           NULL),
               *e;
        double lags[NJOBS];
        int n = 0;
        size_t i;
        json_array_foreach(json_object_get(events, "items"), i, e)
        {
            const char *reason = jv_str(e, "reason"), *pod = jv_str(e, "involvedObject.name"),
                       *when = jv_str(e, "eventTime");
            json_t *at = pod ? json_object_get(seen, pod) : NULL;
            int64_t started = 0;
            if (n < NJOBS && reason && strcmp(reason, "Started") == 0 && at && when &&
                rfc3339_parse(when, &started) == 0)
                lags[n++] = (double)(json_integer_value(at) - started);
        }
        if (n > 0)
            bench_report("backend_status_lag_p99_ms_e2e_kubernetes", p99(lags, n), "ms");
        else
            fprintf(stderr, "bench_backend_e2e: no engine Started event matched Caldera's watch\n");
        rc = n == 0;
        json_decref(events);
        json_decref(seen);
    }
    watch_close(w);
    bench_server_finish(&caldera);
    bench_server_finish(&engine);
    return rc;
}

/* --- Slurm: a real cluster on loopback -------------------------------------------------------------- */

static int slurm(void)
{
    struct slurm_cluster cluster;
    char err[512] = "";
    if (slurm_cluster_start(&cluster, err, sizeof err) != 0) {
        fprintf(stderr, "bench_backend_e2e: slurm figures skipped: %s\n", err);
        return 0;
    }
    char token[400], backends[400], text[2048];
    snprintf(token, sizeof token, "%s/caldera.jwt", cluster.dir);
    snprintf(backends, sizeof backends, "%s/backends.yaml", cluster.dir);
    snprintf(text, sizeof text,
             "default: slurm\nslurm:\n  url: %s\n  tokenFile: %s\n  user: %s\n  workDir: %s/caldera\n", cluster.url,
             token, cluster.user, cluster.dir);
    struct bench_server caldera;
    const char *const args[] = {"--backends", backends, "--schedule-period", "50", NULL};
    int rc = 1;
    if (write_file_atomic(token, cluster.token, strlen(cluster.token), 0600) == 0 &&
        write_file_atomic(backends, text, strlen(text), 0600) == 0 &&
        bench_server_start_with(&caldera, "caldera-slurm", args) == 0) {
        struct watch_client *w = watch_open(&caldera.s, PODS_WATCH, NULL);
        double rate = w ? submit_all(&caldera.s, w, "sb", SLURM_JOBS, 10) : -1;
        rc = rate < 0;
        if (!rc) {
            bench_report("backend_submit_per_s_e2e_slurm", rate, "jobs/s");
            json_t *seen = running_seen(w);
            double lags[SLURM_JOBS];
            int n = 0;
            for (int i = 0; i < SLURM_JOBS; i++) { /* the rank's start, as Slurm's node wrote it, from the history */
                char name[32], pod[48];
                snprintf(name, sizeof name, "sb%d", i);
                snprintf(pod, sizeof pod, "sb%d-w-0", i);
                json_t *history = job_history(&caldera.s, name), *a[2];
                int64_t started = 0;
                json_t *at = json_object_get(seen, pod);
                if (pod_attempts(history, pod, a, 2) >= 1 && at && jv_str(a[0], "startTime") &&
                    rfc3339_parse(jv_str(a[0], "startTime"), &started) == 0)
                    lags[n++] = (double)(json_integer_value(at) - started);
                json_decref(history);
            }
            if (n > 0)
                bench_report("backend_status_lag_p99_ms_e2e_slurm", p99(lags, n), "ms");
            rc = n == 0;
            json_decref(seen);
        }
        watch_close(w);
        bench_server_finish(&caldera);
    }
    slurm_cluster_stop(&cluster);
    return rc;
}

int main(void)
{
    int rc = 0;
    if (bench_wanted("backend_submit_per_s_e2e_kubernetes") || bench_wanted("backend_status_lag_p99_ms_e2e_kubernetes"))
        rc |= kube();
    if (bench_wanted("backend_submit_per_s_e2e_slurm") || bench_wanted("backend_status_lag_p99_ms_e2e_slurm"))
        rc |= slurm();
    return rc;
}
