/* A live pod's log: `?follow=true` streams the attempt's log as its file grows and ends when that
 * attempt ends (or the client goes, or the server stops). It sleeps in poll() on the client's socket
 * and an inotify watch of the file, so a write is sent at once, and asks the core whether the attempt
 * still runs when the file stayed quiet for FOLLOW_POLL_MS. An attempt with no log file (its process
 * never started) is answered with a Status carrying the start error its history recorded. */
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "gateway/http/query_params.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/pod_log.h"
#include "store/history.h"

#define FOLLOW_POLL_MS 500

struct log_follow {
    struct pod_log_reader *reader;
    struct gateway *gw;
    int client_fd; /* polled for the client's hang-up; -1: unknown */
    int watch_fd;  /* inotify of the log file's writes; -1: none (then the wait is the whole period) */
    char *ns, *pod;
    int attempt;
    bool ended; /* the attempt ended: what is left of the file is the last of the answer */
};

/* Whether the attempt still runs, by the core's answer; false when the pod is gone. */
static bool attempt_running(struct log_follow *f)
{
    struct core_request creq = {.op = CORE_POD_LOG, .ns = f->ns, .name = f->pod, .attempt = f->attempt};
    bool running = core_call(f->gw->core, &creq) == 0 && json_is_true(json_object_get(creq.body, "running"));
    json_decref(creq.body);
    free(creq.log_path);
    return running;
}

enum wake { WAKE_WRITTEN, WAKE_QUIET, WAKE_GONE };

/* Waits up to ms for the file to be written or the client to hang up (the only thing it may send). */
static enum wake wait_for_change(struct log_follow *f, int ms)
{
    struct pollfd p[2] = {{.fd = f->client_fd, .events = POLLRDHUP}, {.fd = f->watch_fd, .events = POLLIN}};
    if (poll(p, 2, ms) <= 0)
        return WAKE_QUIET;
    if (p[0].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))
        return WAKE_GONE;
    if (p[1].revents & POLLIN) {
        char events[4096];
        while (read(f->watch_fd, events, sizeof events) > 0) /* non-blocking: drained */
            ;
        return WAKE_WRITTEN;
    }
    return WAKE_QUIET;
}

static long follow_read(void *ctx, char *buf, size_t max)
{
    struct log_follow *f = ctx;
    for (;;) {
        long n = pod_log_read(f->reader, buf, max);
        if (n > 0 || f->ended || pod_log_limit_reached(f->reader))
            return n > 0 ? n : -1;
        if (http_stopping(f->gw))
            return -1;
        enum wake w = wait_for_change(f, FOLLOW_POLL_MS);
        if (w == WAKE_GONE)
            return -1;
        bool running = w == WAKE_WRITTEN || attempt_running(f);
        pod_log_follow(f->reader, running);
        f->ended = !running;
    }
}

static void follow_free(void *ctx)
{
    struct log_follow *f = ctx;
    pod_log_close(f->reader);
    if (f->watch_fd >= 0)
        close(f->watch_fd);
    free(f->ns);
    free(f->pod);
    free(f);
}

/* The Status for an attempt without a log: its start error when the history has one. */
static void no_log_status(struct http_req *req, const struct pod_log_live *live, struct api_status *st)
{
    struct store_reader *r;
    json_t *attempt = NULL;
    struct api_status ignored = {0};
    if (store_reader_open(req->gw->db_path, &r, &ignored) == 0) {
        store_attempt_history(r, live->ns, live->job, live->uid, live->pod, live->attempt, &attempt, &ignored);
        store_reader_close(r);
    }
    const char *reason = json_string_value(json_object_get(attempt, "reason"));
    const char *message = json_string_value(json_object_get(attempt, "message"));
    if (message && *message) {
        *st = (struct api_status){0};
        api_fail(st, 404, "NotFound", "container \"%s\" in pod \"%s\" did not start (attempt %d): %s%s%s",
                 live->container ? live->container : "", live->pod, live->attempt, reason ? reason : "",
                 reason ? ": " : "", message);
        api_set_details(st, "pods", "", live->pod);
    }
    json_decref(attempt);
}

static int follow_param(struct http_req *req, bool *follow, struct api_status *st)
{
    *follow = false;
    return query_bool("follow", http_query(req, "follow"), follow, st);
}

void pod_log_respond_live(struct http_req *req, const struct pod_log_live *live)
{
    struct api_status st = {0};
    struct pod_log_options o;
    struct pod_log_reader *reader;
    bool follow;
    if (pod_log_check_container(req, live->container, &st) != 0 || follow_param(req, &follow, &st) != 0 ||
        pod_log_query_options(req, &o, &st) != 0) {
        http_respond_status(req, &st);
        return;
    }
    if (pod_log_open(live->path, &o, &reader, &st) != 0) {
        if (st.code == 404)
            no_log_status(req, live, &st);
        http_respond_status(req, &st);
        return;
    }
    pod_log_warn_raw(req, reader, &o);
    struct log_follow *f = follow && live->running ? calloc(1, sizeof *f) : NULL;
    if (f) {
        *f = (struct log_follow){.reader = reader,
                                 .gw = req->gw,
                                 .client_fd = http_client_socket(req),
                                 .watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC),
                                 .ns = strdup(live->ns),
                                 .pod = strdup(live->pod),
                                 .attempt = live->attempt};
        if (f->watch_fd >= 0 && inotify_add_watch(f->watch_fd, live->path, IN_MODIFY) < 0) {
            close(f->watch_fd);
            f->watch_fd = -1;
        }
        if (f->ns && f->pod) {
            pod_log_follow(reader, true);
            http_respond_stream(req, "text/plain; charset=utf-8", follow_read, f, follow_free);
            return;
        }
        if (f->watch_fd >= 0)
            close(f->watch_fd);
        free(f->ns);
        free(f->pod);
        free(f);
    }
    pod_log_respond_reader(req, reader);
}
