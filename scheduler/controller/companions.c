/* Companions (companions.h): the core's table of Companion objects and their lifecycle, from Pending
 * through Starting and Ready to Cleaned, recorded at every phase. */
#include "scheduler/controller/companions.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/grow.h"
#include "common/log.h"
#include "common/strv.h"
#include "common/uuid.h"
#include "runtime/loopback_probe.h"
#include "runtime/companion_program.h"
#include "scheduler/controller/internal.h"

#define KILL_AFTER_MS 5000
/* A task's end kills every process of its cgroup, its companions' too, before the core hears of that
 * end (the reaper collects the exit first): a companion gone while its task still runs waits this long
 * for it, and is Cleaned with its task rather than Failed. */
#define TASK_END_GRACE_MS 2000
#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static const char *const phase_names[] = {"Pending", "Starting", "Ready", "Stopping", "Cleaned", "Failed"};

const char *companion_phase_name(enum companion_phase p) { return phase_names[p]; }

static bool phase_parse(const char *s, enum companion_phase *out)
{
    for (int i = 0; s && i <= COMPANION_FAILED; i++)
        if (strcmp(s, phase_names[i]) == 0) {
            *out = (enum companion_phase)i;
            return true;
        }
    return false;
}

static bool live_phase(enum companion_phase p) { return p == COMPANION_STARTING || p == COMPANION_READY; }

/* --- the table ---------------------------------------------------------------------------------- */

static void companion_free(struct companion *c)
{
    if (!c)
        return;
    companion_release(&c->proc);
    free(c->ns);
    free(c->name);
    free(c->job_name);
    free(c->type);
    free(c->task_name);
    free(c->reason);
    free(c->message);
    free(c->stop_reason);
    free(c->token_path);
    strv_free(c->headers);
    free(c);
}

int controller_companions_init(struct controller *ctl, const struct companion_types *types, int port_first,
                               int port_last, const char *bin_dir)
{
    struct companion_set *set = calloc(1, sizeof *set);
    if (!set)
        return -1;
    set->types = types;
    set->port_first = port_first > 0 ? port_first : COMPANION_PORTS_DEFAULT_FIRST;
    set->port_last = port_last > 0 ? port_last : COMPANION_PORTS_DEFAULT_LAST;
    set->bin_dir = bin_dir ? strdup(bin_dir) : NULL;
    ctl->companions = set;
    return 0;
}

void controller_companions_free(struct controller *ctl)
{
    struct companion_set *set = ctl->companions;
    if (!set)
        return;
    for (int i = 0; i < set->n; i++)
        companion_free(set->items[i]);
    free(set->items);
    free(set->bin_dir);
    free(set);
    ctl->companions = NULL;
}

static int set_add(struct companion_set *set, struct companion *c)
{
    if (GROW(set->items, set->cap, (size_t)set->n + 1, 8) != 0)
        return -1;
    set->items[set->n++] = c;
    return 0;
}

static void set_remove(struct companion_set *set, struct companion *c)
{
    for (int i = 0; i < set->n; i++)
        if (set->items[i] == c) {
            memmove(set->items + i, set->items + i + 1, (size_t)(set->n - i - 1) * sizeof *set->items);
            set->n--;
            break;
        }
    companion_free(c);
}

struct companion *controller_companion_find(const struct controller *ctl, const char *ns, const char *name)
{
    const struct companion_set *set = ctl->companions;
    for (int i = 0; set && i < set->n; i++)
        if (strcmp(set->items[i]->ns, ns) == 0 && strcmp(set->items[i]->name, name) == 0)
            return set->items[i];
    return NULL;
}

/* --- rendering and recording ---------------------------------------------------------------------- */

static void set_time(json_t *obj, const char *key, int64_t ms)
{
    char buf[40];
    if (ms > 0)
        json_object_set_new(obj, key, json_string(rfc3339(ms, buf)));
}

static char *base_url(const struct companion *c)
{
    char *url = NULL;
    if (asprintf(&url, "/proxy/%s/%s/", c->ns, c->name) < 0)
        return NULL;
    return url;
}

