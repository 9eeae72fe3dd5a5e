/* kill -9 at random moments over a mixed workload (short, long, failing, restarting and pending
 * jobs), restarting on the same data each time: nothing acknowledged is lost, no attempt is lost or
 * recorded twice, and tasks that ran through crashes end with their real exit codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define ROUNDS 20
#define MAX_JOBS 128
#define SETTLE_MS 90000

enum kind { QUICK_OK, QUICK_FAIL, LONG, RESTARTING, PENDING, KINDS };

struct acked {
    char name[32];
    enum kind kind;
};

static const char *const args[] = {
    "--shutdown-grace", "1", "--restart-backoff", "100", "--schedule-period", "200", NULL};

static long submit_kind(const struct test_server *s, const char *name, enum kind k)
{
    switch (k) {
    case QUICK_OK: return job_submit(s, name, "", TASK("t", 1, "", "'sleep 0.2; exit 0'", ""));
    case QUICK_FAIL: return job_submit(s, name, "  maxRetry: 1\n", TASK("t", 1, "", "'sleep 0.3; exit 3'", ""));
    case LONG: return job_submit(s, name, "", TASK("t", 2, "", "'sleep 2; exit 0'", ""));
    case RESTARTING: /* fails once, then, run again by RestartJob, succeeds */
        return job_submit(
            s, name, "  maxRetry: 5\n  policies:\n  - {event: PodFailed, action: RestartJob}\n",
            TASK("t", 1, "", "'if test -f ran; then sleep 1; exit 0; fi; touch ran; sleep 0.7; exit 1'", ""));
    case PENDING: /* more than any node has: acknowledged, never placed */
        return job_submit(s, name, "",
                          TASK("t", 1, "", "'true'", "          resources: {requests: {cpu: \"4000\"}}\n"));
    default: return 0;
    }
}

static bool final_phase(const char *phase)
{
    return phase && (!strcmp(phase, "Completed") || !strcmp(phase, "Failed") || !strcmp(phase, "Aborted") ||
                     !strcmp(phase, "Terminated"));
}

/* Every acknowledged job answers GET with its name and its task. */
static int count_present(const struct test_server *s, const struct acked *jobs, int n)
{
    int present = 0;
    for (int i = 0; i < n; i++) {
        json_t *j = job_get(s, jobs[i].name);
        const char *name = jv_str(j, "metadata.name");
        if (name && !strcmp(name, jobs[i].name) && jv_str(j, "spec.tasks.0.name"))
            present++;
        else
            test_fail(__FILE__, __LINE__, "acknowledged job %s is missing", jobs[i].name);
        json_decref(j);
    }
    return present;
}

/* The history's attempts: per pod numbered 1..n without a gap or a twin, all ended, none Unknown,
 * each with the exit code its command gives. */
static void check_attempts(const struct test_server *s, const struct acked *job, long long *pids, int *npids)
{
    json_t *h = job_history(s, job->name);
    json_t *attempts = json_object_get(h, "attempts");
    size_t i;
    json_t *a;
    const char *last_pod = "";
    long long expect = 1;
    if (json_array_size(attempts) == 0 && job->kind != PENDING)
        test_fail(__FILE__, __LINE__, "%s: no attempts", job->name);
    json_array_foreach(attempts, i, a)
    {
        const char *pod = jv_str(a, "pod");
        if (!pod)
            continue;
        if (strcmp(pod, last_pod) != 0)
            expect = 1;
        last_pod = pod;
        long long n = jv_num(a, "attempt");
        if (n != expect)
            test_fail(__FILE__, __LINE__, "%s: attempt %lld where %lld was expected (lost or twice)", pod, n, expect);
        expect = n + 1;
        const char *reason = jv_str(a, "reason");
        if (json_is_null(json_object_get(a, "finishTime")) || !reason) {
            test_fail(__FILE__, __LINE__, "%s attempt %lld never ended", pod, n);
            continue;
        }
        long long code = jv_num(a, "exitCode");
        bool ok = true;
        if (!strcmp(reason, "Unknown"))
            ok = false;
        else if (job->kind == QUICK_OK || job->kind == LONG)
            ok = code == 0 || !strcmp(reason, "Shutdown");
        else if (job->kind == QUICK_FAIL)
            ok = code == 3;
        else if (job->kind == RESTARTING)
            ok = code == 0 || code == 1 || !strcmp(reason, "Shutdown");
        if (!ok)
            test_fail(__FILE__, __LINE__, "%s attempt %lld: exit code %lld, reason %s (%s)", pod, n, code, reason,
                      jv_str(a, "message") ? jv_str(a, "message") : "no message");
        if (*npids < MAX_JOBS * 8)
            pids[(*npids)++] = jv_num(a, "pid");
    }
    json_decref(h);
}

