/* `jobctl wait JOB...` and `jobctl submit FILE --wait` (a synchronous submit): follow each job
 * through a Kubernetes watch of the job, print each phase it enters, and end when it finishes:
 * exit 0 when every job Completed, 1 when one failed, was terminated, aborted or deleted. A watch that
 * ends (its timeoutSeconds, a restart of the server) is opened again from the last resourceVersion;
 * a 410 (too old) reads the job afresh first. The pods' progress (pending, running, succeeded,
 * failed, elapsed) is one line rewritten on a terminal (a ticker thread moves the elapsed time on
 * each second between events), else a line at each change. */
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/duration.h"
#include "common/sbuf.h"
#include "tools/jobctl/api.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/status.h"

#define WATCH_TIMEOUT_S 300

struct follow {
    const char *ns, *name;
    int64_t started_ms;   /* when following began (the elapsed time shown) */
    bool tty;             /* stdout is a terminal: one line rewritten */
    bool line_open;       /* a progress line is on the terminal, not ended yet */
    char progress[160];   /* the counts last printed */
    pthread_mutex_t lock; /* on a terminal: the ticker and the watch both print */
    bool stop_ticker;
    char phase[32];
    char rv[32];
    char reason[256];
    bool finished, gone, expired;
};

static bool final_phase(const char *p)
{
    return strcmp(p, "Completed") == 0 || strcmp(p, "Failed") == 0 || strcmp(p, "Terminated") == 0 ||
           strcmp(p, "Aborted") == 0;
}

static const char *str_at(const json_t *v, const char *a, const char *b, const char *c)
{
    v = json_object_get(v, a);
    if (b)
        v = json_object_get(v, b);
    if (c)
        v = json_object_get(v, c);
    return json_string_value(v);
}

/* "Running: 1 pending, 2 running, 0 succeeded, 0 failed" */
static void counts_text(const json_t *job, const char *phase, char *buf, size_t len)
{
    const json_t *st = json_object_get(job, "status");
    snprintf(buf, len, "%s: %lld pending, %lld running, %lld succeeded, %lld failed", phase,
             (long long)json_integer_value(json_object_get(st, "pending")),
             (long long)json_integer_value(json_object_get(st, "running")),
             (long long)json_integer_value(json_object_get(st, "succeeded")),
             (long long)json_integer_value(json_object_get(st, "failed")));
}

/* The pods' progress: on a terminal one line rewritten (elapsed time included) at every event, else
 * a line whenever the counts change. */
static void show_progress(struct follow *f, const json_t *job, const char *phase)
{
    char now[160], elapsed[32];
    counts_text(job, phase, now, sizeof now);
    human_age(clock_mono_ms() - f->started_ms, elapsed, sizeof elapsed);
    if (f->tty) {
        printf("\r\033[Kjob.batch.volcano.sh/%s %s (%s)", f->name, now, elapsed);
        f->line_open = true;
    } else if (strcmp(now, f->progress) != 0) {
        printf("job.batch.volcano.sh/%s %s (%s)\n", f->name, now, elapsed);
    }
    snprintf(f->progress, sizeof f->progress, "%s", now);
    fflush(stdout);
}

/* Ends the terminal's progress line before anything else is printed. */
static void end_line(struct follow *f)
{
    if (f->line_open)
        fputc('\n', stdout);
    f->line_open = false;
}

/* What the job is now: its phase (printed when it changed), its pods' progress and resourceVersion. */
static void see(struct follow *f, const json_t *job)
{
    const char *phase = str_at(job, "status", "state", "phase"), *rv = str_at(job, "metadata", "resourceVersion", NULL);
    const char *reason = str_at(job, "status", "state", "message");
    if (!reason)
        reason = str_at(job, "status", "state", "reason");
    if (rv)
        snprintf(f->rv, sizeof f->rv, "%s", rv);
    snprintf(f->reason, sizeof f->reason, "%s", reason ? reason : "");
    if (phase && strcmp(phase, f->phase) != 0) {
        snprintf(f->phase, sizeof f->phase, "%s", phase);
        end_line(f);
        printf("job.batch.volcano.sh/%s %s\n", f->name, phase);
        fflush(stdout);
    }
    f->finished = phase && final_phase(phase);
    if (phase)
        show_progress(f, job, phase);
    if (f->finished)
        end_line(f);
}

