/* A replica's attempt on Slurm from its rank file and the job's state (see slurm_attempts.h): pure, the
 * poller (slurm_backend.c) reads the files and posts what changed. */
#include "runtime/slurm/slurm_attempts.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void slurm_rank_file_parse(const char *text, struct slurm_rank_file *out)
{
    memset(out, 0, sizeof *out);
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        if (!nl) /* a line still being written */
            break;
        char buf[160], word[BACKEND_NAME_MAX];
        int64_t ms;
        size_t n = (size_t)(nl - line) < sizeof buf - 1 ? (size_t)(nl - line) : sizeof buf - 1;
        memcpy(buf, line, n);
        buf[n] = '\0';
        int k = sscanf(buf, "start %" SCNd64 " %63s", &ms, word);
        if (k >= 1) {
            out->started = true;
            out->start_ms = ms;
            snprintf(out->node, sizeof out->node, "%s", k == 2 ? word : "");
        } else if (sscanf(buf, "end %" SCNd64 " %d", &ms, &out->status) == 2) {
            out->ended = true;
            out->end_ms = ms;
        }
        line = nl + 1;
    }
}

const char *slurm_state_reason(enum slurm_state s)
{
    switch (s) {
    case SLURM_STATE_COMPLETED: return "Completed";
    case SLURM_STATE_OUT_OF_MEMORY: return "OOMKilled";
    case SLURM_STATE_TIMEOUT:
    case SLURM_STATE_DEADLINE: return "DeadlineExceeded";
    case SLURM_STATE_NODE_FAIL:
    case SLURM_STATE_BOOT_FAIL: return "NodeLost";
    case SLURM_STATE_PREEMPTED: return "Evicted";
    case SLURM_STATE_CANCELLED: return "Cancelled";
    default: return "Error";
    }
}

static void set_exit(struct slurm_replica_view *v, int status)
{
    v->exit_code = status;
    v->term_signal = status > 128 && status < 128 + 65 ? status - 128 : 0;
}

void slurm_replica_view(const struct slurm_rank_file *rf, const struct slurm_job_info *job, bool stopping,
                        struct slurm_replica_view *out)
{
    memset(out, 0, sizeof *out);
    bool final = !job || slurm_state_final(job->state);
    enum slurm_state st = job ? job->state : SLURM_STATE_CANCELLED;
    /* A failure the job's own end explains better than the rank's status (an OOM kill, a time limit). */
    bool explained = final && st != SLURM_STATE_COMPLETED && st != SLURM_STATE_FAILED;
    snprintf(out->node, sizeof out->node, "%s", rf->node);
    out->start_ms = rf->start_ms;
    if (rf->ended && (rf->status == 0 || !stopping || final)) {
        out->phase = rf->status == 0 ? BACKEND_POD_SUCCEEDED : BACKEND_POD_FAILED;
        out->end_ms = rf->end_ms;
        set_exit(out, rf->status);
        snprintf(out->reason, sizeof out->reason, "%s",
                 rf->status == 0 ? "Completed"
                 : explained     ? slurm_state_reason(st)
                                 : "Error");
        return;
    }
    if (!final) {
        out->phase = rf->started ? BACKEND_POD_RUNNING : BACKEND_POD_PENDING;
        if (!rf->started && job && job->state == SLURM_STATE_PENDING && strcmp(job->reason, "None") != 0) {
            snprintf(out->reason, sizeof out->reason, "Unschedulable");
            snprintf(out->message, sizeof out->message, "Slurm: %s", job->reason);
        }
        return;
    }
    /* The job is over and the rank never wrote its end: killed with it, or never started. */
    out->phase = BACKEND_POD_FAILED;
    out->end_ms = job && job->end_time > 0 ? job->end_time * 1000 : rf->start_ms;
    if (rf->started)
        set_exit(out, 128 + 9);
    else
        set_exit(out, job && job->exit_status > 0 ? job->exit_status
                      : job && job->term_signal   ? 128 + job->term_signal
                                                  : 1);
    snprintf(out->reason, sizeof out->reason, "%s", st == SLURM_STATE_FAILED ? "Error" : slurm_state_reason(st));
    if (job)
        snprintf(out->message, sizeof out->message, "Slurm job %s (%s)", job->state_name, job->reason);
    else
        snprintf(out->message, sizeof out->message, "the Slurm job is gone");
}

bool slurm_replica_view_changed(const struct slurm_replica_view *a, const struct slurm_replica_view *b)
{
    return a->phase != b->phase || strcmp(a->node, b->node) != 0 || a->exit_code != b->exit_code ||
           strcmp(a->reason, b->reason) != 0;
}

struct backend_update *slurm_replica_update(const char *uid, const char *ref, const char *task, int index,
                                            uint32_t attempt, const struct slurm_replica_view *v)
{
    struct backend_update *u = backend_update_new(BACKEND_POD, uid, ref);
    if (!u)
        return NULL;
    snprintf(u->task, sizeof u->task, "%s", task);
    u->index = index;
    u->attempt = attempt;
    u->phase = v->phase;
    snprintf(u->node, sizeof u->node, "%s", v->node);
    u->start_ms = v->start_ms;
    u->end_ms = v->end_ms;
    u->exit_code = v->exit_code;
    u->term_signal = v->term_signal;
    snprintf(u->reason, sizeof u->reason, "%s", v->reason);
    snprintf(u->message, sizeof u->message, "%s", v->message);
    return u;
}
