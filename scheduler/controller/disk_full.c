/* Telling a full disk apart: whether attempts may start, a start that failed on ENOSPC or EDQUOT, a
 * task that exited non-zero while its working directory's file system was full, and the failed job
 * that carries it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

#include "scheduler/controller/internal.h"

/* Below this much room a write of a few blocks fails: a task that failed then ran out of space. */
#define DISK_FULL_SLACK_BYTES (256 * 1024)

bool disk_full_in_error(const char *why)
{
    return why && (strstr(why, strerror(ENOSPC)) || strstr(why, strerror(EDQUOT)));
}

bool disk_full_at(const char *path)
{
    struct statvfs fs;
    if (statvfs(path, &fs) != 0 || fs.f_blocks == 0)
        return false; /* unknown, or a file system without blocks (proc-like): not full */
    return (unsigned long long)fs.f_bavail * fs.f_frsize < DISK_FULL_SLACK_BYTES;
}

const char *controller_starts_held(const struct controller *ctl)
{
    if (ctl->starts_held || !ctl->data_dir)
        return ctl->starts_held;
    return disk_full_at(ctl->data_dir) ? STARTS_HELD_DISK_FULL : NULL;
}

bool disk_full_job_detail(const struct job *job, const char *message, char *buf, size_t len)
{
    for (int32_t i = 0; i < job->total_replicas; i++) {
        const struct replica *r = &job->replicas[i];
        if (r->phase != POD_FAILED || r->reason != TERM_DISK_FULL)
            continue;
        int task = job_task_of(job, i);
        char pod[320];
        job_pod_name(job, task, i - job->task_first[task], pod, sizeof pod);
        snprintf(buf, len, "%s%spod %s: %s", message ? message : "", message ? "; " : "", pod,
                 r->message ? r->message : DISK_FULL_WORDS);
        return true;
    }
    return false;
}
