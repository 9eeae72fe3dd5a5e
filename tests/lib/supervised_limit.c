/* The supervised spawn limit: the spawn limit's loop with what every attempt has that a bare spawn
 * has not (its own cgroups, joined before the exec; the supervisor between it and its task). */
#include "tests/lib/supervised_limit.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/cgroup/cgroup.h"
#include "tests/lib/spawn_limit.h"

extern char **environ;

struct supervised {
    const char *shim;
    int null_fd;
};

/* One task: its cgroup, the shim in it, /bin/true under the shim, reaped; the cgroup removed. */
static int one_task(void *ctx, int thread, long n)
{
    const struct supervised *s = ctx;
    char name[CGROUP_NAME_MAX], why[256];
    snprintf(name, sizeof name, "supervised-limit-%d-%d-%ld", (int)getpid(), thread, n);
    struct cgroup_join join;
    if (cgroup_create(name, &(struct cgroup_limits){0}, &join, why, sizeof why) != 0) {
        fprintf(stderr, "supervised_limit: %s\n", why);
        return -1;
    }
    char *argv[] = {"caldera-shim", "limit", "1", "/bin/true", "true", NULL};
    pid_t pid = vfork();
    if (pid == 0) { /* only async-signal-safe calls until the exec */
        for (int i = 0; i < join.count; i++)
            if (write(join.procs_fd[i], "0", 1) != 1)
                _exit(126);
        if (dup2(s->null_fd, 1) < 0 || dup2(s->null_fd, 3) < 0)
            _exit(126);
        execve(s->shim, argv, environ);
        _exit(127);
    }
    cgroup_join_close(&join);
    int status = 0;
    bool ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    cgroup_remove(name);
    return ok ? 0 : -1;
}

double supervised_limit_per_s(int threads, double seconds, int rounds)
{
    const char *shim = getenv("CALDERA_SHIM");
    if (!shim || !*shim)
        shim = "bin/caldera-shim";
    if (access(shim, X_OK) != 0 || cgroup_layout()->mode == CGROUP_NONE)
        return -1;
    struct supervised s = {.shim = shim, .null_fd = open("/dev/null", O_WRONLY | O_APPEND | O_CLOEXEC)};
    double rate = s.null_fd >= 0 ? spawn_rounds(threads, seconds, rounds, one_task, &s) : -1;
    if (s.null_fd >= 0)
        close(s.null_fd);
    return rate;
}
