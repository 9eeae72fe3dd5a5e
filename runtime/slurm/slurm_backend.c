/* The Slurm backend (runtime/backend.h): the core's calls queued for one thread that submits, cancels,
 * suspends and adopts through slurmrestd and scontrol, and polls while jobs are live (slurm_poll.c). */
#include <errno.h>
#include <pwd.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "common/log.h"
#include "common/strv.h"
#include "runtime/slurm/slurm_internal.h"

extern char **environ;

#define DEFAULT_WORK_DIR "/tmp/caldera-slurm"
#define TOKEN_MAX 8192

static void post_send_failed(struct slurm_backend *b, const char *uid, bool retryable, const char *why)
{
    struct backend_update *u = backend_update_new(BACKEND_SEND_FAILED, uid, NULL);
    if (!u)
        return;
    u->retryable = retryable;
    snprintf(u->message, sizeof u->message, "%s", why);
    slurm_post(b, u);
}

static void post_sent(struct slurm_backend *b, const char *uid, uint32_t job_id)
{
    char ref[16];
    snprintf(ref, sizeof ref, "%u", job_id);
    slurm_post(b, backend_update_new(BACKEND_SENT, uid, ref));
}

/* The job Slurm holds for a send (comment "caldera.io/uid=<uid>/<attempt>"): 1 and *job_id, 0 when there
 * is none, or a negative rc of the call. */
static int lookup_sent(struct slurm_backend *b, const char *uid, uint32_t attempt, uint32_t *job_id, char *err,
                       size_t errlen)
{
    struct slurm_job_info *infos;
    int n = slurm_rest_jobs(&b->rest, &infos, err, errlen);
    slurm_note_reach(b, n < 0 ? n : 0, err);
    if (n < 0)
        return n;
    char want[160];
    snprintf(want, sizeof want, "%s=%s/%u", BACKEND_UID_LABEL, uid, attempt);
    int found = 0;
    for (int i = 0; i < n && !found; i++)
        if (strcmp(infos[i].comment, want) == 0 && (infos[i].het_job_id == 0 || infos[i].het_job_offset == 0)) {
            *job_id = infos[i].job_id;
            found = 1;
        }
    free(infos);
    return found;
}

static int record_sent(struct slurm_backend *b, const char *uid, uint32_t attempt, uint32_t job_id)
{
    char path[600], line[48];
    slurm_uid_path(b, uid, "sent", path, sizeof path);
    FILE *f = fopen(path, "a");
    if (!f)
        return -1;
    snprintf(line, sizeof line, "%u %u\n", attempt, job_id);
    int rc = fputs(line, f) < 0 ? -1 : 0;
    rc |= fclose(f);
    slurm_uid_path(b, uid, "sending", path, sizeof path);
    unlink(path);
    return rc;
}

static void sent(struct slurm_backend *b, const char *uid, uint32_t attempt, uint32_t job_id,
                 const struct slurm_plan *plan)
{
    if (record_sent(b, uid, attempt, job_id) != 0)
        log_msg(LOG_WARN, "slurm: cannot record job %u of %s under %s: %s", job_id, uid, b->work_dir, strerror(errno));
    post_sent(b, uid, job_id);
    if (!slurm_track(b, uid, job_id, attempt, plan->tasks, plan->ntasks))
        log_msg(LOG_ERROR, "slurm: out of memory following job %u", job_id);
}

/* send: one submit per attempt; a submit whose answer never came is looked up before another is made.
 * Never retried here: after a retryable SEND_FAILED the core sends again. */