json_t *controller_companion_render(const struct companion *c, bool stored)
{
    json_t *meta = json_object(), *labels = json_object(), *spec = json_object(), *status = json_object();
    char buf[40];
    json_object_set_new(meta, "name", json_string(c->name));
    json_object_set_new(meta, "namespace", json_string(c->ns));
    json_object_set_new(meta, "uid", json_string(c->uid));
    json_object_set_new(meta, "creationTimestamp", json_string(rfc3339(c->created_ms, buf)));
    if (c->resource_version) {
        char rv[24];
        snprintf(rv, sizeof rv, "%llu", (unsigned long long)c->resource_version);
        json_object_set_new(meta, "resourceVersion", json_string(rv));
    }
    json_object_set_new(labels, "volcano.sh/job-name", json_string(c->job_name));
    json_object_set_new(meta, "labels", labels);
    json_object_set_new(spec, "jobName", json_string(c->job_name));
    json_object_set_new(spec, "type", json_string(c->type));
    json_object_set_new(spec, "task", json_string(c->task_name ? c->task_name : ""));
    json_object_set_new(spec, "index", json_integer(c->index));
    json_object_set_new(status, "phase", json_string(companion_phase_name(c->phase)));
    if (c->reason)
        json_object_set_new(status, "reason", json_string(c->reason));
    if (c->message)
        json_object_set_new(status, "message", json_string(c->message));
    char *url = base_url(c);
    if (url)
        json_object_set_new(status, "url", json_string(url));
    free(url);
    set_time(status, "lastActivity", c->last_activity_ms);
    set_time(status, "startTime", c->start_ms);
    set_time(status, "readyTime", c->ready_ms);
    if (c->port > 0)
        json_object_set_new(status, "port", json_integer(c->port));
    json_t *obj = json_object();
    json_object_set_new(obj, "apiVersion", json_string(COMPANION_API_VERSION));
    json_object_set_new(obj, "kind", json_string(COMPANION_KIND));
    json_object_set_new(obj, "metadata", meta);
    json_object_set_new(obj, "spec", spec);
    json_object_set_new(obj, "status", status);
    if (stored) { /* what a restart needs to find the process again; never shown */
        json_t *rt = json_object();
        json_object_set_new(rt, "jobUid", json_string(c->job_uid));
        json_object_set_new(rt, "taskIndex", json_integer(c->task));
        json_object_set_new(rt, "pid", json_integer(c->proc.pid > 0 ? c->proc.pid : 0));
        json_object_set_new(rt, "pidStart", json_integer(c->proc.start_ticks));
        json_object_set_new(rt, "servedAttempt", json_integer(c->served_attempt));
        json_object_set_new(obj, "runtime", rt);
    }
    return obj;
}

static const char *event_reason(enum companion_phase p)
{
    switch (p) {
    case COMPANION_STARTING: return "CompanionStarting";
    case COMPANION_READY: return "CompanionReady";
    case COMPANION_STOPPING: return "CompanionStopping";
    case COMPANION_CLEANED: return "CompanionCleaned";
    case COMPANION_FAILED: return "CompanionFailed";
    case COMPANION_PENDING:
    default: return "CompanionCreated";
    }
}

/* One journal entry: the event (of the job when it still exists) and the objects row, which holds the
 * entry's sequence number as the companion's resourceVersion. */
static void record(struct controller *ctl, struct companion *c, struct job *job, const char *from, bool remove,
                   const char *message)
{
    const char *to = remove ? "" : companion_phase_name(c->phase);
    const char *reason = remove ? "CompanionDeleted" : event_reason(c->phase);
    enum journal_op op = remove ? JOURNAL_OBJECT_DELETE : JOURNAL_OBJECT_PUT;
    struct journal_entry *e;
    if (job) {
        e = record_event(ctl, op, job, COMPANION_KIND, c->name, from, to, reason, "%s", message ? message : "");
    } else {
        uint64_t rv;
        e = record_object_event(ctl, op, COMPANION_KIND, c->ns, c->name, &rv, from, to, reason, "%s",
                                message ? message : "");
    }
    if (e)
        c->resource_version = e->ev.seq;
    char *json = NULL;
    if (!remove) {
        json_t *obj = controller_companion_render(c, true);
        json = json_dumps(obj, JSON_COMPACT);
        json_decref(obj);
    }
    record_object_row(e, COMPANION_KIND, c->ns, c->name, json);
}

static void set_phase(struct controller *ctl, struct companion *c, struct job *job, enum companion_phase phase,
                      const char *reason, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void set_phase(struct controller *ctl, struct companion *c, struct job *job, enum companion_phase phase,
                      const char *reason, const char *fmt, ...)
{
    char message[700] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(message, sizeof message, fmt, ap);
        va_end(ap);
    }
    const char *from = companion_phase_name(c->phase);
    c->phase = phase;
    free(c->reason);
    free(c->message);
    c->reason = reason ? strdup(reason) : NULL;
    c->message = message[0] ? strdup(message) : NULL;
    char line[900];
    snprintf(line, sizeof line, "companion %s %s%s%s%s%s", c->name, companion_phase_name(phase), reason ? " (" : "",
             reason ? reason : "", reason ? ")" : "", message[0] ? ": " : "");
    strncat(line, message, sizeof line - strlen(line) - 1);
    record(ctl, c, job, from, false, line);
}

