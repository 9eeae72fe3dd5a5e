/* The supervised spawn limit: the spawn limit's loop with what every attempt has that a bare spawn
 * has not (its own cgroups, joined before the exec; the supervisor between it and its task). */
#include "tests/lib/supervised_limit.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/cgroup/cgroup.h"
#include "tests/lib/bench.h"

extern char **environ;

struct supervisor_loop {
    pthread_t thread;
    int id;
    const char *shim;
    double until;
    long spawned;
    bool failed;
};

/* One task: its cgroup, the shim in it, /bin/true under the shim, reaped; the cgroup removed. */
static int one_task(const struct supervisor_loop *s, long n, int null_fd)
{
    char name[CGROUP_NAME_MAX], why[256];
    snprintf(name, sizeof name, "supervised-limit-%d-%d-%ld", (int)getpid(), s->id, n);
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
        if (dup2(null_fd, 1) < 0 || dup2(null_fd, 3) < 0)
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

static void *supervisor_loop(void *arg)
{
    struct supervisor_loop *s = arg;
    int null_fd = open("/dev/null", O_WRONLY | O_APPEND | O_CLOEXEC);
    while (null_fd >= 0 && bench_now() < s->until) {
        if (one_task(s, s->spawned, null_fd) != 0) {
            s->failed = true;
            break;
        }
        s->spawned++;
    }
    s->failed |= null_fd < 0;
    if (null_fd >= 0)
        close(null_fd);
    return NULL;
}

static double one_round(int threads, double seconds, const char *shim)
{
    struct supervisor_loop *s = calloc((size_t)threads, sizeof *s);
    if (!s)
        return -1;
    double t0 = bench_now();
    int started = 0;
    for (; started < threads; started++) {
        s[started] = (struct supervisor_loop){.id = started, .shim = shim, .until = t0 + seconds};
        if (pthread_create(&s[started].thread, NULL, supervisor_loop, &s[started]) != 0)
            break;
    }
    long total = 0;
    bool failed = started < threads;
    for (int i = 0; i < started; i++) {
        pthread_join(s[i].thread, NULL);
        total += s[i].spawned;
        failed |= s[i].failed;
    }
    double elapsed = bench_now() - t0;
    free(s);
    return failed ? -1 : total / elapsed;
}

double supervised_limit_per_s(int threads, double seconds, int rounds)
{
    const char *shim = getenv("CALDERA_SHIM");
    if (!shim || !*shim)
        shim = "bin/caldera-shim";
    if (access(shim, X_OK) != 0 || cgroup_layout()->mode == CGROUP_NONE)
        return -1;
    double rate[16];
    if (rounds > 16)
        rounds = 16;
    for (int r = 0; r < rounds; r++)
        if ((rate[r] = one_round(threads, seconds, shim)) < 0)
            return -1;
    return bench_median(rate, rounds);
}