static void op_send(struct slurm_backend *b, const char *uid, json_t *manifest)
{
    char err[512], path[600];
    for (struct slurm_tracked *t = b->jobs; t; t = t->next)
        if (strcmp(t->uid, uid) == 0 && !t->stopping) { /* a resend of what Slurm runs */
            post_sent(b, uid, t->job_id);
            return;
        }
    uint32_t count = 0, attempt;
    slurm_sent_attempt(b, uid, 0, &count);
    attempt = count + 1;
    struct slurm_plan plan;
    const char *const *env = (const char *const *)b->env;
    struct slurm_plan_opts opts = {
        .uid = uid, .attempt = attempt, .work_dir = b->work_dir, .partition = b->partition, .env = env};
    if (slurm_plan_build(manifest, &opts, &plan, err, sizeof err) != 0) {
        post_send_failed(b, uid, false, err);
        return;
    }
    slurm_uid_path(b, uid, NULL, path, sizeof path);
    char *text = json_dumps(manifest, JSON_COMPACT);
    char jpath[600];
    slurm_uid_path(b, uid, "job.json", jpath, sizeof jpath);
    if (mkdir_p(path, 0755) != 0 || !text || write_file_atomic(jpath, text, strlen(text), 0644) != 0) {
        snprintf(err, sizeof err, "slurm: cannot write %s: %s", jpath, strerror(errno));
        free(text);
        slurm_plan_free(&plan);
        post_send_failed(b, uid, true, err);
        return;
    }
    free(text);
    /* A submit of this attempt that went unanswered may have been taken. */
    char spath[600];
    slurm_uid_path(b, uid, "sending", spath, sizeof spath);
    if (access(spath, F_OK) == 0) {
        uint32_t job_id;
        int found = lookup_sent(b, uid, attempt, &job_id, err, sizeof err);
        if (found < 0) {
            post_send_failed(b, uid, found == SLURM_REST_UNREACHABLE, err);
            slurm_plan_free(&plan);
            return;
        }
        if (found) {
            sent(b, uid, attempt, job_id, &plan);
            slurm_plan_free(&plan);
            return;
        }
    } else {
        char n[16];
        snprintf(n, sizeof n, "%u\n", attempt);
        write_file_atomic(spath, n, strlen(n), 0644);
    }
    uint32_t job_id = 0;
    int rc = slurm_rest_submit(&b->rest, &plan.spec, &job_id, err, sizeof err);
    slurm_note_reach(b, rc, err);
    if (rc == 0)
        sent(b, uid, attempt, job_id, &plan);
    else {
        if (rc != SLURM_REST_UNREACHABLE)
            unlink(spath); /* refused: nothing was taken */
        post_send_failed(b, uid, rc == SLURM_REST_UNREACHABLE, err);
    }
    slurm_plan_free(&plan);
}

/* Cancels one job; 0, or 1 when slurmrestd was unreachable (try again later). A job Slurm no longer
 * knows counts as cancelled. */
static int cancel_job(struct slurm_backend *b, uint32_t job_id)
{
    char err[512];
    int rc = slurm_rest_cancel(&b->rest, job_id, 0, err, sizeof err);
    slurm_note_reach(b, rc, err);
    if (rc == SLURM_REST_UNREACHABLE)
        return 1;
    if (rc != 0)
        log_msg(LOG_INFO, "slurm: cancel of job %u: %s", job_id, err);
    return 0;
}

static uint32_t ref_id(const char *ref)
{
    char *end;
    unsigned long v = ref && *ref ? strtoul(ref, &end, 10) : 0;
    return v > 0 && v <= UINT32_MAX && *end == '\0' ? (uint32_t)v : 0;
}

/* stop: cancel; the poller reports the ranks' ends. Returns 1 to be retried. */
static int op_stop(struct slurm_backend *b, const char *uid, const char *ref)
{
    uint32_t id = ref_id(ref);
    struct slurm_tracked *t = id ? slurm_tracked_find(b, uid, id) : NULL;
    if (t)
        t->stopping = true;
    if (!id)
        return 0;
    int again = cancel_job(b, id);
    if (t)
        t->cancel_owed = again != 0; /* the poller retries an owed cancel */
    return t ? 0 : again;
}

