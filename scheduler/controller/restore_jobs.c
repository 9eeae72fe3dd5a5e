/* Start-up's job rows: their texts copied, then parsed on the pool's helpers a batch at a time while
 * the loading thread reads the next rows; each job joins the cluster on the loading thread, in the rows' order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "adapters/dialects/volcano/job.h"
#include "common/grow.h"
#include "common/log.h"
#include "common/parallel.h"
#include "scheduler/controller/internal.h"

/* A batch is handed to the pool once its rows weigh this much: an awake job's row weighs
 * AWAKE_WEIGHT (its spec and status are parsed: ~60-100 us here), a sleeping one's 1 (a stub). */
#define BATCH_WEIGHT 4096
#define AWAKE_WEIGHT 16
/* No piece lighter than this: a piece is one queue handover to a helper. */
#define PIECE_MIN_WEIGHT 256

/* One row of the batch. Its strings, copied (the store's are valid only during the callback), are
 * one allocation: uid, ns, name, then an awake job's spec, status and source, or a sleeping job's
 * queue. `job` is set by the piece that parses the row; NULL then means it did not parse (logged). */
struct restore_entry {
    char *text;
    const char *uid, *ns, *name, *spec, *status, *source, *queue;
    int64_t created_ms;
    uint64_t rv;
    int phase; /* a sleeping job's, from job_phase_parse */
    bool asleep;
    struct job *job;
};

struct restore_batch {
    struct restore_entry *entries;
    int n, cap;
    size_t weight;
    int piece_end[PARALLEL_MAX_HELPERS + 1]; /* entries [piece_end[i-1], piece_end[i]) are piece i's */
    struct parallel_batch *running;
};

/* Two batches: one parsed by the pool while the other fills. */
struct restore_jobs {
    struct restore_batch batches[2];
    struct restore_batch *filling, *parsing;
    struct job *cursor; /* the job added last: the next comes after it (cluster_add_job_after) */
};

/* The object a job was posted as in another dialect; NULL for a Volcano Job, and (logged) when the
 * stored text cannot be read: the job itself is the Volcano Job and runs the same. */
static json_t *parse_source(const char *uid, const char *source_json)
{
    if (!source_json || !*source_json)
        return NULL;
    json_error_t err;
    json_t *source = json_loads(source_json, 0, &err);
    if (!json_is_object(source)) {
        log_error("job %s: stored source object unreadable (%s); it reads as a Volcano Job", uid, err.text);
        json_decref(source);
        return NULL;
    }
    return source;
}

/* A Pending job the last run found unschedulable keeps its PodGroup condition, from when the job's
 * status took that reason: the first cycle after a restart then records only what changed, instead of
 * every waiting gang's Unschedulable event again (and a Job status each, where the message moved). */
static void restore_unschedulable(struct job *job)
{
    const struct job_status *s = &job->status;
    if (s->phase != JOB_PENDING || !s->reason || strcmp(s->reason, "Unschedulable") != 0 || !s->message)
        return;
    job->pg.unschedulable = strdup(s->message);
    job->pg.unschedulable_ms = s->transition_ms;
}

/* A restored job's manifest is parsed again from its text only when something reads it (job_manifest):
 * at start-up most are never read, and their parsed trees were most of an awake job's memory (6.5 KB
 * of a one-pod job's 8.6, for 640 bytes of text), whose first-touched pages cost most of a start's
 * time. A big one (over 64 KiB of text: tens of tasks and more) keeps its tree: its text is parsed
 * again slowly, and its tree may lie in an intake arena that the kept annotations would hold whole. */
#define KEEP_AS_TEXT_MAX 65536

static void keep_manifest_as_text(struct job *job, const char *spec_json)
{
    if (strlen(spec_json) <= KEEP_AS_TEXT_MAX)
        job_keep_manifest_as_text(job, strdup(spec_json)); /* on failure the job keeps its tree */
}

/* job_manifest's reader: the stored text parsed again the way restore_parse_job parsed it, so the
 * tree and the templates are exactly what an eager restore kept; a throwaway job's, moved over. */
int controller_read_kept_manifest(struct job *job)
{
    struct api_status st = {0};
    struct intake in;
    if (intake_parse(job->manifest_text, strlen(job->manifest_text), INTAKE_JSON, &in, &st) != 0 || in.ndocs != 1) {
        log_error("job %s/%s (%s): kept manifest unreadable: %s", job->ns, job->name, job->uid, st.message);
        return -1;
    }
    struct job *copy = NULL;
    int rc = volcano_job_from_admitted_doc(&in.docs[0], job->ns, &copy, &st);
    intake_free(&in);
    if (rc != 0 || copy->ntasks != job->ntasks) {
        log_error("job %s/%s (%s): kept manifest no longer reads as the job: %s", job->ns, job->name, job->uid,
                  rc != 0 ? st.message : "another number of tasks");
        job_free(copy);
        return -1;
    }
    job->manifest_tree = copy->manifest_tree;
    copy->manifest_tree = NULL;
    for (int t = 0; t < job->ntasks; t++) {
        job->tasks[t].template_tree = copy->tasks[t].template_tree;
        copy->tasks[t].template_tree = NULL;
    }
    job_free(copy);
    return 0;
}