uint64_t controller_companions_seq(const struct controller *ctl) { return ctl->cluster->seq; }

/* --- validation and creation ----------------------------------------------------------------------- */

static const char *annotation(const struct job *job, const char *key)
{
    const json_t *ann = job_annotations(job);
    return json_string_value(json_object_get(ann, key));
}

/* Calls fn for each name of the comma-separated list (blanks trimmed, empty entries skipped). */
static int each_name(const char *list, int (*fn)(void *ctx, const char *name), void *ctx)
{
    const char *p = list;
    while (p && *p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && (*p == ' ' || *p == '\t'))
            p++, len--;
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        if (len > 0) {
            char name[COMPANION_NAME_MAX * 2];
            snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name - 1 ? len : sizeof name - 1), p);
            int rc = fn(ctx, name);
            if (rc != 0)
                return rc;
        }
        p = end ? end + 1 : NULL;
    }
    return 0;
}

struct check_ctx {
    const struct controller *ctl;
    struct api_status *st;
    int bad;
};

static int check_one(void *arg, const char *name)
{
    struct check_ctx *cc = arg;
    if (!cc->ctl->companions || !companion_types_find(cc->ctl->companions->types, name)) {
        api_add_cause(cc->st, "metadata.annotations[" COMPANIONS_ANNOTATION "]", "FieldValueNotSupported", 0, 0,
                      "unknown companion type \"%s\" in annotation %s", name, COMPANIONS_ANNOTATION);
        cc->bad++;
    }
    return 0;
}

static int task_by_name(const struct job *job, const char *name)
{
    for (int t = 0; t < job->ntasks; t++)
        if (job->tasks[t].name && strcmp(job->tasks[t].name, name) == 0)
            return t;
    return -1;
}

int controller_companions_check(const struct controller *ctl, const struct job *job, struct api_status *st)
{
    const char *list = annotation(job, COMPANIONS_ANNOTATION);
    const char *task = annotation(job, COMPANION_TASK_ANNOTATION);
    if (!list && !task)
        return 0;
    if (backend_conf_route(ctl->backend_conf, job->queue) == BACKEND_SLURM) {
        api_add_cause(st, "metadata.annotations[" COMPANIONS_ANNOTATION "]", "FieldValueForbidden", 0, 0,
                      "queue %s runs its jobs on Slurm, where Caldera attaches no companions (they run beside a "
                      "task here or on Kubernetes)",
                      job->queue);
        return api_fail_invalid(st, "Job.batch.volcano.sh", job->name);
    }
    struct check_ctx cc = {ctl, st, 0};
    each_name(list, check_one, &cc);
    if (task && task_by_name(job, task) < 0) {
        api_add_cause(st, "metadata.annotations[" COMPANION_TASK_ANNOTATION "]", "FieldValueNotFound", 0, 0,
                      "annotation %s names task \"%s\", which the job does not have", COMPANION_TASK_ANNOTATION, task);
        cc.bad++;
    }
    if (cc.bad == 0)
        return 0;
    return api_fail_invalid(st, "Job.batch.volcano.sh", job->name);
}

static struct companion *companion_new(struct controller *ctl, struct job *job, const char *type, int task,
                                       int32_t index)
{
    struct companion *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->ns = strdup(job->ns);
    c->job_name = strdup(job->name);
    c->type = strdup(type);
    c->task_name = strdup(job->tasks[task].name ? job->tasks[task].name : "");
    if (asprintf(&c->name, "%s-%s", job->name, type) < 0)
        c->name = NULL;
    if (!c->ns || !c->job_name || !c->type || !c->task_name || !c->name) {
        companion_free(c);
        return NULL;
    }
    snprintf(c->job_uid, sizeof c->job_uid, "%s", job->uid);
    if (ctl->ops.new_uid)
        ctl->ops.new_uid(ctl->ops.ctx, c->uid);
    else
        uuid_v4(c->uid);
    c->task = task;
    c->index = index;
    c->created_ms = ctl->now_ms;
    c->proc = (struct companion_proc){.pid = -1, .pidfd = -1, .start_ticks = -1};
    return c;
}