/* remove: every job of the uid Slurm holds cancelled, the followed ones dropped, the files removed. */
static int op_remove(struct slurm_backend *b, const char *uid, const char *ref)
{
    char err[512], want[160];
    struct slurm_job_info *infos;
    int n = slurm_rest_jobs(&b->rest, &infos, err, sizeof err);
    slurm_note_reach(b, n < 0 ? n : 0, err);
    if (n == SLURM_REST_UNREACHABLE)
        return 1;
    snprintf(want, sizeof want, "%s=%s/", BACKEND_UID_LABEL, uid);
    for (int i = 0; i < n; i++)
        if (strncmp(infos[i].comment, want, strlen(want)) == 0 && !slurm_state_final(infos[i].state) &&
            (infos[i].het_job_id == 0 || infos[i].het_job_offset == 0) && cancel_job(b, infos[i].job_id) != 0) {
            free(infos);
            return 1;
        }
    free(infos);
    slurm_untrack_uid(b, uid);
    char path[600];
    slurm_uid_path(b, uid, NULL, path, sizeof path);
    if (remove_tree(path) != 0 && errno != ENOENT)
        log_msg(LOG_WARN, "slurm: cannot remove %s: %s", path, strerror(errno));
    slurm_post(b, backend_update_new(BACKEND_REMOVED, uid, ref));
    return 0;
}

