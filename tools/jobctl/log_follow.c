/* Following a pod's log across its attempts. The server streams one attempt (?follow=true&attempt=N)
 * until it ends; between streams the job's history says whether a new attempt began (then its log is
 * followed from its start, after a marker line on stderr) and the job whether it ended. A stream that
 * broke while its attempt still runs is asked again, skipping what was already printed. Waits poll
 * once a second; the loop ends with the job (or Ctrl-C). A job's pods are followed by a thread each,
 * whole lines printed under one lock so they never mix. */
#include "tools/jobctl/log_follow.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/sbuf.h"
#include "tools/jobctl/api.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/log_stream.h"
#include "tools/jobctl/output.h"
#include "tools/jobctl/status.h"

#define POLL_MS 1000

/* Where a follower's bytes go: stdout as they are, or (prefix set) whole lines "[pod] line" under
 * the lock the followers of one job share. */
struct printed {
    long long bytes;       /* of this stream's answer, received (skipped ones included) */
    long long skip;        /* to skip at the start of a stream asked again */
    const char *prefix;    /* NULL: the bytes as they are */
    pthread_mutex_t *lock; /* with prefix */
    struct sbuf line;      /* with prefix: the line not ended yet */
};

/* The line so far, prefixed, then a newline (under the lock). */
static void put_line(struct printed *p)
{
    pthread_mutex_lock(p->lock);
    printf("[%s] %.*s\n", p->prefix, (int)p->line.len, p->line.len ? sbuf_str(&p->line) : "");
    fflush(stdout);
    pthread_mutex_unlock(p->lock);
    p->line.len = 0;
}

static void put_prefixed(struct printed *p, const char *data, size_t len)
{
    while (len) {
        const char *nl = memchr(data, '\n', len);
        size_t n = nl ? (size_t)(nl - data) : len;
        sbuf_append(&p->line, data, n);
        if (nl)
            put_line(p);
        data += n + (nl != NULL);
        len -= n + (nl != NULL);
    }
}

static int to_stdout(void *ctx, const char *data, size_t len)
{
    struct printed *p = ctx;
    p->bytes += (long long)len;
    if (p->skip > 0) {
        size_t drop = (long long)len < p->skip ? len : (size_t)p->skip;
        p->skip -= (long long)drop;
        data += drop;
        len -= drop;
    }
    if (len && p->prefix) {
        put_prefixed(p, data, len);
    } else if (len) {
        fwrite(data, 1, len, stdout);
        fflush(stdout);
    }
    return ferror(stdout) ? 1 : 0;
}

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static bool final_phase(const char *p)
{
    return p && (strcmp(p, "Completed") == 0 || strcmp(p, "Failed") == 0 || strcmp(p, "Terminated") == 0 ||
                 strcmp(p, "Aborted") == 0);
}

/* Where the pod is: its job's phase (ended: final, or the job gone) and its last attempt (0: none
 * yet) and whether that one finished. JOBCTL_FAIL when the server could not say. */
struct pod_state {
    bool job_ended;
    long attempt;
    bool finished;
};

static int pod_state(const struct jobctl_args *a, const char *job, const char *pod, struct pod_state *st)
{
    *st = (struct pod_state){0};
    char *path = api_ns_path(VOLCANO_BATCH_API, a->ns, "jobs", job, NULL);
    struct http_response resp;
    int rc = path ? api_fetch(a, "GET", path, &resp) : report_oom();
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    json_t *j = resp.code == 200 ? json_loadb(resp.body, resp.len, 0, NULL) : NULL;
    st->job_ended = resp.code == 404 || final_phase(json_string_value(json_at(j, "status.state.phase")));
    json_decref(j);
    http_response_free(&resp);
    json_t *h = NULL;
    path = api_ns_path(CALDERA_API, a->ns, "jobs", job, "history");
    rc = path ? api_get_json(a, path, &h) : report_oom();
    free(path);
    if (rc != JOBCTL_OK)
        return st->job_ended ? JOBCTL_OK : rc;
    size_t i;
    json_t *at;
    json_array_foreach(json_object_get(h, "attempts"), i, at)
    {
        const char *p = json_string_value(json_object_get(at, "pod"));
        long n = (long)json_integer_value(json_object_get(at, "attempt"));
        if (p && strcmp(p, pod) == 0 && n >= st->attempt) {
            st->attempt = n;
            st->finished = json_is_string(json_object_get(at, "finishTime"));
        }
    }
    json_decref(h);
    return JOBCTL_OK;
}