static int on_event(void *ctx, const char *line, size_t len)
{
    struct follow *f = ctx;
    json_t *event = json_loadb(line, len, 0, NULL);
    const char *type = json_string_value(json_object_get(event, "type"));
    const json_t *object = json_object_get(event, "object");
    if (type && strcmp(type, "ERROR") == 0) {
        f->expired = json_integer_value(json_object_get(object, "code")) == 410;
    } else if (type && strcmp(type, "DELETED") == 0) {
        f->gone = true;
    } else if (type && strcmp(type, "BOOKMARK") == 0) {
        const char *rv = str_at(object, "metadata", "resourceVersion", NULL);
        if (rv)
            snprintf(f->rv, sizeof f->rv, "%s", rv);

    } else if (object) {
        pthread_mutex_lock(&f->lock);
        see(f, object);
        pthread_mutex_unlock(&f->lock);
    }
    json_decref(event);
    return f->finished || f->gone || f->expired;
}

/* The job as it is now: 0, or JOBCTL_FAIL after saying why (not found, unreachable...). */
static int read_job(const struct jobctl_args *a, struct follow *f)
{
    char *path = api_ns_path(VOLCANO_BATCH_API, f->ns, "jobs", f->name, NULL);
    json_t *job = NULL;
    int rc = path ? api_get_json(a, path, &job) : JOBCTL_FAIL;
    free(path);
    if (rc == JOBCTL_OK) {
        pthread_mutex_lock(&f->lock);
        see(f, job);
        pthread_mutex_unlock(&f->lock);
    }
    json_decref(job);
    return rc;
}

/* One watch of the job from f->rv, until it finishes, goes, expires or the stream ends. */
static int watch_once(const struct jobctl_args *a, struct follow *f, int64_t deadline_ms)
{
    char *base = api_ns_path(VOLCANO_BATCH_API, f->ns, "jobs", NULL, NULL);
    char *url = NULL;
    int64_t left_s = (deadline_ms - clock_mono_ms()) / 1000;
    int timeout_s = left_s > WATCH_TIMEOUT_S ? WATCH_TIMEOUT_S : left_s < 1 ? 1 : (int)left_s;
    if (!base || asprintf(&url,
                          "%s%s?watch=true&allowWatchBookmarks=true&fieldSelector=metadata.name%%3D%s"
                          "&resourceVersion=%s&timeoutSeconds=%d",
                          a->server, base, f->name, f->rv, timeout_s) < 0) {
        free(base);
        fprintf(stderr, "jobctl: out of memory\n");
        return JOBCTL_FAIL;
    }
    free(base);
    struct http_request req = {.url = url, .bearer = a->token, .timeout_ms = (timeout_s + 30) * 1000L};
    struct http_response resp;
    char err[512];
    int rc = http_stream(&req, on_event, f, &resp, err, sizeof err);
    free(url);
    if (rc != 0) {
        fprintf(stderr, "jobctl: cannot follow job %s: %s\n", f->name, err);
        return JOBCTL_FAIL;
    }
    if (resp.code == 410) {
        f->expired = true;
    } else if (resp.code < 200 || resp.code > 299) {
        char *text = status_describe(resp.code, resp.body);
        fputs(text ? text : "jobctl: the watch was refused\n", stderr);
        free(text);
        rc = JOBCTL_FAIL;
    }
    http_response_free(&resp);
    return rc;
}

