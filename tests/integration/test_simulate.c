/* bin/simulate end to end: small traces in tests/integration/data/sim run through the real scheduler
 * and controller, the JSON checked to the second; bad traces, usage errors and --help. */
#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/test.h"

#define DATA "tests/integration/data/sim/"

extern char **environ;

struct run {
    int status; /* exit status, 128 + signal, or -1 when it could not run */
    char *out, *err;
};

/* Output goes to a temporary file rather than a pipe: nothing to drain while it runs. */
static int temp_file(char *path, size_t len, const char *what)
{
    snprintf(path, len, "/tmp/caldera-simulate-%s-XXXXXX", what);
    return mkstemp(path);
}

static char *slurp(const char *path)
{
    char *data = NULL;
    if (read_file(path, 64u << 20, &data, NULL) != 0)
        return strdup("");
    return data;
}

/* Runs $CALDERA_BIN_DIR/simulate (default build/asan/bin) with args (NULL-terminated). */
static struct run simulate(const char *const *args)
{
    struct run r = {-1, NULL, NULL};
    const char *dir = getenv("CALDERA_BIN_DIR");
    char bin[512], out_path[64], err_path[64];
    snprintf(bin, sizeof bin, "%s/simulate", dir && *dir ? dir : "build/asan/bin");
    char *argv[16] = {bin};
    for (int i = 0; args[i] && i < 14; i++)
        argv[i + 1] = (char *)args[i];
    int out_fd = temp_file(out_path, sizeof out_path, "out"), err_fd = temp_file(err_path, sizeof err_path, "err");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
    pid_t pid;
    int status;
    if (out_fd >= 0 && err_fd >= 0 && posix_spawn(&pid, bin, &fa, NULL, argv, environ) == 0 &&
        waitpid(pid, &status, 0) == pid)
        r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    else
        fprintf(stderr, "cannot run %s\n", bin);
    posix_spawn_file_actions_destroy(&fa);
    if (out_fd >= 0) {
        close(out_fd);
        r.out = slurp(out_path);
        unlink(out_path);
    }
    if (err_fd >= 0) {
        close(err_fd);
        r.err = slurp(err_path);
        unlink(err_path);
    }
    return r;
}

static void run_free(struct run *r)
{
    free(r->out);
    free(r->err);
}

/* Runs a trace that must succeed and returns its JSON (NULL after a failed check). */
static json_t *simulate_ok(const char *trace, bool events)
{
    const char *args[] = {events ? "--events" : trace, events ? trace : NULL, NULL};
    struct run r = simulate(args);
    json_t *out = NULL;
    if (r.status != 0)
        test_fail(__FILE__, __LINE__, "simulate %s exited %d: %s", trace, r.status, r.err ? r.err : "");
    else if (!(out = json_loads(r.out, 0, NULL)))
        test_fail(__FILE__, __LINE__, "simulate %s printed no JSON: %.300s", trace, r.out);
    run_free(&r);
    return out;
}

static json_t *find_named(json_t *list, const char *name)
{
    size_t i;
    json_t *item;
    json_array_foreach(list, i, item)
    {
        if (strcmp(json_string_value(json_object_get(item, "name")), name) == 0)
            return item;
    }
    return NULL;
}

/* A time: a whole number of seconds is an integer, else a real; null when absent. */
static double seconds_at(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : -1;
}

static const char *str_at(json_t *obj, const char *key) { return json_string_value(json_object_get(obj, key)); }
static long long int_at(json_t *obj, const char *key) { return json_integer_value(json_object_get(obj, key)); }

static void check_job(json_t *out, const char *name, double start, double end, const char *phase, int line)
{
    json_t *job = find_named(json_object_get(out, "jobs"), name);
    if (!job) {
        test_fail(__FILE__, line, "no job %s", name);
        return;
    }
    if (seconds_at(job, "start") != start || seconds_at(job, "end") != end || strcmp(str_at(job, "phase"), phase) != 0)
        test_fail(__FILE__, line, "job %s: start %g end %g phase %s, expected %g %g %s", name, seconds_at(job, "start"),
                  seconds_at(job, "end"), str_at(job, "phase"), start, end, phase);
}
#define CHECK_JOB(out, name, start, end, phase) check_job(out, name, start, end, phase, __LINE__)

