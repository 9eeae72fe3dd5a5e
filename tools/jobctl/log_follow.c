/* Following a pod's log across its attempts. The server streams one attempt (?follow=true&attempt=N)
 * until it ends; between streams the job's history says whether a new attempt began (then its log is
 * followed from its start, after a marker line on stderr) and the job whether it ended. A stream that
 * broke while its attempt still runs is asked again, skipping what was already printed. Waits poll
 * once a second; the loop ends with the job (or Ctrl-C). */
#include "tools/jobctl/log_follow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/jobctl/api.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/log_stream.h"
#include "tools/jobctl/output.h"
#include "tools/jobctl/status.h"

#define POLL_MS 1000

struct printed {
    long long bytes; /* of this stream's answer, received (skipped ones included) */
    long long skip;  /* to skip at the start of a stream asked again */
};

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
    if (len) {
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

int follow_pod_log(const struct jobctl_args *a, const char *pod)
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
        struct printed pr = {0};
        bool waiting;
        for (;;) { /* attempt n until it ends; asked again (skipping what was printed) if the stream broke */
            pr.skip = pr.bytes;
            pr.bytes = 0;
            if ((rc = stream_attempt(a, pod, n, first, &pr, &waiting)) != JOBCTL_OK || waiting)
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
        n++;
        fprintf(stderr, "--- %s: attempt %ld ---\n", pod, n);
    }
    free(job);
    return rc;
}