struct for_job_ctx {
    struct controller *ctl;
    struct job *job;
    int task;
};

static int create_one(void *arg, const char *type)
{
    struct for_job_ctx *fc = arg;
    char name[600];
    snprintf(name, sizeof name, "%s-%s", fc->job->name, type);
    if (controller_companion_find(fc->ctl, fc->job->ns, name))
        return 0;
    struct companion *c = companion_new(fc->ctl, fc->job, type, fc->task, 0);
    if (!c || set_add(fc->ctl->companions, c) != 0) {
        log_error("job %s/%s: out of memory creating companion %s", fc->job->ns, fc->job->name, type);
        companion_free(c);
        return 0;
    }
    record(fc->ctl, c, fc->job, "", false, "companion created");
    return 0;
}

void controller_companions_for_job(struct controller *ctl, struct job *job)
{
    const char *list = annotation(job, COMPANIONS_ANNOTATION);
    if (!list || !ctl->companions)
        return;
    const char *task = annotation(job, COMPANION_TASK_ANNOTATION);
    int t = task ? task_by_name(job, task) : 0;
    struct for_job_ctx fc = {ctl, job, t >= 0 ? t : 0};
    each_name(list, create_one, &fc);
}

struct companion *controller_companion_create(struct controller *ctl, const char *ns, const char *job_name,
                                              const char *type, const char *task, int32_t index, struct api_status *st)
{
    struct job *job = cluster_find_job(ctl->cluster, ns, job_name);
    if (job)
        job = cluster_wake(ctl->cluster, job);
    if (!job || job->deleted) {
        api_fail(st, 404, "NotFound", "jobs.batch.volcano.sh \"%s\" not found", job_name);
        return NULL;
    }
    if (job->backend == BACKEND_SLURM) {
        api_add_cause(st, "spec.job", "FieldValueForbidden", 0, 0,
                      "job %s runs on Slurm, where Caldera attaches no companions", job_name);
        api_fail_invalid(st, "Companion.caldera.io", job_name);
        return NULL;
    }
    if (!ctl->companions || !companion_types_find(ctl->companions->types, type)) {
        api_add_cause(st, "spec.type", "FieldValueNotSupported", 0, 0, "unknown companion type \"%s\"", type);
        api_fail_invalid(st, "Companion.caldera.io", job_name);
        return NULL;
    }
    int t = task && *task ? task_by_name(job, task) : 0;
    if (t < 0 || index < 0 || index >= job->tasks[t].replicas) {
        api_add_cause(st, t < 0 ? "spec.task" : "spec.index", "FieldValueNotFound", 0, 0,
                      t < 0 ? "job %s has no task \"%s\"" : "job %s has no replica %s of that index", job_name,
                      t < 0 ? task : "");
        api_fail_invalid(st, "Companion.caldera.io", job_name);
        return NULL;
    }
    char name[600];
    snprintf(name, sizeof name, "%s-%s", job_name, type);
    if (controller_companion_find(ctl, ns, name)) {
        api_fail(st, 409, "AlreadyExists", "companions.caldera.io \"%s\" already exists", name);
        return NULL;
    }
    struct companion *c = companion_new(ctl, job, type, t, index);
    if (!c || set_add(ctl->companions, c) != 0) {
        companion_free(c);
        api_fail(st, 500, "InternalError", "out of memory");
        return NULL;
    }
    record(ctl, c, job, "", false, "companion created");
    return c;
}

/* --- starting ----------------------------------------------------------------------------------- */

static bool port_taken(void *ctx, int port)
{
    const struct companion_set *set = ctx;
    for (int i = 0; i < set->n; i++)
        if (set->items[i]->port == port)
            return true;
    return false;
}

static void release_runtime(struct companion *c)
{
    loopback_probe_remove(PROBE_OWNER_COMPANION, c->probe_id);
    c->probe_id = 0;
    companion_release(&c->proc);
    c->proc = (struct companion_proc){.pid = -1, .pidfd = -1, .start_ticks = -1};
    if (c->token_path) {
        unlink(c->token_path);
        free(c->token_path);
        c->token_path = NULL;
    }
    memset(c->token, 0, sizeof c->token);
    strv_free(c->headers);
    c->headers = NULL;
    c->port = 0;
    c->kill_at_ms = 0;
}

static char *expand_or_null(const char *tmpl, const struct companion_values *v)
{
    char *out = NULL, why[256];
    if (!tmpl || companion_expand(tmpl, v, &out, why, sizeof why) != 0)
        return NULL;
    return out;
}

