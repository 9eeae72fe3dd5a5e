/* `jobctl debug`: a debug session (caldera.io/v1 DebugSession) created from options, then followed
 * until every companion is Ready, printing the pending reason while it waits and each companion's URL. */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/duration.h"
#include "tools/jobctl/api.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/output.h"
#include "tools/jobctl/status.h"

#define POLL_MS 500
#define SESSION_KIND "debugsession.caldera.io"

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* One companion being waited for. */
struct waited {
    const char *type;
    char name[160];
    char state[256]; /* what it is now, for the --timeout message */
    char url[512];   /* status.url once Ready */
    bool ready;
};

/* The DebugSession the options describe; NULL when memory runs out. */
static json_t *session_of(const struct jobctl_args *a)
{
    json_t *resources = json_object(), *companions = json_array(), *spec = json_object();
    if (a->cpu)
        json_object_set_new(resources, "cpu", json_string(a->cpu));
    if (a->memory)
        json_object_set_new(resources, "memory", json_string(a->memory));
    if (a->gpu)
        json_object_set_new(resources, "nvidia.com/gpu", json_string(a->gpu));
    for (int i = 0; i < a->ncompanions; i++)
        json_array_append_new(companions, json_string(a->companions[i]));
    json_object_set_new(spec, "resources", resources);
    json_object_set_new(spec, "companions", companions);
    if (a->image)
        json_object_set_new(spec, "image", json_string(a->image));
    if (a->duration)
        json_object_set_new(spec, "duration", json_string(a->duration));
    if (a->queue)
        json_object_set_new(spec, "queue", json_string(a->queue));
    json_t *meta = json_object();
    if (a->name)
        json_object_set_new(meta, "name", json_string(a->name));
    return json_pack("{s:s,s:s,s:o,s:o}", "apiVersion", "caldera.io/v1", "kind", "DebugSession", "metadata", meta,
                     "spec", spec);
}

/* GET path without saying anything: the code (0 when the server could not be reached, err says why)
 * and, on a 2xx, the JSON object in *out. */
static long quiet_get(const struct jobctl_args *a, const char *path, json_t **out, char *err, size_t errlen,
                      char **body)
{
    char *url = NULL;
    *out = NULL;
    if (body)
        *body = NULL;
    if (asprintf(&url, "%s%s", a->server, path) < 0) {
        snprintf(err, errlen, "out of memory");
        return 0;
    }
    struct http_request req = {.url = url, .bearer = a->token, .timeout_ms = 10000};
    struct http_response resp;
    int rc = http_do(&req, &resp, err, errlen);
    free(url);
    if (rc != 0)
        return 0;
    if (resp.code >= 200 && resp.code < 300)
        *out = json_loadb(resp.body, resp.len, 0, NULL);
    else if (body)
        *body = strdup(resp.body);
    long code = resp.code;
    http_response_free(&resp);
    return code;
}

static const char *str_at(const json_t *v, const char *a, const char *b)
{
    return json_string_value(json_object_get(json_object_get(v, a), b));
}

/* Says why an answer was refused (a Status or anything else) and returns JOBCTL_FAIL. */
static int refused(long code, const char *body, const char *what, const char *err)
{
    if (code == 0) {
        fprintf(stderr, "jobctl: cannot read %s: %s\n", what, err);
        return JOBCTL_FAIL;
    }
    char *text = status_describe(code, body ? body : "");
    fputs(text ? text : "jobctl: the request failed\n", stderr);
    free(text);
    return JOBCTL_FAIL;
}

/* The session as it is: phase into *phase_out (empty while unknown); a changed pending reason is
 * printed. Returns JOBCTL_OK, or JOBCTL_FAIL once it ended, was deleted, or cannot be read. */