static void test_gang_waits_for_gang(void)
{
    json_t *out = simulate_ok(DATA "fifo-gang.yaml", false);
    REQUIRE(out);
    CHECK_JOB(out, "pair", 0, 30, "Completed");
    CHECK_JOB(out, "trio", 30, 50, "Completed");
    CHECK(json_is_integer(json_object_get(out, "end")));
    CHECK_INT(int_at(out, "end"), 50);
    CHECK_STR(str_at(out, "stopped"), "finished");

    json_t *trio = find_named(json_object_get(out, "jobs"), "trio");
    CHECK_STR(str_at(trio, "queue"), "default");
    CHECK_STR(str_at(trio, "namespace"), "default");
    CHECK_INT(int_at(trio, "arrival"), 0);
    CHECK_INT(int_at(trio, "attempts"), 3);
    CHECK_INT(int_at(trio, "evictions"), 0);
    json_t *replicas = json_object_get(trio, "replicas");
    CHECK_INT(json_array_size(replicas), 3);
    size_t i;
    json_t *r;
    json_array_foreach(replicas, i, r)
    {
        char pod[32];
        snprintf(pod, sizeof pod, "trio-w-%zu", i);
        CHECK_STR(str_at(r, "pod"), pod);
        CHECK(str_at(r, "node") != NULL);
        CHECK_INT(int_at(r, "start"), 30);
        CHECK_INT(int_at(r, "end"), 50);
        CHECK_INT(int_at(r, "attempts"), 1);
        CHECK_STR(str_at(r, "phase"), "Succeeded");
        CHECK_INT(int_at(r, "exit_code"), 0);
    }

    /* One sample a period (1 s, the default): 2 CPUs held until 30 s, then 3 until 50 s. */
    json_t *queue = find_named(json_object_get(out, "queues"), "default");
    REQUIRE(queue);
    CHECK_INT(int_at(queue, "weight"), 1);
    json_t *samples = json_object_get(queue, "samples");
    CHECK_INT(json_array_size(samples), 51);
    json_t *s29 = json_array_get(samples, 29), *s30 = json_array_get(samples, 30), *s50 = json_array_get(samples, 50);
    CHECK_INT(int_at(s29, "t"), 29);
    CHECK_STR(json_string_value(json_object_get(json_object_get(s29, "allocated"), "cpu")), "2");
    CHECK_INT(int_at(s29, "running_jobs"), 1);
    CHECK_INT(int_at(s29, "pending_jobs"), 1);
    CHECK_STR(json_string_value(json_object_get(json_object_get(s30, "allocated"), "cpu")), "3");
    CHECK_INT(int_at(s30, "pending_jobs"), 0);
    CHECK_INT(json_object_size(json_object_get(s50, "allocated")), 0);
    CHECK_INT(int_at(s50, "running_jobs"), 0);
    json_decref(out);
}

static void test_exit_codes_and_times(void)
{
    json_t *out = simulate_ok(DATA "exit-codes.yaml", false);
    REQUIRE(out);
    CHECK_JOB(out, "fails", 0, 10, "Failed");
    CHECK_JOB(out, "succeeds", 0, 90, "Completed");
    CHECK_JOB(out, "late", 60, 62.5, "Completed");
    CHECK_INT(int_at(out, "end"), 90);
    CHECK_STR(str_at(out, "stopped"), "finished");

    json_t *jobs = json_object_get(out, "jobs");
    json_t *fails = json_array_get(json_object_get(find_named(jobs, "fails"), "replicas"), 0);
    CHECK_STR(str_at(fails, "phase"), "Failed");
    CHECK_INT(int_at(fails, "exit_code"), 1);
    CHECK_STR(str_at(find_named(jobs, "succeeds"), "namespace"), "team-a");
    CHECK(json_is_real(json_object_get(find_named(jobs, "late"), "end")));
    CHECK_INT(int_at(find_named(jobs, "late"), "arrival"), 60);
    /* The job order of the output is the trace's. */
    CHECK_STR(str_at(json_array_get(jobs, 0), "name"), "fails");
    CHECK_STR(str_at(json_array_get(jobs, 2), "name"), "late");

    json_t *samples = json_object_get(find_named(json_object_get(out, "queues"), "default"), "samples");
    CHECK_INT(json_array_size(samples), 4); /* every 30 s: 0, 30, 60, 90 */
    CHECK_INT(int_at(json_array_get(samples, 3), "t"), 90);
    CHECK_STR(json_string_value(json_object_get(json_object_get(json_array_get(samples, 1), "allocated"), "cpu")), "1");
    CHECK(json_object_get(out, "events") == NULL);
    json_decref(out);
}

static void test_events(void)
{
    json_t *out = simulate_ok(DATA "exit-codes.yaml", true);
    REQUIRE(out);
    json_t *events = json_object_get(out, "events");
    REQUIRE(json_is_array(events));
    bool pod_failed = false, job_failed = false;
    long long last_seq = 0;
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        CHECK(int_at(e, "seq") > last_seq);
        last_seq = int_at(e, "seq");
        if (strcmp(str_at(e, "kind"), "Pod") == 0 && strcmp(str_at(e, "name"), "fails-main-0") == 0 &&
            strcmp(str_at(e, "to"), "Failed") == 0) {
            pod_failed = true;
            CHECK_INT(int_at(e, "t"), 10);
            CHECK_STR(str_at(e, "from"), "Running");
            CHECK_STR(str_at(e, "reason"), "Error");
            CHECK_CONTAINS(str_at(e, "message"), "exited with code 1");
        }
        if (strcmp(str_at(e, "kind"), "Job") == 0 && strcmp(str_at(e, "name"), "fails") == 0 &&
            strcmp(str_at(e, "to"), "Failed") == 0)
            job_failed = true;
    }
    CHECK(pod_failed);
    CHECK(job_failed);
    json_decref(out);
}