static void start(struct controller *ctl, struct companion *c, struct job *job, int flat)
{
    struct companion_set *set = ctl->companions;
    const struct replica *r = &job->replicas[flat];
    const struct task_spec *ts = &job->tasks[c->task];
    c->served_attempt = r->attempts;
    c->start_ms = ctl->now_ms;
    c->gone_ms = 0;
    c->ready_ms = 0;
    c->last_activity_ms = ctl->now_ms;
    const struct companion_type *type = companion_types_find(set->types, c->type);
    if (!type) {
        set_phase(ctl, c, job, COMPANION_FAILED, "UnknownType", "companion type %s is not configured", c->type);
        return;
    }
    char program[4096], why[600] = "";
    if (companion_program_resolve(type->argv[0], NULL, set->bin_dir, program, sizeof program, why, sizeof why) != 0) {
        set_phase(ctl, c, job, COMPANION_FAILED, COMPANION_NOT_INSTALLED, "%s", why);
        return;
    }
    int port = companion_port_alloc(set->port_first, set->port_last, &set->port_next, port_taken, set);
    if (port < 0) {
        set_phase(ctl, c, job, COMPANION_FAILED, "NoPort", "no free port in %d-%d", set->port_first, set->port_last);
        return;
    }
    c->port = port;
    char job_dir[4096], work_dir[4200], log_dir[4200], log_path[4800], token_path[4800], pod[320], cgroup[512];
    controller_job_dir(ctl, job, job_dir, sizeof job_dir);
    snprintf(work_dir, sizeof work_dir, "%s/work", job_dir);
    snprintf(log_path, sizeof log_path, "%s/logs/companions/%s.log", job_dir, c->name);
    snprintf(token_path, sizeof token_path, "%s/companion-%s.token", job_dir, c->name);
    job_pod_name(job, c->task, c->index, pod, sizeof pod);
    controller_cgroup_name(job->uid, pod, r->attempts, cgroup, sizeof cgroup);
    const char *chdir_to = ts->working_dir ? ts->working_dir : work_dir;
    const char *tb_dir = annotation(job, COMPANION_LOGDIR_ANNOTATION);
    if (!tb_dir || !*tb_dir)
        tb_dir = COMPANION_LOGDIR_DEFAULT;
    if (tb_dir[0] == '/')
        snprintf(log_dir, sizeof log_dir, "%s", tb_dir);
    else
        snprintf(log_dir, sizeof log_dir, "%s/%s", chdir_to, tb_dir);
    if (companion_token_new(c->token) != 0 ||
        companion_token_write(token_path, c->token, ts->run_as_uid, ts->run_as_gid, why, sizeof why) != 0) {
        c->port = 0;
        set_phase(ctl, c, job, COMPANION_FAILED, "StartError", "%s", why[0] ? why : "cannot make a token");
        return;
    }
    c->token_path = strdup(token_path);
    char *url = base_url(c);
    struct companion_values v = {.port = port,
                                 .base_url = url,
                                 .token = c->token,
                                 .token_file = token_path,
                                 .workdir = chdir_to,
                                 .logdir = log_dir,
                                 .job = job->name,
                                 .ns = job->ns,
                                 .companion = c->name};
    char **argv = NULL, **env = NULL, **full_env = NULL;
    int rc = companion_command(type, &v, &argv, &env, why, sizeof why);
    if (rc == 0)
        rc = companion_headers(type, &v, &c->headers, why, sizeof why);
    if (rc == 0) {
        rc |= strv_pushf(&full_env, "PATH=%s%s%s", set->bin_dir ? set->bin_dir : "", set->bin_dir ? ":" : "",
                         DEFAULT_PATH);
        rc |= strv_pushf(&full_env, "HOME=%s", work_dir);
        rc |= strv_pushf(&full_env, "HOSTNAME=%s", pod);
        for (size_t i = 0; env && env[i]; i++)
            rc |= strv_setenv(&full_env, env[i]);
        rc |= replica_gpu_env(ctl, r, &full_env); /* a notebook uses the pod's GPUs */
        if (rc != 0)
            snprintf(why, sizeof why, "out of memory");
    }
    if (rc == 0) {
        struct companion_spec spec = {.program = program,
                                      .argv = argv,
                                      .envp = full_env,
                                      .chdir_to = chdir_to,
                                      .log_path = log_path,
                                      .cgroup_name = cgroup,
                                      .uid = ts->run_as_uid,
                                      .gid = ts->run_as_gid};
        rc = companion_spawn(&spec, &c->proc, why, sizeof why);
    }
    if (rc == 0) {
        char *ready = expand_or_null(type->readiness_path, &v);
        char *act = expand_or_null(type->activity.path, &v);
        char *busy = expand_or_null(type->activity.busy_path, &v);
        c->probe_id = ++set->next_probe_id;
        struct loopback_probe_target t = {
            .id = c->probe_id,
            .port = port,
            .headers = c->headers,
            .ready_path = ready ? ready : "/",
            .activity = type->activity.source == COMPANION_ACTIVITY_JUPYTER ? PROBE_ACTIVITY_JUPYTER
                        : type->activity.source == COMPANION_ACTIVITY_JSON  ? PROBE_ACTIVITY_JSON
                                                                            : PROBE_ACTIVITY_NONE,
            .activity_path = act,
            .field = type->activity.field,
            .busy_path = busy,
        };
        if (loopback_probe_add(&t) != 0)
            log_warn("companion %s/%s: cannot probe it (out of memory)", c->ns, c->name);
        free(ready);
        free(act);
        free(busy);
    }
    strv_free(argv);
    strv_free(env);
    strv_free(full_env);
    free(url);
    if (rc != 0) {
        release_runtime(c);
        set_phase(ctl, c, job, COMPANION_FAILED, "StartError", "%s", why);
        return;
    }
    set_phase(ctl, c, job, COMPANION_STARTING, NULL, "pid %d, port %d, task %s attempt %u", (int)c->proc.pid, port, pod,
              r->attempts);
}

