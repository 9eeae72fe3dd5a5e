/* backend_submit_per_s_kubernetes: Volcano Jobs per second from the Kubernetes backend's send() to its
 * report of the pod Running on a stand-in jobserver; backend_status_lag_p99_ms_kubernetes: the stand-in's
 * "Started" event time (eventTime, ms) to the backend's BACKEND_POD Running report. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/fs.h"
#include "runtime/backend.h"
#include "tests/lib/bench.h"
#include "tests/lib/bench_server.h"
#include "tests/lib/job_client.h"
#include "tests/lib/kube_stand_in.h"

#define ROUNDS 3
#define ROUND_JOBS 20
#define WAIT_MS 60000
#define JOB_FMT                                                                                                       \
    "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"%s\"},\"spec\":{"        \
    "\"minAvailable\":1,\"schedulerName\":\"volcano\",\"queue\":\"default\",\"tasks\":[{\"name\":\"w\",\"replicas\":" \
    "1,\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\",\"image\":\"busybox\","    \
    "\"command\":[\"sleep\",\"5\"],\"resources\":{\"requests\":{\"cpu\":\"100m\"}}}]}}}]}}"

/* The pods seen Running: name -> the wall time the report came. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static json_t *running;

static void post(void *ctx, struct backend_update *u)
{
    (void)ctx;
    if (u->kind == BACKEND_POD && u->phase == BACKEND_POD_RUNNING) {
        char pod[BACKEND_REF_MAX * 2];
        const char *slash = strchr(u->ref, '/');
        snprintf(pod, sizeof pod, "%s-%s-%d", slash ? slash + 1 : u->ref, u->task, u->index);
        pthread_mutex_lock(&mu);
        if (!json_object_get(running, pod))
            json_object_set_new(running, pod, json_integer(clock_wall_ms()));
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mu);
    }
    backend_update_free(u);
}

static bool wait_running(size_t n)
{
    int64_t until = clock_mono_ms() + WAIT_MS;
    pthread_mutex_lock(&mu);
    while (json_object_size(running) < n && clock_mono_ms() < until) {
        struct timespec step = clock_deadline(CLOCK_REALTIME, 20);
        pthread_cond_timedwait(&cv, &mu, &step);
    }
    bool ok = json_object_size(running) >= n;
    pthread_mutex_unlock(&mu);
    return ok;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Each pod's lag: its Started event's eventTime on the stand-in to the report's arrival. */
static int lags(const struct test_server *s, const char *token, double *out, int cap)
{
    json_t *events = server_request_as(s, token, "GET", "/api/v1/namespaces/default/events", NULL, NULL, NULL);
    json_t *e;
    size_t i;
    int n = 0;
    json_array_foreach(json_object_get(events, "items"), i, e)
    {
        const char *reason = jv_str(e, "reason"), *pod = jv_str(e, "involvedObject.name"),
                   *when = jv_str(e, "eventTime");
        int64_t at = 0;
        json_t *seen = pod ? json_object_get(running, pod) : NULL;
        if (n < cap && reason && strcmp(reason, "Started") == 0 && seen && when && rfc3339_parse(when, &at) == 0)
            out[n++] = (double)(json_integer_value(seen) - at);
    }
    json_decref(events);
    return n;
}

int main(void)
{
    bool rate = bench_wanted("backend_submit_per_s_kubernetes"),
         lag = bench_wanted("backend_status_lag_p99_ms_kubernetes");
    if (!rate && !lag)
        return 0;
    struct bench_server bs;
    const char *const args[] = {"--auth", "--schedule-period", "100", NULL};
    if (bench_server_start_with(&bs, "kube", args) != 0)
        return 1;
    char path[400], token[256], text[2048];
    snprintf(path, sizeof path, "%s/kubeconfig", bs.s.data_dir);
    if (!stand_in_admin_token(&bs.s, token, sizeof token) || !stand_in_kubeconfig(path, bs.s.url, token))
        return 1;
    running = json_object();
    struct backend_conf conf = {.default_kind = BACKEND_KUBERNETES, .kubeconfig = path};
    struct backend_host host = {post, NULL};
    struct backend *b = NULL;
    struct api_status st = {0};
    if (kube_backend_open(&conf, &host, &b, &st) != 0) {
        fprintf(stderr, "bench: %s\n", st.message);
        return 1;
    }
    double per_s[ROUNDS], all_lags[ROUNDS * ROUND_JOBS];
    int nlags = 0, rc = 0;
    char uids[ROUNDS * ROUND_JOBS][UUID_STR_LEN] = {{0}}, names[ROUNDS * ROUND_JOBS][32] = {{0}}, ref[48];
    for (int r = 0; r < ROUNDS && rc == 0; r++) {
        double t0 = bench_now();
        for (int i = 0; i < ROUND_JOBS; i++) {
            int k = r * ROUND_JOBS + i;
            snprintf(names[k], sizeof names[k], "kb%d-%d", r, i);
            snprintf(text, sizeof text, JOB_FMT, names[k]);
            uuid_v4(uids[k]);
            b->send(b->ctx, uids[k], json_loads(text, 0, NULL));
        }
        if (!wait_running((size_t)(r + 1) * ROUND_JOBS)) {
            fprintf(stderr, "bench: only %zu of %d pods were reported Running\n", json_object_size(running),
                    (r + 1) * ROUND_JOBS);
            rc = 1;
            break;
        }
        per_s[r] = ROUND_JOBS / (bench_now() - t0);
    }
    if (rc == 0) {
        pthread_mutex_lock(&mu);
        nlags = lags(&bs.s, token, all_lags, ROUNDS * ROUND_JOBS);
        pthread_mutex_unlock(&mu);
        if (rate)
            bench_report("backend_submit_per_s_kubernetes", bench_median(per_s, ROUNDS), "jobs/s");
        if (lag && nlags > 0) {
            qsort(all_lags, (size_t)nlags, sizeof all_lags[0], cmp_double);
            int p99 = (int)((nlags - 1) * 0.99 + 0.5);
            bench_report("backend_status_lag_p99_ms_kubernetes", all_lags[p99], "ms");
        } else if (lag) {
            fprintf(stderr, "bench: no Started events matched the reports\n");
            rc = 1;
        }
    }
    for (int k = 0; k < ROUNDS * ROUND_JOBS; k++)
        if (names[k][0]) {
            snprintf(ref, sizeof ref, "default/%s", names[k]);
            b->remove(b->ctx, uids[k], ref);
        }
    b->close(b->ctx);
    json_decref(running);
    bench_server_finish(&bs);
    return rc;
}
