/* Reading and writing cgroup control files: one open, one read or write, one close, into stack
 * buffers (these files are small, and reaping reads several of them per attempt). */
#include "runtime/cgroup/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int open_control(const char *dir, const char *file, int flags)
{
    char path[CGROUP_PATH_MAX + 64];
    if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return open(path, flags | O_CLOEXEC);
}

int cgroup_make_dir(const char *dir)
{
    if (mkdir(dir, CGROUP_DIR_MODE) != 0)
        return -1;
    return chmod(dir, CGROUP_DIR_MODE);
}

int cgroup_write(const char *dir, const char *file, const char *value)
{
    int fd = open_control(dir, file, O_WRONLY);
    if (fd < 0)
        return -1;
    size_t len = strlen(value);
    ssize_t w = write(fd, value, len);
    int err = errno;
    close(fd);
    if (w != (ssize_t)len) {
        errno = w < 0 ? err : EIO;
        return -1;
    }
    return 0;
}

int cgroup_read(const char *dir, const char *file, char *buf, size_t len)
{
    int fd = open_control(dir, file, O_RDONLY);
    if (fd < 0)
        return -1;
    size_t n = 0;
    while (n + 1 < len) {
        ssize_t r = read(fd, buf + n, len - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r < 0) {
                int err = errno;
                close(fd);
                errno = err;
                return -1;
            }
            break;
        }
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    return 0;
}

int64_t cgroup_read_key(const char *dir, const char *file, const char *key)
{
    char buf[2048];
    if (cgroup_read(dir, file, buf, sizeof buf) != 0)
        return -1;
    size_t klen = strlen(key);
    for (const char *line = buf; *line;) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ' ')
            return strtoll(line + klen + 1, NULL, 10);
        const char *newline = strchr(line, '\n');
        if (!newline)
            break;
        line = newline + 1;
    }
    return -1;
}

int64_t cgroup_read_number(const char *dir, const char *file)
{
    char buf[64];
    if (cgroup_read(dir, file, buf, sizeof buf) != 0 || buf[0] < '0' || buf[0] > '9')
        return -1;
    return strtoll(buf, NULL, 10);
}

int cgroup_enable_controllers(const char *dir, unsigned bits)
{
    static const struct {
        unsigned bit;
        const char *token;
    } v2_controllers[] = {{CG_MEMORY, "+memory"}, {CG_CPU, "+cpu"}, {CG_PIDS, "+pids"}, {CG_CPUSET, "+cpuset"}};
    char all[64] = "";
    for (size_t i = 0; i < sizeof v2_controllers / sizeof v2_controllers[0]; i++)
        if (bits & v2_controllers[i].bit)
            snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", all[0] ? " " : "", v2_controllers[i].token);
    if (!all[0] || cgroup_write(dir, "cgroup.subtree_control", all) == 0)
        return 0;
    /* One refused controller fails the whole write; enable the others one by one. */
    int rc = 0;
    for (size_t i = 0; i < sizeof v2_controllers / sizeof v2_controllers[0]; i++)
        if ((bits & v2_controllers[i].bit) && cgroup_write(dir, "cgroup.subtree_control", v2_controllers[i].token) != 0)
            rc = -1;
    return rc;
}