/* --- stopping ----------------------------------------------------------------------------------- */

static void begin_stop(struct controller *ctl, struct companion *c, struct job *job, const char *reason)
{
    companion_signal(&c->proc, SIGTERM);
    loopback_probe_remove(PROBE_OWNER_COMPANION, c->probe_id);
    c->probe_id = 0;
    c->kill_at_ms = ctl->now_ms + KILL_AFTER_MS;
    free(c->stop_reason);
    c->stop_reason = strdup(reason);
    set_phase(ctl, c, job, COMPANION_STOPPING, reason, NULL);
}

/* Returns true when c was removed. */
static bool finish_stop(struct controller *ctl, struct companion *c, struct job *job)
{
    release_runtime(c);
    char reason[64];
    snprintf(reason, sizeof reason, "%s", c->stop_reason ? c->stop_reason : "Stopped");
    set_phase(ctl, c, job, COMPANION_CLEANED, reason, NULL);
    if (c->remove_when_done) {
        record(ctl, c, job, companion_phase_name(c->phase), true, "companion deleted");
        set_remove(ctl->companions, c);
        return true;
    }
    return false;
}

uint64_t controller_companion_delete(struct controller *ctl, struct companion *c)
{
    struct job *job = cluster_find_job_uid(ctl->cluster, c->job_uid);
    c->remove_when_done = true;
    if (c->phase == COMPANION_STOPPING)
        return ctl->cluster->seq;
    if (c->proc.pid > 0) {
        begin_stop(ctl, c, job, "Deleted");
        return ctl->cluster->seq;
    }
    release_runtime(c);
    record(ctl, c, job, companion_phase_name(c->phase), true, "companion deleted");
    set_remove(ctl->companions, c);
    return ctl->cluster->seq;
}

void controller_companion_touch(struct controller *ctl, const char *ns, const char *name, int64_t now_ms)
{
    struct companion *c = controller_companion_find(ctl, ns, name);
    if (c && now_ms > c->last_activity_ms)
        c->last_activity_ms = now_ms;
}

/* --- the tick ------------------------------------------------------------------------------------- */

static void apply_probes(struct controller *ctl)
{
    struct companion_set *set = ctl->companions;
    struct loopback_probe_result res[32];
    int n;
    while ((n = loopback_probe_take(PROBE_OWNER_COMPANION, res, 32)) > 0) {
        for (int i = 0; i < n; i++) {
            struct companion *c = NULL;
            for (int j = 0; j < set->n && !c; j++)
                if (set->items[j]->probe_id == res[i].id)
                    c = set->items[j];
            if (!c)
                continue;
            if (res[i].activity_ms > c->last_activity_ms)
                c->last_activity_ms = res[i].activity_ms;
            if (res[i].ready && c->phase == COMPANION_STARTING) {
                c->ready_ms = ctl->now_ms;
                struct job *job = cluster_find_job_uid(ctl->cluster, c->job_uid);
                set_phase(ctl, c, job, COMPANION_READY, NULL, "answering on port %d", c->port);
            }
        }
    }
}