struct job *restore_parse_job(const char *uid, const char *ns, const char *name, int64_t created_ms, uint64_t rv,
                              const char *spec_json, const char *status_json, const char *source_json)
{
    struct api_status st = {0};
    struct intake in;
    struct job *job = NULL;
    if (intake_parse(spec_json, strlen(spec_json), INTAKE_JSON, &in, &st) != 0 || in.ndocs != 1) {
        log_error("job %s/%s (%s): stored spec unreadable: %s", ns, name, uid, st.message);
        return NULL;
    }
    int rc = volcano_job_from_admitted_doc(&in.docs[0], ns, &job, &st);
    intake_free(&in);
    if (rc != 0) {
        log_error("job %s/%s (%s): stored spec no longer valid: %s", ns, name, uid, st.message);
        return NULL;
    }
    snprintf(job->uid, sizeof job->uid, "%s", uid);
    job->created_ms = created_ms;
    job->resource_version = rv;
    job->source = parse_source(uid, source_json);
    if (volcano_job_restore_status(job, status_json) != 0) {
        /* the spec is what was acknowledged; the phase follows again from the attempts */
        log_error("job %s/%s (%s): stored status unreadable (%.80s); the job is restored as Pending", ns, name, uid,
                  status_json ? status_json : "(null)");
        job->status.phase = JOB_PENDING;
    }
    restore_unschedulable(job);
    /* No pod until an attempt of this version says there is one; the sync after recovery creates
     * again what a live job misses. */
    for (int32_t i = 0; i < job->total_replicas; i++)
        job_set_replica_phase(job, i, POD_ABSENT);
    return job;
}

/* A sleeping job: no tasks until it wakes. */
static struct job *make_stub(const struct restore_entry *e)
{
    struct job *job = calloc(1, sizeof *job);
    if (!job)
        return NULL;
    job->dormant = true;
    job->ns = strdup(e->ns);
    job->name = strdup(e->name);
    job->queue = strdup(e->queue);
    if (!job->ns || !job->name || !job->queue) {
        job_free(job);
        return NULL;
    }
    snprintf(job->uid, sizeof job->uid, "%s", e->uid);
    job->created_ms = e->created_ms;
    job->resource_version = e->rv;
    job->status.phase = (enum job_phase)e->phase;
    job->pg.phase = PG_COMPLETED;
    job->ttl_seconds = -1;
    return job;
}

/* On a helper (or the loading thread): the jobs of entries [from, to), each with its key. */
static void build_entries(struct restore_entry *entries, int from, int to)
{
    for (int i = from; i < to; i++) {
        struct restore_entry *e = &entries[i];
        e->job = e->asleep
                     ? make_stub(e)
                     : restore_parse_job(e->uid, e->ns, e->name, e->created_ms, e->rv, e->spec, e->status, e->source);
        if (e->job && !e->asleep) {
            keep_manifest_as_text(e->job, e->spec);
            e->job->stored_status = strdup(e->status); /* NULL: its GET waits for the recovery */
        }
        if (e->job && !(e->job->key = job_key_new(e->ns, e->name))) {
            job_free(e->job);
            e->job = NULL;
        }
        if (!e->job && e->asleep)
            log_error("job %s/%s (%s): cannot be restored: out of memory", e->ns, e->name, e->uid);
    }
}

static void build_piece(void *ctx, int i)
{
    struct restore_batch *b = ctx;
    build_entries(b->entries, i == 0 ? 0 : b->piece_end[i - 1], b->piece_end[i]);
}

/* Cuts the batch into pieces of about equal weight, one per CPU (none under PIECE_MIN_WEIGHT), and
 * hands them to the pool (which runs them here when it cannot start them). */
static void start_batch(struct restore_batch *b)
{
    int npieces = parallel_parts(b->weight, PIECE_MIN_WEIGHT); /* at most the pool's helpers and this thread */
    size_t so_far = 0;
    int piece = 0;
    for (int i = 0; i < b->n && piece < npieces - 1; i++) {
        so_far += b->entries[i].asleep ? 1 : AWAKE_WEIGHT;
        if (so_far * (size_t)npieces >= b->weight * (size_t)(piece + 1))
            b->piece_end[piece++] = i + 1;
    }
    while (piece < npieces)
        b->piece_end[piece++] = b->n;
    b->running = parallel_start(npieces, build_piece, b);
    if (!b->running)
        build_entries(b->entries, 0, b->n);
}