static int look_at_session(const struct jobctl_args *a, const char *path, const char *name, char *phase_out, size_t len,
                           char *said, size_t said_len)
{
    json_t *obj;
    char err[512], *body;
    long code = quiet_get(a, path, &obj, err, sizeof err, &body);
    if (code == 404) {
        free(body);
        fprintf(stderr, "jobctl: debug session %s was deleted\n", name);
        return JOBCTL_FAIL;
    }
    if (!obj) {
        int rc = refused(code, body, "the debug session", err);
        free(body);
        return rc;
    }
    const char *phase = str_at(obj, "status", "phase"), *reason = str_at(obj, "status", "reason"),
               *message = str_at(obj, "status", "message");
    snprintf(phase_out, len, "%s", phase ? phase : "");
    char now[768];
    if (phase && strcmp(phase, "Running") == 0) /* the why of a Pending, an ended session; not Sync's */
        reason = message = NULL;
    snprintf(now, sizeof now, "%s%s%s%s%s", phase ? phase : "Pending", reason ? ": " : "", reason ? reason : "",
             message ? ": " : "", message ? message : "");
    if (strcmp(now, said) != 0) {
        fprintf(stderr, "%s/%s %s\n", SESSION_KIND, name, now);
        snprintf(said, said_len, "%s", now);
    }
    int rc = JOBCTL_OK;
    if (phase && (strcmp(phase, "Ended") == 0 || strcmp(phase, "Failed") == 0 || strcmp(phase, "Ending") == 0)) {
        fprintf(stderr, "jobctl: debug session %s ended (%s) before its companions were ready\n", name, now);
        rc = JOBCTL_FAIL;
    }
    json_decref(obj);
    return rc;
}

/* One companion as it is (the companions API: GET .../companions/<job>-<type>; 404: not yet). */
static int look_at_companion(const struct jobctl_args *a, struct waited *w)
{
    char *path = api_ns_path(CALDERA_API, a->ns, "companions", w->name, NULL);
    if (!path)
        return report_oom();
    json_t *obj;
    char err[512], *body;
    long code = quiet_get(a, path, &obj, err, sizeof err, &body);
    free(path);
    if (code == 404) {
        free(body);
        snprintf(w->state, sizeof w->state, "not there yet: the companions API answered 404");
        return JOBCTL_OK;
    }
    if (!obj) {
        int rc = refused(code, body, "a companion", err);
        free(body);
        return rc;
    }
    const char *phase = str_at(obj, "status", "phase"), *url = str_at(obj, "status", "url");
    const char *reason = str_at(obj, "status", "reason"), *message = str_at(obj, "status", "message");
    snprintf(w->state, sizeof w->state, "%s%s%s%s%s", phase ? phase : "Pending", reason ? ": " : "",
             reason ? reason : "", message ? ": " : "", message ? message : "");
    int rc = JOBCTL_OK;
    if (phase && strcmp(phase, "Ready") == 0 && url) {
        snprintf(w->url, sizeof w->url, "%s", url);
        w->ready = true;
    } else if (phase && strcmp(phase, "Failed") == 0) {
        fprintf(stderr, "jobctl: companion %s failed: %s\n", w->name, w->state);
        rc = JOBCTL_FAIL;
    }
    json_decref(obj);
    return rc;
}