/* What one companion needs now. Returns true when it was removed. */
static bool tick_one(struct controller *ctl, struct companion *c)
{
    struct job *job = cluster_find_job_uid(ctl->cluster, c->job_uid);
    const struct companion_type *type = companion_types_find(ctl->companions->types, c->type);
    int status;
    if (c->restored_live) { /* the last run's process is gone: said once, then it may start again */
        c->restored_live = false;
        set_phase(ctl, c, job && !job->deleted ? job : NULL, COMPANION_CLEANED, "ServerRestarted",
                  "the job server restarted");
    }
    if (c->phase == COMPANION_STOPPING) {
        if (companion_exited(&c->proc, &status) || ctl->now_ms >= c->kill_at_ms + KILL_AFTER_MS)
            return finish_stop(ctl, c, job && !job->deleted ? job : NULL);
        if (c->kill_at_ms && ctl->now_ms >= c->kill_at_ms) {
            companion_signal(&c->proc, SIGKILL);
            c->kill_at_ms = ctl->now_ms; /* five more seconds at most */
        }
        return false;
    }
    if (!live_phase(c->phase) && c->proc.pid > 0 && companion_exited(&c->proc, &status))
        release_runtime(c); /* a failed start's leftover, reaped */
    if (!job || job->deleted) {
        c->remove_when_done = true;
        if (live_phase(c->phase)) {
            begin_stop(ctl, c, NULL, "JobDeleted");
            return false;
        }
        if (c->proc.pid > 0)
            companion_signal(&c->proc, SIGKILL);
        release_runtime(c);
        record(ctl, c, NULL, companion_phase_name(c->phase), true, "the job was deleted");
        set_remove(ctl->companions, c);
        return true;
    }
    if (job->dormant || job_phase_final(job->status.phase)) {
        if (live_phase(c->phase))
            begin_stop(ctl, c, job, "JobFinished");
        else if (c->phase == COMPANION_PENDING && !job->dormant)
            set_phase(ctl, c, job, COMPANION_CLEANED, "JobFinished", NULL);
        return false;
    }
    if (c->task >= job->ntasks || c->index >= job->tasks[c->task].replicas)
        return false;
    if (job->backend) /* it runs beside its task on the engine (the manifest's Pod), never here */
        return false;
    int flat = job->task_first[c->task] + c->index;
    const struct replica *r = &job->replicas[flat];
    /* an adopted attempt (a restart of the server) has its process handle but no pid */
    bool running = r->phase == POD_RUNNING && (r->pid > 0 || r->proc >= 0) && !r->stopping && !r->backoff &&
                   !r->starting;
    if (live_phase(c->phase) && (!running || r->attempts != c->served_attempt)) {
        begin_stop(ctl, c, job, "TaskRestarted");
        return false;
    }
    if (live_phase(c->phase) && companion_gone(&c->proc)) {
        if (!c->gone_ms)
            c->gone_ms = ctl->now_ms;
        if (ctl->now_ms - c->gone_ms < TASK_END_GRACE_MS)
            return false;
        companion_exited(&c->proc, &status); /* reaped, with its status */
        release_runtime(c);
        set_phase(ctl, c, job, COMPANION_FAILED, "Exited", "the companion exited with status %d", status);
        return false;
    }
    if (!live_phase(c->phase) && running && r->attempts != c->served_attempt) {
        start(ctl, c, job, flat);
        return false;
    }
    if (c->phase == COMPANION_STARTING && type && type->start_timeout_ms > 0 &&
        ctl->now_ms - c->start_ms > type->start_timeout_ms) {
        companion_signal(&c->proc, SIGKILL);
        loopback_probe_remove(PROBE_OWNER_COMPANION, c->probe_id);
        c->probe_id = 0;
        set_phase(ctl, c, job, COMPANION_FAILED, "StartTimeout", "not ready after %lld ms",
                  (long long)type->start_timeout_ms);
        return false;
    }
    if (c->phase == COMPANION_READY && type && type->idle_timeout_ms > 0 &&
        ctl->now_ms - c->last_activity_ms > type->idle_timeout_ms)
        begin_stop(ctl, c, job, "Idle");
    return false;
}

void controller_companions_tick(struct controller *ctl)
{
    struct companion_set *set = ctl->companions;
    if (!set || set->n == 0)
        return;
    apply_probes(ctl);
    for (int i = 0; i < set->n;)
        if (!tick_one(ctl, set->items[i]))
            i++;
    controller_sessions_idle(ctl);
}