/* How many tasks the restarts adopted, from the server log's "N running tasks adopted" lines. */
static int adopted_in_log(const struct test_server *s)
{
    FILE *f = fopen(s->log_path, "r");
    char line[1024];
    int total = 0;
    while (f && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, " running task");
        if (!p || !strstr(p, "adopted"))
            continue;
        while (p > line && p[-1] >= '0' && p[-1] <= '9')
            p--;
        total += atoi(p);
    }
    if (f)
        fclose(f);
    return total;
}

static void kill9_at_random_points_loses_nothing(void)
{
    unsigned seed = getenv("TORTURE_SEED") ? (unsigned)atoi(getenv("TORTURE_SEED")) : (unsigned)time(NULL);
    printf("# seed %u (TORTURE_SEED=%u reruns this order)\n", seed, seed);
    srand(seed);
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    static struct acked jobs[MAX_JOBS];
    int njobs = 0, kills = 0;
    for (int round = 0; round < ROUNDS; round++) {
        int batch = 2 + rand() % 3;
        for (int b = 0; b < batch && njobs < MAX_JOBS; b++) {
            struct acked *j = &jobs[njobs];
            j->kind = (enum kind)(rand() % KINDS);
            snprintf(j->name, sizeof j->name, "r%d-%d", round, b);
            if (submit_kind(&s, j->name, j->kind) == 201)
                njobs++;
        }
        usleep((useconds_t)(100 + rand() % 1400) * 1000); /* somewhere in starts, runs, exits, restarts */
        server_kill9(&s);
        kills++;
        if (server_start(&s, s.data_dir, args) != 0) {
            test_fail(__FILE__, __LINE__, "no restart after kill %d", kills);
            server_cleanup(&s);
            return;
        }
        if (count_present(&s, jobs, njobs) != njobs)
            break;
    }
    CHECK_INT(kills, ROUNDS);
    /* let everything that can finish finish */
    for (int i = 0; i < njobs; i++) {
        if (jobs[i].kind == PENDING)
            continue;
        for (int waited = 0; waited < SETTLE_MS; waited += 100) {
            json_t *j = job_get(&s, jobs[i].name);
            bool done = final_phase(jv_str(j, "status.state.phase"));
            json_decref(j);
            if (done)
                break;
            usleep(100000);
        }
    }
    static long long pids[MAX_JOBS * 8];
    int npids = 0;
    CHECK_INT(count_present(&s, jobs, njobs), njobs);
    for (int i = 0; i < njobs; i++) {
        json_t *j = job_get(&s, jobs[i].name);
        const char *phase = jv_str(j, "status.state.phase");
        const char *want = jobs[i].kind == PENDING ? "Pending" : jobs[i].kind == QUICK_FAIL ? "Failed" : "Completed";
        if (!phase || strcmp(phase, want) != 0)
            test_fail(__FILE__, __LINE__, "%s (kind %d): phase %s, expected %s", jobs[i].name, (int)jobs[i].kind,
                      phase ? phase : "(none)", want);
        json_decref(j);
        check_attempts(&s, &jobs[i], pids, &npids);
    }
    int adopted = adopted_in_log(&s);
    printf("# %d kills, %d acknowledged jobs, %d attempts checked, %d running tasks adopted\n", kills, njobs, npids,
           adopted);
    CHECK(adopted > 0); /* 20 kills over tasks that run for seconds: some ran through one */
    CHECK_INT(server_stop(&s), 0);
    for (int i = 0; i < npids; i++)
        if (!pid_gone(pids[i]))
            test_fail(__FILE__, __LINE__, "pid %lld of a recorded attempt still runs after the stop", pids[i]);
    if (test_failed_checks)
        fprintf(stderr, "data kept in %s\n", s.data_dir);
    else
        server_cleanup(&s);
}

TEST_MAIN(TEST_CASE(kill9_at_random_points_loses_nothing))