/* The job of the pod, from its volcano.sh/job-name label (heap string). */
static int pod_job(const struct jobctl_args *a, const char *pod, char **job)
{
    char *path = api_ns_path(CORE_API, a->ns, "pods", pod, NULL);
    json_t *p = NULL;
    int rc = path ? api_get_json(a, path, &p) : report_oom();
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    const char *name = json_string_value(json_object_get(json_at(p, "metadata.labels"), "volcano.sh/job-name"));
    *job = name ? strdup(name) : NULL;
    json_decref(p);
    if (!*job) {
        fprintf(stderr, "jobctl: pod %s names no job (label volcano.sh/job-name)\n", pod);
        return JOBCTL_FAIL;
    }
    return JOBCTL_OK;
}

/* One stream of attempt n. *waiting: the server said it has not started yet. */
static int stream_attempt(const struct jobctl_args *a, const char *pod, long n, bool first, struct printed *pr,
                          bool *waiting)
{
    char *path = log_path(a, pod, n, true, first);
    struct http_response resp;
    *waiting = false;
    int rc = path ? log_stream_get(a, path, to_stdout, pr, &resp) : report_oom();
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    if (resp.code == 400) {
        *waiting = true;
    } else if (resp.code < 200 || resp.code > 299) {
        char *why = status_describe(resp.code, resp.body);
        fputs(why ? why : "jobctl: the log was refused\n", stderr);
        free(why);
        rc = JOBCTL_FAIL;
    }
    http_response_free(&resp);
    return rc;
}

/* Follows pod with its bytes going to out (its counters reset per attempt). */
static int follow_into(const struct jobctl_args *a, const char *pod, struct printed *out)
{
    char *job = NULL;
    int rc = pod_job(a, pod, &job);
    struct pod_state st;
    long n = a->attempt;
    bool first = true;
    while (rc == JOBCTL_OK) {
        if ((rc = pod_state(a, job, pod, &st)) != JOBCTL_OK)
            break;
        if (n < 0)
            n = a->previous && st.attempt > 1 ? st.attempt - 1 : st.attempt;
        if (n == 0) { /* not started yet */
            if (st.job_ended)
                break;
            pause_ms(POLL_MS);
            continue;
        }
        struct printed *pr = out;
        pr->bytes = pr->skip = 0;
        bool waiting;
        for (;;) { /* attempt n until it ends; asked again (skipping what was printed) if the stream broke */
            pr->skip = pr->bytes;
            pr->bytes = 0;
            if ((rc = stream_attempt(a, pod, n, first, pr, &waiting)) != JOBCTL_OK || waiting)
                break;
            if ((rc = pod_state(a, job, pod, &st)) != JOBCTL_OK || st.job_ended || st.attempt != n || st.finished)
                break;
            pause_ms(POLL_MS);
        }
        first = false;
        if (rc != JOBCTL_OK)
            break;
        if (waiting) {
            pause_ms(POLL_MS);
            continue;
        }
        while (rc == JOBCTL_OK && !st.job_ended && st.attempt <= n) { /* the next attempt, or the end */
            pause_ms(POLL_MS);
            rc = pod_state(a, job, pod, &st);
        }
        if (rc != JOBCTL_OK || st.attempt <= n)
            break;
        if (pr->prefix && pr->line.len) /* an attempt's unfinished last line ends with it */
            put_line(pr);
        n++;
        fprintf(stderr, "--- %s: attempt %ld ---\n", pod, n);
    }
    if (out->prefix && out->line.len)
        put_line(out);
    free(job);
    return rc;
}

int follow_pod_log(const struct jobctl_args *a, const char *pod)
{
    struct printed out = {0};
    return follow_into(a, pod, &out);
}

struct pod_follower {
    const struct jobctl_args *a;
    struct printed out;
    pthread_t thread;
    bool started;
    int rc;
};

static void *follow_thread(void *arg)
{
    struct pod_follower *f = arg;
    f->rc = follow_into(f->a, f->out.prefix, &f->out);
    return NULL;
}

int follow_pods_logs(const struct jobctl_args *a, const char *const *pods, int n)
{
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    struct pod_follower *f = calloc((size_t)n, sizeof *f);
    if (!f)
        return report_oom();
    int rc = JOBCTL_OK;
    for (int i = 0; i < n; i++) {
        f[i] = (struct pod_follower){.a = a, .out = {.prefix = pods[i], .lock = &lock}};
        f[i].started = pthread_create(&f[i].thread, NULL, follow_thread, &f[i]) == 0;
        if (!f[i].started) {
            fprintf(stderr, "jobctl: cannot follow pod %s: no thread for it\n", pods[i]);
            rc = JOBCTL_FAIL;
        }
    }
    for (int i = 0; i < n; i++) {
        if (!f[i].started)
            continue;
        pthread_join(f[i].thread, NULL);
        sbuf_free(&f[i].out.line);
        if (f[i].rc != JOBCTL_OK)
            rc = f[i].rc;
    }
    free(f);
    return rc;
}
