/* `jobctl logs POD|JOB [-f] [--previous] [--attempt N] [--tail N] [--since D|TIME] [--timestamps]
 * [--limit-bytes N]`: a pod's log exactly as the server sends it (the bytes go to stdout unchanged,
 * so binary output and missing final newlines survive; the server checks the values); for a job,
 * every pod's log with each line prefixed "[pod] "; with -f a pod's log (or every pod's of a job)
 * followed as it is written, attempt after attempt, until its job ends (or Ctrl-C). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/duration.h"
#include "common/sbuf.h"
#include "tools/jobctl/api.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/kube_words.h"
#include "tools/jobctl/log_follow.h"
#include "tools/jobctl/output.h"
#include "tools/jobctl/status.h"

#define MAX_FOLLOWED 64

/* --since as kubectl takes it: a duration (sinceSeconds, rounded up) or an RFC 3339 time (sinceTime). */
static void since_param(struct sbuf *b, const char *since, char sep)
{
    int64_t ms;
    const char *why;
    if (rfc3339_parse(since, &ms) == 0) {
        sbuf_printf(b, "%csinceTime=", sep);
        url_escape(b, since);
    } else if (duration_parse(since, &ms, &why) == 0 && ms > 0) {
        sbuf_printf(b, "%csinceSeconds=%lld", sep, (long long)((ms + 999) / 1000));
    } else {
        sbuf_printf(b, "%csinceSeconds=", sep); /* the server says what is wrong with it */
        url_escape(b, since);
    }
}

char *log_path(const struct jobctl_args *a, const char *pod, long attempt, bool follow, bool options)
{
    char *base = api_ns_path(CORE_API, a->ns, "pods", pod, "log");
    if (!base)
        return NULL;
    struct sbuf b = {0};
    sbuf_puts(&b, base);
    char sep = '?';
    if (a->previous && attempt < 0) {
        sbuf_printf(&b, "%cprevious=true", sep);
        sep = '&';
    }
    if (attempt >= 0) {
        sbuf_printf(&b, "%cattempt=%ld", sep, attempt);
        sep = '&';
    }
    if (follow) {
        sbuf_printf(&b, "%cfollow=true", sep);
        sep = '&';
    }
    const char *keys[] = {"tailLines", "limitBytes"}, *values[] = {a->tail, a->limit_bytes};
    for (int i = 0; i < 2 && options; i++)
        if (values[i]) {
            sbuf_printf(&b, "%c%s=", sep, keys[i]);
            url_escape(&b, values[i]);
            sep = '&';
        }
    if (a->timestamps) {
        sbuf_printf(&b, "%ctimestamps=true", sep);
        sep = '&';
    }
    if (a->since && options)
        since_param(&b, a->since, sep);
    free(base);
    return sbuf_take(&b);
}

static int pod_logs(const struct jobctl_args *a, const char *pod)
{
    char *path = log_path(a, pod, a->attempt, false, true);
    if (!path)
        return report_oom();
    struct http_response resp;
    int rc = api_call(a, "GET", path, NULL, &resp);
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    fwrite(resp.body, 1, resp.len, stdout);
    http_response_free(&resp);
    return JOBCTL_OK;
}

/* Each line of text with "[pod] " before it; a last line without its newline gets one. */
static void print_prefixed(const char *pod, const char *text, size_t len)
{
    size_t at = 0;
    while (at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        printf("[%s] %.*s\n", pod, (int)n, text + at);
        at += n + 1;
    }
}

/* Every pod's log, prefixed. A pod without a log (not started yet, or it never could) says why in
 * its place, on stderr; that alone is no failure. */
static int job_logs(const struct jobctl_args *a, const char *job, const json_t *pods)
{
    size_t i;
    json_t *pod;
    int rc = JOBCTL_OK;
    json_array_foreach(pods, i, pod)
    {
        const char *name = json_string_value(json_at(pod, "metadata.name"));
        char *path = name ? log_path(a, name, a->attempt, false, true) : NULL;
        struct http_response resp;
        if (!path || api_fetch(a, "GET", path, &resp) != JOBCTL_OK) {
            free(path);
            rc = JOBCTL_FAIL;
            continue;
        }
        free(path);
        if (resp.code >= 200 && resp.code < 300) {
            print_prefixed(name, resp.body, resp.len);
        } else {
            char *why = status_describe(resp.code, resp.body);
            fprintf(stderr, "[%s] %s", name, why ? why + strlen("jobctl: ") : "no log\n");
            free(why);
            if (resp.code != 400 && resp.code != 404)
                rc = JOBCTL_FAIL;
        }
        fflush(stdout);
        http_response_free(&resp);
    }
    if (json_array_size(pods) == 0)
        fprintf(stderr, "No pods found for job \"%s\".\n", job);
    return rc;
}

/* Every pod of the job followed at once (at most MAX_FOLLOWED). */
static int follow_job(const struct jobctl_args *a, const char *job, const json_t *pods)
{
    const char *names[MAX_FOLLOWED];
    int n = 0;
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        const char *name = json_string_value(json_at(pod, "metadata.name"));
        if (name && n == MAX_FOLLOWED) {
            fprintf(stderr, "jobctl: job %s has more than %d pods: follow them one by one (jobctl logs -f POD)\n", job,
                    MAX_FOLLOWED);
            return JOBCTL_FAIL;
        }
        if (name)
            names[n++] = name;
    }
    if (n == 0) {
        fprintf(stderr, "No pods found for job \"%s\".\n", job);
        return JOBCTL_OK;
    }
    return follow_pods_logs(a, names, n);
}

/* `logs NAME` (a job's when there is one, else a pod's), `logs job/NAME`, `logs pod/NAME`. */
int cmd_logs(const struct jobctl_args *a)
{
    enum kube_kind kind;
    const char *name;
    char why[160];
    if (kube_one_name(a, 1u << KUBE_JOBS | 1u << KUBE_PODS, "logs are a pod's or a job's (pod/NAME, job/NAME)",
                      "logs needs a POD or a JOB (or pod/NAME, job/NAME)", &kind, &name, why, sizeof why) != 0)
        return jobctl_usage_error(a->command_def, why);
    json_t *job = NULL, *pods = NULL;
    /* job/NAME: its fetch says when there is none */
    int found = kind == KUBE_PODS ? 0 : kind == KUBE_JOBS ? 1 : api_job_exists(a, name);
    if (found < 0)
        return JOBCTL_FAIL;
    if (!found)
        return a->follow ? follow_pod_log(a, name) : pod_logs(a, name);
    int rc = fetch_job_and_pods(a, name, &job, &pods);
    if (rc == JOBCTL_OK && a->follow)
        rc = follow_job(a, name, pods);
    else if (rc == JOBCTL_OK)
        rc = job_logs(a, name, pods);
    json_decref(job);
    json_decref(pods);
    return rc;
}