/* Follows one job to its end. Returns JOBCTL_OK when it Completed. */
/* On a terminal, the progress line's elapsed time goes on once a second between the watch's events. */
static void *tick(void *arg)
{
    struct follow *f = arg;
    for (int tenth = 1;; tenth = tenth % 10 + 1) { /* a redraw at every tenth tenth of a second */
        struct timespec step = {0, 100 * 1000000L};
        nanosleep(&step, NULL);
        pthread_mutex_lock(&f->lock);
        bool stop = f->stop_ticker;
        if (!stop && f->line_open && tenth == 10) {
            char elapsed[32];
            human_age(clock_mono_ms() - f->started_ms, elapsed, sizeof elapsed);
            printf("\r\033[Kjob.batch.volcano.sh/%s %s (%s)", f->name, f->progress, elapsed);
            fflush(stdout);
        }
        pthread_mutex_unlock(&f->lock);
        if (stop)
            return NULL;
    }
}

static void stop_ticker(struct follow *f, pthread_t *ticker, bool *ticking)
{
    if (!*ticking)
        return;
    pthread_mutex_lock(&f->lock);
    f->stop_ticker = true;
    pthread_mutex_unlock(&f->lock);
    pthread_join(*ticker, NULL);
    *ticking = false;
}

/* Follows one job until it finishes or goes (or the deadline: JOBCTL_FAIL, said on stderr). */
static int follow_to_end(const struct jobctl_args *a, struct follow *f, int64_t deadline_ms)
{
    int rc = read_job(a, f);
    while (rc == JOBCTL_OK && !f->finished && !f->gone) {
        if (clock_mono_ms() >= deadline_ms) {
            pthread_mutex_lock(&f->lock);
            end_line(f);
            pthread_mutex_unlock(&f->lock);
            fprintf(stderr, "jobctl: job %s is still %s after the --timeout\n", f->name, f->phase);
            return JOBCTL_FAIL;
        }
        rc = watch_once(a, f, deadline_ms);
        if (rc == JOBCTL_OK && f->expired) { /* too old: start again from the job as it is */
            f->expired = false;
            rc = read_job(a, f);
        }
    }
    return rc;
}

static int follow_job(const struct jobctl_args *a, const char *ns, const char *name, int64_t deadline_ms)
{
    struct follow f = {.ns = ns, .name = name, .started_ms = clock_mono_ms(), .tty = isatty(STDOUT_FILENO)};
    pthread_t ticker;
    pthread_mutex_init(&f.lock, NULL);
    bool ticking = f.tty && pthread_create(&ticker, NULL, tick, &f) == 0;
    int rc = follow_to_end(a, &f, deadline_ms);
    stop_ticker(&f, &ticker, &ticking);
    pthread_mutex_destroy(&f.lock);
    end_line(&f);
    if (rc != JOBCTL_OK)
        return rc;
    if (f.gone) {
        fprintf(stderr, "jobctl: job %s was deleted before it finished\n", name);
        return JOBCTL_FAIL;
    }
    if (strcmp(f.phase, "Completed") == 0)
        return JOBCTL_OK;
    fprintf(stderr, "jobctl: job %s ended %s%s%s\n", name, f.phase, f.reason[0] ? ": " : "", f.reason);
    return JOBCTL_FAIL;
}

int jobctl_wait_jobs(const struct jobctl_args *a, const char *const *namespaces, const char *const *names, int n)
{
    int64_t timeout_ms = DURATION_MAX_MS;
    const char *why;
    if (a->timeout && duration_parse(a->timeout, &timeout_ms, &why) != 0) {
        fprintf(stderr, "jobctl: --timeout wants a duration such as 90s or 2h, not \"%s\"\n", a->timeout);
        return JOBCTL_USAGE;
    }
    int64_t deadline_ms = clock_mono_ms() + timeout_ms;
    int rc = JOBCTL_OK;
    for (int i = 0; i < n; i++) {
        int one = follow_job(a, namespaces && namespaces[i] ? namespaces[i] : a->ns, names[i], deadline_ms);
        if (one != JOBCTL_OK)
            rc = one;
    }
    return rc;
}

int cmd_wait(const struct jobctl_args *a) { return jobctl_wait_jobs(a, NULL, a->pos, a->npos); }