void controller_companions_stop_all(struct controller *ctl, bool keep_tasks)
{
    struct companion_set *set = ctl->companions;
    (void)keep_tasks;
    for (int i = 0; set && i < set->n; i++) {
        struct companion *c = set->items[i];
        if (c->proc.pid > 0) {
            companion_signal(&c->proc, SIGKILL);
            int status;
            for (int tries = 0; tries < 50 && !companion_exited(&c->proc, &status); tries++)
                usleep(10000);
        }
        loopback_probe_remove(PROBE_OWNER_COMPANION, c->probe_id);
        if (c->token_path)
            unlink(c->token_path);
    }
}

/* --- restore ------------------------------------------------------------------------------------ */

static char *json_strdup(json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return strdup(s ? s : "");
}

int controller_restore_companion(struct controller *ctl, const struct store_object_row *row)
{
    if (!ctl->companions)
        return 0;
    json_t *obj = json_loads(row->json, 0, NULL);
    json_t *meta = json_object_get(obj, "metadata"), *spec = json_object_get(obj, "spec"),
           *status = json_object_get(obj, "status"), *rt = json_object_get(obj, "runtime");
    struct companion *c = calloc(1, sizeof *c);
    if (!obj || !c) {
        json_decref(obj);
        free(c);
        log_warn("companion %s/%s: its stored row cannot be read; left as it is", row->ns, row->name);
        return 0;
    }
    c->ns = json_strdup(meta, "namespace");
    c->name = json_strdup(meta, "name");
    c->job_name = json_strdup(spec, "jobName");
    c->type = json_strdup(spec, "type");
    c->task_name = json_strdup(spec, "task");
    c->reason = json_object_get(status, "reason") ? json_strdup(status, "reason") : NULL;
    c->message = json_object_get(status, "message") ? json_strdup(status, "message") : NULL;
    snprintf(c->uid, sizeof c->uid, "%s", json_string_value(json_object_get(meta, "uid")) ?: "");
    snprintf(c->job_uid, sizeof c->job_uid, "%s", json_string_value(json_object_get(rt, "jobUid")) ?: "");
    c->task = (int32_t)json_integer_value(json_object_get(rt, "taskIndex"));
    c->index = (int32_t)json_integer_value(json_object_get(spec, "index"));
    rfc3339_parse(json_string_value(json_object_get(meta, "creationTimestamp")) ?: "", &c->created_ms);
    c->resource_version = strtoull(json_string_value(json_object_get(meta, "resourceVersion")) ?: "0", NULL, 10);
    c->watch_shown = true; /* a watch started after this restart lists it first */
    rfc3339_parse(json_string_value(json_object_get(status, "lastActivity")) ?: "", &c->last_activity_ms);
    if (!phase_parse(json_string_value(json_object_get(status, "phase")), &c->phase))
        c->phase = COMPANION_PENDING;
    c->served_attempt = (uint32_t)json_integer_value(json_object_get(rt, "servedAttempt"));
    c->proc = (struct companion_proc){.pid = (pid_t)json_integer_value(json_object_get(rt, "pid")),
                                      .pidfd = -1,
                                      .start_ticks = json_integer_value(json_object_get(rt, "pidStart"))};
    json_decref(obj);
    if (!c->ns || !c->name || !c->job_name || !c->type || !c->task_name || set_add(ctl->companions, c) != 0) {
        companion_free(c);
        return -1;
    }
    /* The last run's process, if it still runs (same pid, same start time), is killed: it is started
     * again with a fresh token once its task runs. */
    if (c->proc.pid > 0 && companion_signal(&c->proc, SIGKILL))
        log_info("companion %s/%s: killed pid %d left by the last run", c->ns, c->name, (int)c->proc.pid);
    c->proc = (struct companion_proc){.pid = -1, .pidfd = -1, .start_ticks = -1};
    char token_path[4800];
    snprintf(token_path, sizeof token_path, "%s/jobs/%s/companion-%s.token", ctl->data_dir, c->job_uid, c->name);
    unlink(token_path);
    c->port = 0;
    if (live_phase(c->phase) || c->phase == COMPANION_STOPPING || c->phase == COMPANION_PENDING) {
        c->served_attempt = 0; /* started again when its task runs */
        c->restored_live = c->phase != COMPANION_PENDING;
        if (c->phase == COMPANION_STOPPING) {
            c->phase = COMPANION_READY;
            c->stop_reason = NULL;
        }
    }
    return 0;
}