static int add_restored(struct controller *ctl, struct job *job)
{
    if (cluster_add_job_after(ctl->cluster, job, &ctl->restoring->cursor) == 0)
        return 0;
    log_error("job %s/%s (%s): cannot be restored: %s", job->ns, job->name, job->uid,
              strmap_get(&ctl->cluster->jobs_by_key, job->key)   ? "another live job has its name"
              : strmap_get(&ctl->cluster->jobs_by_uid, job->uid) ? "another job has its uid"
                                                                 : "out of memory");
    job_free(job);
    return -1;
}

/* Waits for the batch's pieces, then, when `join`, adds its jobs to the cluster in order; every job
 * not added is freed. The batch is left empty. Returns 0, or -1 when a row could not be restored. */
static int finish_batch(struct controller *ctl, struct restore_batch *b, bool join)
{
    if (b->running)
        parallel_wait(b->running);
    b->running = NULL;
    int result = 0;
    for (int i = 0; i < b->n; i++) {
        struct restore_entry *e = &b->entries[i];
        free(e->text);
        if (!join || result != 0 || !e->job) { /* after a failed row, the rest is freed too */
            if (join)
                result = -1;
            job_free(e->job);
            continue;
        }
        struct job *job = e->job;
        if (add_restored(ctl, job) != 0) {
            result = -1;
            continue;
        }
        if (job->dormant)
            cluster_retire_job(ctl->cluster, job); /* holds nothing: no cycle walks it */
        else
            job->pg.phase = job->status.phase == JOB_PENDING ? PG_PENDING : PG_INQUEUE;
    }
    b->n = 0;
    b->weight = 0;
    return result;
}

/* Copies what the row's job needs into a new entry of the filling batch. */
static int add_entry(struct restore_batch *b, const struct store_job_row *row)
{
    if (GROW(b->entries, b->cap, (size_t)b->n + 1, 1024) != 0)
        return -1;
    const char *parts[6] = {row->uid, row->ns, row->name};
    int nparts = 3;
    if (row->asleep) {
        parts[nparts++] = row->queue;
    } else {
        parts[nparts++] = row->spec_json ? row->spec_json : "";
        parts[nparts++] = row->status_json ? row->status_json : "";
        parts[nparts++] = row->source_json ? row->source_json : "";
    }
    size_t len[6], total = 0;
    for (int i = 0; i < nparts; i++)
        total += (len[i] = strlen(parts[i])) + 1;
    char *text = malloc(total), *at = text;
    if (!text)
        return -1;
    const char *copied[6];
    for (int i = 0; i < nparts; i++) {
        memcpy(at, parts[i], len[i] + 1);
        copied[i] = at;
        at += len[i] + 1;
    }
    struct restore_entry *e = &b->entries[b->n++];
    *e = (struct restore_entry){
        .text = text,
        .uid = copied[0],
        .ns = copied[1],
        .name = copied[2],
        .created_ms = row->created_ms,
        .rv = row->resource_version,
        .asleep = row->asleep,
    };
    if (row->asleep) {
        e->queue = copied[3];
        e->phase = job_phase_parse(row->phase);
    } else {
        e->spec = copied[3];
        e->status = copied[4];
        e->source = copied[5];
    }
    b->weight += row->asleep ? 1 : AWAKE_WEIGHT;
    return 0;
}

/* A job the store says sleeps (finished for good, no TTL to arm: only its head was read) is kept
 * dormant; the others are parsed whole. */
int controller_restore_job(struct controller *ctl, const struct store_job_row *row)
{
    struct restore_jobs *r = ctl->restoring;
    if (!r) {
        if (!(r = ctl->restoring = calloc(1, sizeof *r)))
            return -1;
        r->filling = &r->batches[0];
    }
    if (add_entry(r->filling, row) != 0)
        return -1;
    if (r->filling->weight < BATCH_WEIGHT)
        return 0;
    /* the batch before this one joins the cluster while this one is parsed */
    if (r->parsing && finish_batch(ctl, r->parsing, true) != 0)
        return -1;
    start_batch(r->filling);
    if (ctl->restore_yield) /* while the pool parses the next batch */
        ctl->restore_yield(ctl->restore_yield_ctx);
    r->parsing = r->filling;
    r->filling = r->filling == &r->batches[0] ? &r->batches[1] : &r->batches[0];
    return 0;
}

int controller_restore_jobs_done(struct controller *ctl, bool complete)
{
    struct restore_jobs *r = ctl->restoring;
    if (!r)
        return 0;
    int result = 0;
    if (r->parsing && finish_batch(ctl, r->parsing, complete) != 0)
        result = -1;
    bool join = complete && result == 0;
    if (join && r->filling->n > 0)
        start_batch(r->filling);                  /* its pieces on the helpers and on this thread */
    if (finish_batch(ctl, r->filling, join) != 0) /* not joined: its copied rows freed, nothing parsed */
        result = -1;
    for (int i = 0; i < 2; i++)
        free(r->batches[i].entries);
    free(r);
    ctl->restoring = NULL;
    return result;
}