static void test_same_trace_same_output(void)
{
    const char *args[] = {"--events", DATA "fifo-gang.yaml", NULL};
    struct run a = simulate(args), b = simulate(args);
    CHECK_INT(a.status, 0);
    CHECK(a.out && b.out && strcmp(a.out, b.out) == 0);
    run_free(&a);
    run_free(&b);
}

static void test_bad_trace(void)
{
    const char *args[] = {DATA "bad-duration.yaml", NULL};
    struct run r = simulate(args);
    CHECK_INT(r.status, 2);
    CHECK_STR(r.out, "");
    CHECK_STR(r.err, "simulate: " DATA
                     "bad-duration.yaml: document 2 (Job typo): "
                     "metadata.annotations[caldera.io/duration]: Invalid value: \"10 minutes\": must be a number of "
                     "seconds or a duration such as 90s, 5m or 1h30m (line 16, column 26)\n");
    run_free(&r);
}

static void test_usage(void)
{
    const char *none[] = {NULL}, *two[] = {"a.yaml", "b.yaml", NULL}, *bogus[] = {"--bogus", NULL};
    const char *missing[] = {DATA "no-such-trace.yaml", NULL}, *help[] = {"--help", NULL};
    struct run r = simulate(none);
    CHECK_INT(r.status, 2);
    CHECK_CONTAINS(r.err, "usage: simulate [--events] FILE");
    run_free(&r);
    r = simulate(two);
    CHECK_INT(r.status, 2);
    CHECK_CONTAINS(r.err, "one trace at a time");
    run_free(&r);
    r = simulate(bogus);
    CHECK_INT(r.status, 2);
    CHECK_CONTAINS(r.err, "unknown option --bogus");
    run_free(&r);
    r = simulate(missing);
    CHECK_INT(r.status, 2);
    CHECK_CONTAINS(r.err, "No such file or directory");
    run_free(&r);
    r = simulate(help);
    CHECK_INT(r.status, 0);
    CHECK_CONTAINS(r.out, "--events");
    CHECK_STR(r.err, "");
    run_free(&r);
}

/* The cpu a queue holds at the last sample, in millicores (0 when it holds nothing). */
static long queue_cpu_at_end(json_t *out, const char *queue)
{
    json_t *samples = json_object_get(find_named(json_object_get(out, "queues"), queue), "samples");
    json_t *last = json_array_get(samples, json_array_size(samples) - 1);
    const char *cpu = json_string_value(json_object_get(json_object_get(last, "allocated"), "cpu"));
    if (!cpu)
        return 0;
    char *end;
    double v = strtod(cpu, &end);
    return (long)(*end == 'm' ? v : v * 1000);
}

static long long evictions_of(json_t *out, const char *job)
{
    return int_at(find_named(json_object_get(out, "jobs"), job), "evictions");
}

/* Volcano's four queue scenarios (weights, reclaim, capability, reclaimable), as Volcano's
 * overview writes them (4-CPU cluster). */
static void test_volcano_queue_scenarios(void)
{
    json_t *out = simulate_ok(DATA "volcano-queues-1.yaml", false); /* weights 1:3, jobs of 1C and 3C: both run */
    if (out) {
        CHECK_JOB(out, "job1", 0, -1, "Running");
        CHECK_JOB(out, "job2", 0, -1, "Running");
        CHECK_INT(queue_cpu_at_end(out, "test1"), 1000);
        CHECK_INT(queue_cpu_at_end(out, "test2"), 3000);
        json_decref(out);
    }
    out = simulate_ok(DATA "volcano-queues-2.yaml", false); /* test2 (weight 3) arrives with job3: job2 is evicted */
    if (out) {
        CHECK_INT(evictions_of(out, "job2"), 1);
        CHECK_INT(evictions_of(out, "job1"), 0);
        CHECK_JOB(out, "job3", 60, -1, "Running");
        CHECK_INT(queue_cpu_at_end(out, "test1"), 1000); /* test1's 3 CPUs went to test2 */
        CHECK_INT(queue_cpu_at_end(out, "test2"), 3000);
        json_decref(out);
    }
    out = simulate_ok(DATA "volcano-queues-3.yaml", false); /* capability cpu 2: job2 (3C) stays pending */
    if (out) {
        CHECK_JOB(out, "job1", 0, -1, "Running");
        CHECK_JOB(out, "job2", -1, -1, "Pending");
        CHECK_INT(queue_cpu_at_end(out, "test1"), 1000);
        json_decref(out);
    }
    out = simulate_ok(DATA "volcano-queues-4.yaml", false); /* reclaimable false: test1 keeps 3C, job2 waits */
    if (out) {
        CHECK_JOB(out, "job2", -1, -1, "Pending");
        CHECK_INT(evictions_of(out, "job1"), 0);
        CHECK_INT(queue_cpu_at_end(out, "test1"), 3000);
        json_decref(out);
    }
}

TEST_MAIN(TEST_CASE(test_gang_waits_for_gang), TEST_CASE(test_exit_codes_and_times), TEST_CASE(test_events),
          TEST_CASE(test_same_trace_same_output), TEST_CASE(test_bad_trace), TEST_CASE(test_usage),
          TEST_CASE(test_volcano_queue_scenarios))
