/* The Slurm backend's small shared parts: posting reports, following slurmrestd's reachability, and the
 * per-uid files in the work dir (what was sent, under which attempt). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "runtime/slurm/slurm_internal.h"

void slurm_post(struct slurm_backend *b, struct backend_update *u)
{
    if (u)
        b->host.post(b->host.ctx, u);
}

void slurm_note_reach(struct slurm_backend *b, int rc, const char *err)
{
    int now = rc == SLURM_REST_UNREACHABLE ? 0 : 1;
    if (now == b->reachable)
        return;
    bool first = b->reachable < 0;
    b->reachable = now;
    if (first && now) /* reachable from the start: nothing to report */
        return;
    struct backend_update *u = backend_update_new(BACKEND_ENGINE, NULL, NULL);
    if (!u)
        return;
    u->ok = now == 1;
    snprintf(u->message, sizeof u->message, "%s", now ? "slurmrestd answers" : err);
    slurm_post(b, u);
}

void slurm_uid_path(const struct slurm_backend *b, const char *uid, const char *file, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s%s%s", b->work_dir, uid, file ? "/" : "", file ? file : "");
}

uint32_t slurm_sent_attempt(const struct slurm_backend *b, const char *uid, uint32_t job_id, uint32_t *count)
{
    char path[600];
    slurm_uid_path(b, uid, "sent", path, sizeof path);
    FILE *f = fopen(path, "r");
    uint32_t found = 0, n = 0, attempt, id;
    while (f && fscanf(f, "%u %u", &attempt, &id) == 2) {
        n++;
        if (id == job_id)
            found = attempt;
    }
    if (f)
        fclose(f);
    if (count)
        *count = n;
    return found;
}