static void sleep_ms(int64_t ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (!interrupted && nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void say_how_to_delete(const char *name)
{
    fprintf(stderr, "The debug session %s keeps running; end it with `jobctl delete debugsession %s`.\n", name, name);
}

/* What the --timeout message names: the session, or the first companion not ready. */
static int timed_out(const char *name, const char *phase, const struct waited *w, int n)
{
    if (strcmp(phase, "Running") != 0) {
        fprintf(stderr, "jobctl: gave up after --timeout: debug session %s is still %s\n", name,
                phase[0] ? phase : "Pending");
    } else {
        for (int i = 0; i < n; i++)
            if (!w[i].ready) {
                fprintf(stderr, "jobctl: gave up after --timeout: waiting for companion %s (%s)\n", w[i].name,
                        w[i].state[0] ? w[i].state : "not looked at yet");
                break;
            }
    }
    say_how_to_delete(name);
    return JOBCTL_FAIL;
}

/* Follows the session until every companion is Ready (printing their URLs), it ends, or the deadline. */
static int follow(const struct jobctl_args *a, const char *name, int64_t deadline_ms)
{
    struct waited w[JOBCTL_MAX_COMPANIONS] = {0};
    int n = a->ncompanions;
    for (int i = 0; i < n; i++) {
        w[i].type = a->companions[i];
        snprintf(w[i].name, sizeof w[i].name, "%s-%s", name, a->companions[i]);
    }
    char *path = api_ns_path(CALDERA_API, a->ns, "debugsessions", name, NULL);
    if (!path)
        return report_oom();
    char phase[32] = "", said[768] = "";
    int rc = JOBCTL_OK, ready = 0;
    while (rc == JOBCTL_OK && ready < n && !interrupted) {
        rc = look_at_session(a, path, name, phase, sizeof phase, said, sizeof said);
        for (int i = 0; rc == JOBCTL_OK && strcmp(phase, "Running") == 0 && i < n; i++)
            if (!w[i].ready && (rc = look_at_companion(a, &w[i])) == JOBCTL_OK && w[i].ready)
                ready++;
        if (rc != JOBCTL_OK || ready == n || interrupted)
            break;
        if (clock_mono_ms() >= deadline_ms) {
            free(path);
            return timed_out(name, phase, w, n);
        }
        int64_t left = deadline_ms - clock_mono_ms();
        sleep_ms(left < POLL_MS ? left : POLL_MS);
    }
    free(path);
    if (interrupted) {
        fprintf(stderr, "\njobctl: interrupted.\n");
        say_how_to_delete(name);
        return JOBCTL_FAIL;
    }
    if (rc != JOBCTL_OK)
        return rc;
    for (int i = 0; i < n; i++)
        printf("%-12s %s%s\n", w[i].type, a->server, w[i].url);
    if (a->token)
        printf("Open them with ?token=<your token> at the end of the URL.\n");
    printf("End the session with `jobctl delete debugsession %s`.\n", name);
    return JOBCTL_OK;
}

/* --extend NAME --for DURATION: a merge PATCH of the session's spec.duration; prints its new deadline. */
static int extend(const struct jobctl_args *a)
{
    if (!a->duration)
        return jobctl_usage_error(a->command_def, "--extend NAME needs --for DURATION (the session's new duration)");
    json_t *patch = json_pack("{s:{s:s}}", "spec", "duration", a->duration);
    char *text = patch ? json_dumps(patch, JSON_COMPACT) : NULL;
    char *path = api_ns_path(CALDERA_API, a->ns, "debugsessions", a->extend, NULL);
    json_decref(patch);
    if (!text || !path) {
        free(text);
        free(path);
        return report_oom();
    }
    const struct api_body body = {text, strlen(text), "application/merge-patch+json"};
    json_t *changed = NULL;
    int rc = api_call_json(a, "PATCH", path, &body, &changed);
    free(text);
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    if (a->json) {
        print_doc(a, changed);
    } else {
        const char *deadline = str_at(changed, "status", "deadline");
        printf("%s/%s extended: duration %s", SESSION_KIND, a->extend, a->duration);
        if (deadline)
            printf(", deadline %s", deadline);
        printf("\n");
    }
    json_decref(changed);
    return JOBCTL_OK;
}

int cmd_debug(const struct jobctl_args *a)
{
    if (a->extend)
        return extend(a);
    if (a->ncompanions == 0)
        return jobctl_usage_error(a->command_def, "debug needs at least one --companion (jupyter, terminal, ...)");
    if (!a->cpu && !a->memory && !a->gpu)
        return jobctl_usage_error(a->command_def, "debug needs the resources it holds: --cpu, --memory or --gpu");
    int64_t timeout_ms = DURATION_MAX_MS;
    const char *why;
    if (a->timeout && duration_parse(a->timeout, &timeout_ms, &why) != 0)
        return jobctl_usage_error(a->command_def, "--timeout wants a duration such as 90s or 2h");
    int64_t deadline_ms = clock_mono_ms() + timeout_ms;
    json_t *doc = session_of(a);
    char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    char *path = api_ns_path(CALDERA_API, a->ns, "debugsessions", NULL, NULL);
    json_decref(doc);
    if (!text || !path) {
        free(text);
        free(path);
        return report_oom();
    }
    const struct api_body body = {text, strlen(text), "application/json"};
    json_t *created = NULL;
    int rc = api_call_json(a, "POST", path, &body, &created);
    free(text);
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    char name[128];
    snprintf(name, sizeof name, "%s", str_at(created, "metadata", "name") ? str_at(created, "metadata", "name") : "");
    if (a->json)
        print_doc(a, created);
    else
        printf("%s/%s created\n", SESSION_KIND, name);
    fflush(stdout);
    json_decref(created);
    if (a->no_wait || !name[0])
        return JOBCTL_OK;
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    rc = follow(a, name, deadline_ms);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return rc;
}
