/* The spawn limit: posix_spawn + waitpid of /bin/true in a loop on every CPU, the same way every time,
 * so that an end-to-end rate can be read as a share of what the machine's kernel can do. */
#include "tests/lib/spawn_limit.h"

#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "tests/lib/bench.h"

extern char **environ;

static cpu_set_t allowed; /* the CPUs of the first call, before any pinning */
static bool allowed_known;

static void know_allowed(void)
{
    if (allowed_known)
        return;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        CPU_ZERO(&allowed);
        CPU_SET(0, &allowed);
    }
    allowed_known = true;
}

int spawn_limit_cpus(void)
{
    know_allowed();
    int n = CPU_COUNT(&allowed);
    return n > 0 ? n : 1;
}

int spawn_limit_pin(int n)
{
    know_allowed();
    cpu_set_t set;
    CPU_ZERO(&set);
    int taken = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && (n <= 0 || taken < n); cpu++)
        if (CPU_ISSET(cpu, &allowed)) {
            CPU_SET(cpu, &set);
            taken++;
        }
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : -1;
}

struct spawner {
    pthread_t thread;
    int id;
    double until;
    long spawned;
    bool failed;
    int (*one)(void *ctx, int thread, long n);
    void *ctx;
};

static void *spawn_loop(void *arg)
{
    struct spawner *s = arg;
    while (bench_now() < s->until) {
        if (s->one(s->ctx, s->id, s->spawned) != 0) {
            s->failed = true;
            break;
        }
        s->spawned++;
    }
    return NULL;
}

static double one_round(int threads, double seconds, int (*one)(void *ctx, int thread, long n), void *ctx)
{
    struct spawner *s = calloc((size_t)threads, sizeof *s);
    if (!s)
        return -1;
    double t0 = bench_now();
    int started = 0;
    for (; started < threads; started++) {
        s[started] = (struct spawner){.id = started, .until = t0 + seconds, .one = one, .ctx = ctx};
        if (pthread_create(&s[started].thread, NULL, spawn_loop, &s[started]) != 0)
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

double spawn_rounds(int threads, double seconds, int rounds, int (*one)(void *ctx, int thread, long n), void *ctx)
{
    double rate[16];
    if (rounds > 16)
        rounds = 16;
    for (int r = 0; r < rounds; r++)
        if ((rate[r] = one_round(threads, seconds, one, ctx)) < 0)
            return -1;
    return bench_median(rate, rounds);
}

static int spawn_true(void *ctx, int thread, long n)
{
    (void)ctx, (void)thread, (void)n;
    char *argv[] = {"/bin/true", NULL};
    pid_t pid;
    int status;
    return posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) == 0 && waitpid(pid, &status, 0) == pid ? 0 : -1;
}

double spawn_limit_per_s(int threads, double seconds, int rounds)
{
    return spawn_rounds(threads, seconds, rounds, spawn_true, NULL);
}