/* act: scontrol suspend|resume ID (slurmrestd 0.0.38 has no call for them). */
static void op_act(struct slurm_backend *b, const char *uid, const char *ref, enum backend_action action)
{
    (void)b;
    uint32_t id = ref_id(ref);
    if (!id)
        return;
    char idtext[16];
    snprintf(idtext, sizeof idtext, "%u", id);
    char *argv[] = {"scontrol", action == BACKEND_SUSPEND ? "suspend" : "resume", idtext, NULL};
    pid_t pid;
    int status = 0;
    int rc = posix_spawnp(&pid, "scontrol", NULL, NULL, argv, environ);
    if (rc == 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return;
    log_msg(LOG_WARN, "slurm: scontrol %s %s for %s failed (%s)", argv[1], idtext, uid,
            rc ? strerror(rc) : "non-zero exit");
}

/* adopt: follow a job sent before a restart; the first poll reports what its ranks did meanwhile. */
static void op_adopt(struct slurm_backend *b, const char *uid, const char *ref)
{
    uint32_t id = ref_id(ref);
    char path[600], err[256];
    slurm_uid_path(b, uid, "job.json", path, sizeof path);
    json_t *manifest = json_load_file(path, 0, NULL);
    struct slurm_task_plan tasks[SLURM_PLAN_MAX_TASKS];
    int n = manifest ? slurm_plan_tasks(manifest, tasks, SLURM_PLAN_MAX_TASKS, err, sizeof err) : -1;
    json_decref(manifest);
    if (!id || n < 0) {
        struct backend_update *u = backend_update_new(BACKEND_GONE, uid, ref);
        if (u)
            snprintf(u->message, sizeof u->message, "slurm: no job %s of %s to adopt (%s)", ref, uid,
                     n < 0 ? "its manifest is gone from the work dir" : "no job id");
        slurm_post(b, u);
        return;
    }
    if (slurm_tracked_find(b, uid, id))
        return;
    uint32_t attempt = slurm_sent_attempt(b, uid, id, NULL);
    if (!slurm_track(b, uid, id, attempt ? attempt : 1, tasks, n))
        log_msg(LOG_ERROR, "slurm: out of memory adopting job %u", id);
}

/* Runs one op; 1 when it must be tried again (slurmrestd unreachable). */
static int run_op(struct slurm_backend *b, struct backend_op *op)
{
    switch (op->kind) {
    case BACKEND_OP_SEND: op_send(b, op->uid, op->manifest); return 0;
    case BACKEND_OP_REMOVE: return op_remove(b, op->uid, op->ref);
    case BACKEND_OP_STOP: return op_stop(b, op->uid, op->ref);
    case BACKEND_OP_ACT: op_act(b, op->uid, op->ref, op->action); return 0;
    case BACKEND_OP_ADOPT: op_adopt(b, op->uid, op->ref); return 0;
    }
    return 0;
}

static void *backend_thread(void *arg)
{
    struct slurm_backend *b = arg;
    char err[512];
    int rc = slurm_rest_ping(&b->rest, err, sizeof err);
    slurm_note_reach(b, rc == SLURM_REST_UNREACHABLE ? rc : 0, err);
    int64_t next_ping = clock_mono_ms() + SLURM_IDLE_PING_MS;
    pthread_mutex_lock(&b->mu);
    while (!b->closing) {
        if (!b->head) {
            int64_t wait_ms = b->jobs || b->retry ? SLURM_POLL_MS : SLURM_IDLE_PING_MS;
            struct timespec until = clock_deadline(CLOCK_MONOTONIC, wait_ms);
            pthread_cond_timedwait(&b->cv, &b->mu, &until);
        }
        struct backend_op *ops = b->head;
        b->head = b->tail = NULL;
        pthread_mutex_unlock(&b->mu);
        /* Earlier ops that met an unreachable slurmrestd go first, in their order. */
        struct backend_op *list = b->retry, **end = &list;
        b->retry = NULL;
        while (*end)
            end = &(*end)->next;
        *end = ops;
        ops = list;
        struct backend_op **keep = &b->retry;
        while (ops) {
            struct backend_op *op = ops;
            ops = op->next;
            op->next = NULL;
            if (run_op(b, op)) {
                *keep = op;
                keep = &op->next;
            } else
                backend_op_free(op);
        }
        if (b->jobs)
            slurm_poll(b);
        else if (b->reachable == 0 && clock_mono_ms() >= next_ping) {
            rc = slurm_rest_ping(&b->rest, err, sizeof err);
            slurm_note_reach(b, rc == SLURM_REST_UNREACHABLE ? rc : 0, err);
            next_ping = clock_mono_ms() + SLURM_IDLE_PING_MS;
        }
        pthread_mutex_lock(&b->mu);
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

static int enqueue(struct slurm_backend *b, enum backend_op_kind kind, const char *uid, const char *ref,
                   json_t *manifest, enum backend_action action)
{
    struct backend_op *op = backend_op_new(kind, uid, ref, manifest, action);
    if (!op)
        return -1;
    pthread_mutex_lock(&b->mu);
    if (b->tail)
        b->tail->next = op;
    else
        b->head = op;
    b->tail = op;
    pthread_cond_signal(&b->cv);
    pthread_mutex_unlock(&b->mu);
    return 0;
}

static int be_send(void *ctx, const char *uid, json_t *manifest)
{
    return enqueue(ctx, BACKEND_OP_SEND, uid, NULL, manifest, BACKEND_SUSPEND);
}
static int be_remove(void *ctx, const char *uid, const char *ref)
{
    return enqueue(ctx, BACKEND_OP_REMOVE, uid, ref, NULL, BACKEND_SUSPEND);
}
static int be_stop(void *ctx, const char *uid, const char *ref)
{
    return enqueue(ctx, BACKEND_OP_STOP, uid, ref, NULL, BACKEND_SUSPEND);
}
static int be_act(void *ctx, const char *uid, const char *ref, enum backend_action action)
{
    return enqueue(ctx, BACKEND_OP_ACT, uid, ref, NULL, action);
}
static int be_adopt(void *ctx, const char *uid, const char *ref)
{
    return enqueue(ctx, BACKEND_OP_ADOPT, uid, ref, NULL, BACKEND_SUSPEND);
}

static void backend_free(struct slurm_backend *b)
{
    for (struct backend_op *op = b->head, *next; op; op = next) {
        next = op->next;
        backend_op_free(op);
    }
    for (struct backend_op *op = b->retry, *next; op; op = next) {
        next = op->next;
        backend_op_free(op);
    }
    slurm_tracked_free_all(b);
    free(b->url);
    free(b->user);
    free(b->token);
    free(b->work_dir);
    free(b->partition);
    strv_free(b->env);
    free(b);
}

static void be_close(void *ctx)
{
    struct slurm_backend *b = ctx;
    pthread_mutex_lock(&b->mu);
    b->closing = true;
    pthread_cond_signal(&b->cv);
    pthread_mutex_unlock(&b->mu);
    pthread_join(b->thread, NULL);
    pthread_mutex_destroy(&b->mu);
    pthread_cond_destroy(&b->cv);
    backend_free(b);
}

/* The token file's first line. */
static int read_token(const char *path, char **out, struct api_status *st)
{
    char *data = NULL;
    size_t len = 0;
    if (read_file(path, TOKEN_MAX, &data, &len) != 0)
        return api_fail(st, 400, "BadRequest", "slurm.tokenFile %s: %s", path, strerror(errno));
    data[strcspn(data, "\r\n")] = '\0';
    *out = data;
    return 0;
}

/* The jobs' environment: PATH, and SLURM_CONF when the server has one (the batch script runs scontrol). */
static int base_env(struct slurm_backend *b)
{
    const char *conf = getenv("SLURM_CONF");
    if (strv_push(&b->env, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin") != 0)
        return -1;
    return conf ? strv_pushf(&b->env, "SLURM_CONF=%s", conf) : 0;
}

int slurm_backend_open(const struct backend_conf *conf, const struct backend_host *host, struct backend **out,
                       struct api_status *st)
{
    if (!conf || !conf->slurmrestd || !*conf->slurmrestd)
        return api_fail(st, 400, "BadRequest", "slurm: --slurmrestd (slurm.url) is required for the Slurm backend");
    struct slurm_backend *b = calloc(1, sizeof *b);
    if (!b)
        return api_fail(st, 500, "InternalError", "out of memory");
    b->host = *host;
    b->reachable = -1;
    const char *user = conf->slurm_user;
    struct passwd *pw = user ? NULL : getpwuid(geteuid());
    b->url = strdup(conf->slurmrestd);
    b->user = strdup(user ? user : pw ? pw->pw_name : "root");
    b->work_dir = strdup(conf->slurm_work_dir ? conf->slurm_work_dir : DEFAULT_WORK_DIR);
    b->partition = conf->slurm_partition ? strdup(conf->slurm_partition) : NULL;
    if (conf->slurm_token_file && read_token(conf->slurm_token_file, &b->token, st) != 0) {
        backend_free(b);
        return -1;
    }
    if (!b->url || !b->user || !b->work_dir || (conf->slurm_partition && !b->partition) || base_env(b) != 0) {
        backend_free(b);
        return api_fail(st, 500, "InternalError", "out of memory");
    }
    if (mkdir_p(b->work_dir, 0755) != 0) {
        int e = errno;
        backend_free(b);
        return api_fail(st, 400, "BadRequest", "slurm.workDir %s: %s",
                        conf->slurm_work_dir ? conf->slurm_work_dir : DEFAULT_WORK_DIR, strerror(e));
    }
    b->rest = (struct slurm_rest){.url = b->url, .user = b->user, .token = b->token, .timeout_ms = 5000};
    b->base = (struct backend){.kind = BACKEND_SLURM,
                               .name = "slurm",
                               .engine_runs_policies = false,
                               .ctx = b,
                               .send = be_send,
                               .remove = be_remove,
                               .stop = be_stop,
                               .act = be_act,
                               .adopt = be_adopt,
                               .logs = slurm_backend_logs,
                               .close = be_close};
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&b->thread, NULL, backend_thread, b) != 0) {
        pthread_mutex_destroy(&b->mu);
        pthread_cond_destroy(&b->cv);
        backend_free(b);
        return api_fail(st, 500, "InternalError", "slurm: cannot start the backend thread");
    }
    *out = &b->base;
    return 0;
}
