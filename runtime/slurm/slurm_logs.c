/* The Slurm backend's logs(): a pod's output is its rank's file, <workDir>/<uid>/<job id>/<task>-<index>.out
 * (its last 64 MiB), cut to kubelet's tailLines and limitBytes. Reads files only: safe on a gateway thread. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/slurm/slurm_internal.h"

/* The task and index a pod name ("<job>-<task>-<index>") stands for, from the job's manifest. */
static int pod_replica(const struct slurm_backend *b, const char *uid, const char *pod, char *task, size_t task_len,
                       int *index)
{
    char path[600], err[256];
    slurm_uid_path(b, uid, "job.json", path, sizeof path);
    json_t *manifest = json_load_file(path, 0, NULL);
    struct slurm_task_plan tasks[SLURM_PLAN_MAX_TASKS];
    int n = manifest ? slurm_plan_tasks(manifest, tasks, SLURM_PLAN_MAX_TASKS, err, sizeof err) : -1;
    const char *name = json_string_value(
        json_object_get(json_object_get(slurm_manifest_job(manifest), "metadata"), "name"));
    int found = -1;
    for (int t = 0; name && t < n && found < 0; t++)
        for (int i = 0; i < tasks[t].replicas; i++) {
            char want[256];
            snprintf(want, sizeof want, "%s-%s-%d", name, tasks[t].name, i);
            if (strcmp(want, pod) == 0) {
                snprintf(task, task_len, "%s", tasks[t].name);
                *index = i;
                found = 0;
                break;
            }
        }
    json_decref(manifest);
    return found;
}

/* The last tail lines of text[0..len) (a final newline ends a line, not starts one). */
static size_t tail_start(const char *text, size_t len, int64_t tail)
{
    if (tail < 0)
        return 0;
    size_t pos = len;
    if (pos > 0 && text[pos - 1] == '\n')
        pos--;
    for (int64_t lines = 0; pos > 0; pos--)
        if (text[pos - 1] == '\n' && ++lines == tail)
            return pos;
    return tail == 0 ? len : 0;
}

/* The file's last max bytes (all of a smaller file), NUL-terminated. Returns 0, or -1 with errno. */
static int read_last(const char *path, size_t max, char **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    struct stat sb;
    char *buf = NULL;
    size_t size = 0;
    if (fstat(fileno(f), &sb) == 0) {
        size = (size_t)sb.st_size > max ? max : (size_t)sb.st_size;
        if ((size_t)sb.st_size > max)
            fseeko(f, sb.st_size - (off_t)max, SEEK_SET);
        buf = malloc(size + 1);
    }
    size_t got = buf ? fread(buf, 1, size, f) : 0;
    int err = ferror(f) || !buf ? (buf ? EIO : ENOMEM) : 0;
    fclose(f);
    if (err) {
        free(buf);
        errno = err;
        return -1;
    }
    buf[got] = '\0';
    *out = buf;
    *len = got;
    return 0;
}

int slurm_backend_logs(void *ctx, const char *uid, const char *ref, const struct backend_log_query *q, char **out,
                       size_t *len, struct api_status *st)
{
    const struct slurm_backend *b = ctx;
    char task[BACKEND_NAME_MAX], path[700];
    int index;
    if (!ref || !*ref)
        return api_fail(st, 404, "NotFound", "pod %s has not been sent to Slurm", q->pod);
    if (pod_replica(b, uid, q->pod, task, sizeof task, &index) != 0)
        return api_fail(st, 404, "NotFound", "pods \"%s\" not found", q->pod);
    slurm_output_path(b->work_dir, uid, ref, task, index, path, sizeof path);
    char *text = NULL;
    size_t n = 0;
    if (read_last(path, SLURM_LOG_MAX, &text, &n) != 0) {
        if (errno != ENOENT)
            return api_fail(st, 500, "InternalError", "cannot read %s: %s", path, strerror(errno));
        text = strdup(""); /* placed but not started yet: no output */
        if (!text)
            return api_fail(st, 500, "InternalError", "out of memory");
    }
    size_t from = tail_start(text, n, q->tail_lines);
    size_t keep = n - from;
    if (q->limit_bytes >= 0 && (uint64_t)q->limit_bytes < keep)
        keep = (size_t)q->limit_bytes;
    memmove(text, text + from, keep);
    text[keep] = '\0';
    *out = text;
    *len = keep;
    return 0;
}
