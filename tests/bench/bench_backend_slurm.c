/* The Slurm backend against the throwaway cluster (tests/lib/slurm-cluster): how many sends slurmrestd
 * takes per second, and how long after a rank ends (its status line's time) its report is posted. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "runtime/backend.h"
#include "tests/lib/bench.h"
#include "tests/lib/slurm_cluster.h"

#define JOBS 20
#define RUNS 3
#define WAIT_MS 60000

struct tally {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int sent, failed, done;
    double lag_ms[JOBS * RUNS];
    int nlag;
};

static void post(void *ctx, struct backend_update *u)
{
    struct tally *t = ctx;
    int64_t now = clock_wall_ms();
    pthread_mutex_lock(&t->mu);
    if (u->kind == BACKEND_SENT)
        t->sent++;
    else if (u->kind == BACKEND_SEND_FAILED)
        t->failed++;
    else if (u->kind == BACKEND_POD && u->phase == BACKEND_POD_SUCCEEDED) {
        t->done++;
        if (t->nlag < JOBS * RUNS)
            t->lag_ms[t->nlag++] = (double)(now - u->end_ms);
    }
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    backend_update_free(u);
}

/* Waits until *field reaches want; false after WAIT_MS. */
static bool wait_count(struct tally *t, const int *field, int want)
{
    int64_t until = clock_mono_ms() + WAIT_MS;
    pthread_mutex_lock(&t->mu);
    while (*field + t->failed < want && clock_mono_ms() < until) {
        struct timespec ts = clock_deadline(CLOCK_REALTIME, 50);
        pthread_cond_timedwait(&t->cv, &t->mu, &ts);
    }
    bool ok = *field >= want;
    pthread_mutex_unlock(&t->mu);
    return ok;
}

static json_t *manifest(const char *uid)
{
    return json_pack("{s:s,s:s,s:{s:s,s:s,s:{s:s}},s:{s:[{s:s,s:i,s:{s:{s:[{s:s,s:s,s:[s]}]}}}]}}", "apiVersion",
                     "batch.volcano.sh/v1alpha1", "kind", "Job", "metadata", "name", "bench", "namespace", "default",
                     "labels", BACKEND_UID_LABEL, uid, "spec", "tasks", "name", "t", "replicas", 1, "template", "spec",
                     "containers", "name", "c", "image", "none", "command", "true");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    if (!bench_wanted("backend_submit_per_s_slurm") && !bench_wanted("backend_status_lag_p99_ms_slurm"))
        return 0;
    struct slurm_cluster c;
    char err[1024];
    if (getuid() != 0 || slurm_cluster_start(&c, err, sizeof err) != 0) {
        fprintf(stderr, "bench_backend_slurm: skipped (no Slurm cluster: %s)\n", getuid() ? "not root" : err);
        return 0;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    char work[300], token[300];
    snprintf(work, sizeof work, "%s/work", c.dir);
    snprintf(token, sizeof token, "%s/token", c.dir);
    write_file_atomic(token, c.token, strlen(c.token), 0600);
    struct backend_conf conf = {.default_kind = BACKEND_SLURM,
                                .slurmrestd = c.url,
                                .slurm_user = c.user,
                                .slurm_token_file = token,
                                .slurm_work_dir = work};
    struct tally t = {0};
    pthread_mutex_init(&t.mu, NULL);
    pthread_cond_init(&t.cv, NULL);
    struct backend_host host = {.post = post, .ctx = &t};
    struct backend *b = NULL;
    struct api_status st = {0};
    int rc = 1;
    if (slurm_backend_open(&conf, &host, &b, &st) != 0) {
        fprintf(stderr, "bench_backend_slurm: %s\n", st.message);
        goto out;
    }
    double rates[RUNS];
    for (int run = 0; run < RUNS; run++) {
        int base_sent = t.sent, base_done = t.done;
        double t0 = bench_now();
        for (int i = 0; i < JOBS; i++) {
            char uid[UUID_STR_LEN];
            snprintf(uid, sizeof uid, "00000000-0000-4000-8000-%012d", run * JOBS + i);
            b->send(b->ctx, uid, manifest(uid));
        }
        if (!wait_count(&t, &t.sent, base_sent + JOBS)) {
            fprintf(stderr, "bench_backend_slurm: %d of %d sends answered\n", t.sent - base_sent, JOBS);
            goto out;
        }
        rates[run] = JOBS / (bench_now() - t0);
        if (!wait_count(&t, &t.done, base_done + JOBS)) {
            fprintf(stderr, "bench_backend_slurm: %d of %d jobs reported done\n", t.done - base_done, JOBS);
            goto out;
        }
    }
    if (bench_wanted("backend_submit_per_s_slurm"))
        bench_report("backend_submit_per_s_slurm", bench_median(rates, RUNS), "jobs/s");
    qsort(t.lag_ms, (size_t)t.nlag, sizeof t.lag_ms[0], cmp_double);
    if (bench_wanted("backend_status_lag_p99_ms_slurm") && t.nlag > 0)
        bench_report("backend_status_lag_p99_ms_slurm", t.lag_ms[(t.nlag * 99) / 100 - (t.nlag * 99 % 100 == 0)], "ms");
    rc = 0;
out:
    if (b)
        b->close(b->ctx);
    slurm_cluster_stop(&c);
    curl_global_cleanup();
    return rc;
}
