/* A completed step's outputs, read from its job's working directory as a tenant's files must be:
 * every directory opened beneath the last without following a symbolic link, the file itself a
 * regular file opened O_NOFOLLOW|O_NONBLOCK (a fifo never blocks the core), at most FLOW_OUTPUT_MAX
 * bytes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scheduler/controller/flow_internal.h"
#include "scheduler/controller/internal.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)

/* Opens path (relative, already checked: no "..", no "/" first) beneath dir_fd. */
static int open_beneath(int dir_fd, const char *path)
{
    char part[256];
    int fd = dup(dir_fd);
    while (fd >= 0) {
        const char *slash = strchr(path, '/');
        size_t n = slash ? (size_t)(slash - path) : strlen(path);
        if (n == 0 || n >= sizeof part) {
            close(fd);
            errno = EINVAL;
            return -1;
        }
        memcpy(part, path, n);
        part[n] = '\0';
        int next = openat(fd, part, slash ? DIR_FLAGS : O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        int err = errno;
        close(fd);
        errno = err;
        if (!slash)
            return next;
        fd = next;
        path = slash + 1;
    }
    return -1;
}

/* The file's text into *out (NUL-terminated). Returns 0, or -1 with why. */
static int read_output(int work_fd, const char *path, char *out, char *why, size_t why_len)
{
    int fd = open_beneath(work_fd, path);
    struct stat st;
    if (fd < 0) {
        snprintf(why, why_len, "%s", errno == ELOOP ? "a symbolic link" : strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > FLOW_OUTPUT_MAX) {
        snprintf(why, why_len, "%s", !S_ISREG(st.st_mode) ? "not a regular file" : "larger than 4096 bytes");
        close(fd);
        return -1;
    }
    ssize_t n = read(fd, out, FLOW_OUTPUT_MAX + 1);
    close(fd);
    if (n < 0 || n > FLOW_OUTPUT_MAX) {
        snprintf(why, why_len, "%s", n < 0 ? strerror(errno) : "larger than 4096 bytes");
        return -1;
    }
    out[n] = '\0';
    if (n > 0 && out[n - 1] == '\n') /* as a shell's $(cat file) */
        out[n - 1] = '\0';
    return 0;
}

int flow_read_outputs(const struct controller *ctl, const struct job *job, struct flow_step *s, char *why,
                      size_t why_len)
{
    char dir[4200], text[FLOW_OUTPUT_MAX + 2], reason[128];
    controller_job_dir(ctl, job, dir, sizeof dir);
    strncat(dir, "/work", sizeof dir - strlen(dir) - 1);
    int work_fd = open(dir, DIR_FLAGS);
    if (work_fd < 0) {
        snprintf(why, why_len, "the job's working directory: %s", strerror(errno));
        return -1;
    }
    json_decref(s->values);
    s->values = json_object();
    int rc = 0;
    for (int i = 0; i < s->noutputs && rc == 0; i++) {
        if (read_output(work_fd, s->outputs[i].path, text, reason, sizeof reason) != 0) {
            snprintf(why, why_len, "output %s (%s): %s", s->outputs[i].name, s->outputs[i].path, reason);
            rc = -1;
        } else {
            json_t *v = json_stringn(text, strlen(text));
            if (!v || json_object_set_new(s->values, s->outputs[i].name, v) != 0) {
                snprintf(why, why_len, "output %s (%s): not UTF-8 text", s->outputs[i].name, s->outputs[i].path);
                rc = -1;
            }
        }
    }
    close(work_fd);
    return rc;
}
