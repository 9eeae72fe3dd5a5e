/* The job lifecycle with real processes through a real jobserver: autoMemoryScale after an OOM kill,
 * policies and their actions, minSuccess, dependsOn, commands, TTL, in-place restarts and a crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/fs.h"
#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define PODS "/api/v1/namespaces/default/pods"
#define COMMANDS "/apis/bus.volcano.sh/v1alpha1/namespaces/default/commands"
#define WAIT_MS 20000

/* --- helpers ------------------------------------------------------------------------------------ */

/* The first job event of the history with this reason, or NULL. */
static json_t *transition(json_t *history, const char *reason)
{
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(history, "transitions"), i, t)
    {
        if (jv_str(t, "reason") && strcmp(jv_str(t, "reason"), reason) == 0)
            return t;
    }
    return NULL;
}

/* "2026-01-02T03:04:05.678Z" in milliseconds since the epoch; -1 when it does not read. */
static long long time_ms(const char *text)
{
    struct tm tm = {0};
    const char *rest = text ? strptime(text, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
    if (!rest)
        return -1;
    long long ms = (long long)timegm(&tm) * 1000;
    if (*rest == '.') {
        int digits = 0, frac = 0;
        for (rest++; *rest >= '0' && *rest <= '9'; rest++)
            if (digits < 3) {
                frac = frac * 10 + (*rest - '0');
                digits++;
            }
        while (digits++ < 3)
            frac *= 10;
        ms += frac;
    }
    return ms;
}

/* Waits (at most ms) until every attempt of the job's history has a process that is gone. */
static bool attempts_gone(const struct test_server *s, const char *name, int ms)
{
    for (int waited = 0;; waited += 100) {
        json_t *h = job_history(s, name);
        bool gone = json_array_size(json_object_get(h, "attempts")) > 0;
        size_t i;
        json_t *a;
        json_array_foreach(json_object_get(h, "attempts"), i, a)
        {
            if (jv_num(a, "pid") > 0 && !pid_gone(jv_num(a, "pid"))) {
                if (waited >= ms)
                    fprintf(stderr, "%s: pid %lld of %s attempt %lld still runs\n", name, jv_num(a, "pid"),
                            jv_str(a, "pod"), jv_num(a, "attempt"));
                gone = false;
            }
        }
        json_decref(h);
        if (gone)
            return true;
        if (waited >= ms)
            return false;
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* The pods of a job listed by the API, by name, comma-separated in order. */
static void pod_names(const struct test_server *s, const char *job, char *buf, size_t len)
{
    long code;
    json_t *list = api_get(s, PODS "?labelSelector=volcano.sh/job-name=%s", job, &code);
    size_t used = 0, i;
    json_t *pod;
    buf[0] = '\0';
    json_array_foreach(json_object_get(list, "items"), i, pod)
    {
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s", i ? "," : "",
                                 jv_str(pod, "metadata.name"));
    }
    json_decref(list);
}

/* The job's working directory, its HOME: <data>/jobs/<uid>/work. */
static void work_dir(const struct test_server *s, const char *name, char *buf, size_t len)
{
    json_t *job = job_get(s, name);
    snprintf(buf, len, "%s/jobs/%s/work", s->data_dir, jv_str(job, "metadata.uid") ? jv_str(job, "metadata.uid") : "?");
    json_decref(job);
}

static long long file_number(const char *dir, const char *name)
{
    char path[1024], *data = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (read_file(path, 4096, &data, NULL) != 0)
        return -1;
    long long v = strtoll(data, NULL, 10);
    free(data);
    return v;
}

/* --- the shared server and its jobs ---------------------------------------------------------------------- */

/* One server runs every independent job at once; each case then waits for its own. */
static struct test_server shared;
static bool shared_up, shared_failed;
static const char *const shared_args[] = {"--restart-backoff", "100", "--shutdown-grace", "2", NULL};

/* A python one-liner that touches 56Mi (~65Mi with the interpreter): more than 50Mi, less than 75Mi. */
#define ALLOC_56MI "'python3 -c \"b = bytearray(56 << 20); b[::4096] = b''x'' * len(b[::4096]); print(len(b))\"'"

static const struct {
    const char *name, *spec, *tasks;
} shared_jobs[] = {
    {"oom", "  autoMemoryScale: {rate: 1.5, maxMemory: 200Mi}\n",
     TASK("t", 1, "", ALLOC_56MI, "          resources: {limits: {memory: 50Mi}}\n")},
    {"retry", "  maxRetry: 3\n  policies:\n  - {event: PodFailed, action: RestartJob}\n",
     TASK("t", 1, "", "'echo failing; exit 1'", "")},
    {"distcc", "",
     TASK("master", 1, "    policies:\n    - {event: TaskCompleted, action: CompleteJob}\n", "'sleep 1; exit 0'", "")
         TASK("worker", 3, "", "'exec sleep 300'", "")},
    {"minsuccess", "  minSuccess: 2\n",
     TASK("w", 5, "", "'if [ \"$VC_TASK_INDEX\" -lt 2 ]; then exit 0; fi; exec sleep 300'", "")},
    {"exitcode", "  policies:\n  - {exitCode: 3, action: TerminateJob}\n",
     TASK("w", 2, "", "'if [ \"$VC_TASK_INDEX\" = 0 ]; then sleep 0.5; exit 3; fi; exec sleep 300'", "")},
    {"depends", "  minAvailable: 1\n",
     TASK("a", 1, "", "'date +%s%N > a.start; sleep 2; date +%s%N > a.end'", "")
         TASK("b", 1, "    dependsOn:\n      name: [a]\n", "'date +%s%N > b.start'", "")},
    {"ttl", "  ttlSecondsAfterFinished: 1\n", TASK("t", 1, "", "'echo done'", "")},
    {"onfailure", "",
     "  - name: t\n    replicas: 1\n    template:\n      spec:\n        restartPolicy: OnFailure\n"
     "        containers:\n        - name: c\n"
     "          command: [sh, -c, 'n=$(cat count 2>/dev/null || echo 0); n=$((n + 1)); echo $n > count; "
     "echo run $n; [ $n -ge 3 ]']\n"},
    {"suspend", "", TASK("t", 2, "", "'exec sleep 300'", "")},
    {"restart", "", TASK("t", 1, "", "'exec sleep 300'", "")},
    {"scale", "  minAvailable: 1\n", TASK("t", 1, "", "'exec sleep 300'", "")},
};

static struct test_server *lifecycle_server(void)
{
    if (shared_up || shared_failed)
        return shared_up ? &shared : NULL;
    if (server_start(&shared, NULL, shared_args) != 0) {
        shared_failed = true;
        return NULL;
    }
    shared_up = true;
    for (size_t i = 0; i < sizeof shared_jobs / sizeof shared_jobs[0]; i++)
        CHECK_INT(job_submit(&shared, shared_jobs[i].name, shared_jobs[i].spec, shared_jobs[i].tasks), 201);
    return &shared;
}

/* --- the cases --------------------------------------------------------------------------------- */

/* 50Mi is too little for the task: the kernel OOM-kills it, the task's memory becomes 75Mi and the
 * second attempt succeeds. */
static void oom_kill_scales_memory_and_the_rerun_succeeds(void)
{
    struct test_server *s = lifecycle_server();
    REQUIRE(s);
    long code;
    char *health = server_request_text(s, "GET", "/healthz", &code);
    CHECK_INT(code, 200);
    const char *warning = health ? strstr(health, "warning: ") : NULL;
    char reason[300];
    snprintf(reason, sizeof reason, "tasks run without limits here: %.*s",
             warning ? (int)strcspn(warning + 9, "\n") : 0, warning ? warning + 9 : "");
    free(health);
    SKIP_IF(warning, "%s", reason);

    CHECK(job_wait(s, "oom", "status.state.phase", "Completed", WAIT_MS) == 0);
    json_t *job = job_get(s, "oom");
    CHECK_STR(jv_str(job, "spec.tasks.0.template.spec.containers.0.resources.limits.memory"), "75Mi");
    CHECK_INT(jv_num(job, "status.retryCount"), 0); /* an OOM kill that scales is no failure */
    CHECK_INT(jv_num(job, "status.succeeded"), 1);
    json_decref(job);

    json_t *h = job_history(s, "oom");
    json_t *att[MAX_ATTEMPTS];
    REQUIRE_ATTEMPTS(h, "oom-t-0", att, 2);
    CHECK_STR(jv_str(att[0], "reason"), "OOMKilled");
    CHECK_INT(jv_num(att[0], "exitCode"), 137);
    CHECK_STR(jv_str(att[0], "outcome"), "Requeued");
    CHECK_STR(jv_str(att[1], "reason"), "Completed");
    CHECK_INT(jv_num(att[1], "exitCode"), 0);
    long long peak = jv_num(att[1], "peakMemoryBytes"); /* it ran under the new limit, above the old one */
    CHECK(peak > 50LL << 20 && peak <= 75LL << 20);
    json_t *scaled = transition(h, "MemoryScaled");
    CHECK(scaled != NULL);
    CHECK_CONTAINS(jv_str(scaled, "message"), "memory 50Mi -> 75Mi after OOMKilled");
    json_decref(h);

    char *log = server_request_text(s, "GET", PODS "/oom-t-0/log", &code);
    CHECK_INT(code, 200);
    CHECK_CONTAINS(log, "58720256"); /* the second attempt had its 56Mi */
    free(log);
}

/* PodFailed -> RestartJob: the job runs again, version by version, until retryCount reaches maxRetry. */
static void pod_failed_restarts_the_job_up_to_max_retry(void)
{
    struct test_server *s = lifecycle_server();
    REQUIRE(s);
    CHECK(job_wait(s, "retry", "status.state.phase", "Failed", WAIT_MS) == 0);
    json_t *job = job_get(s, "retry");
    CHECK_INT(jv_num(job, "status.retryCount"), 3);
    CHECK_INT(jv_num(job, "status.failed"), 1);
    json_decref(job);
    json_t *h = job_history(s, "retry");
    json_t *att[MAX_ATTEMPTS];
    int n = pod_attempts(h, "retry-t-0", att, MAX_ATTEMPTS);
    CHECK_INT(n, 3);
    for (int i = 0; i < n; i++) {
        CHECK_INT(jv_num(att[i], "attempt"), i + 1);
        CHECK_INT(jv_num(att[i], "jobVersion"), i);
        CHECK_INT(jv_num(att[i], "exitCode"), 1);
        CHECK_STR(jv_str(att[i], "reason"), "Error");
    }
    CHECK_STR(jv_str(h, "phase"), "Failed");
    json_decref(h);
}

/* A RestartJob deletes the job's pods and creates new ones (Volcano), and an OOM kill that scales the
 * memory creates the pod again: neither is a container restarting in place, so restartCount stays 0. */
static void recreated_pods_count_no_restarts(void)
{
    struct test_server *s = lifecycle_server();
    REQUIRE(s);
    CHECK(job_wait(s, "retry", "status.state.phase", "Failed", WAIT_MS) == 0);
    long code;
    json_t *pod = api_get(s, PODS "/%s", "retry-t-0", &code);
    CHECK_INT(code, 200);
    CHECK_STR(jv_str(pod, "status.phase"), "Failed");
    CHECK_INT(jv_num(pod, "status.containerStatuses.0.restartCount"), 0);
    json_decref(pod);
    CHECK(job_wait(s, "oom", "status.state.phase", "Completed", WAIT_MS) == 0);
    pod = api_get(s, PODS "/%s", "oom-t-0", &code);
    CHECK_INT(jv_num(pod, "status.containerStatuses.0.restartCount"), 0);
    json_decref(pod);
}

/* Volcano's distcc example: the master's TaskCompleted -> CompleteJob ends the job while its workers run. */
static void task_completed_completes_the_job_and_stops_workers(void)
{
    struct test_server *s = lifecycle_server();
    REQUIRE(s);
    CHECK(job_wait(s, "distcc", "status.state.phase", "Completed", WAIT_MS) == 0);
    json_t *job = job_get(s, "distcc");
    CHECK_INT(jv_num(job, "status.succeeded"), 1);
    CHECK_INT(jv_num(job, "status.failed"), 0);
    CHECK_INT(jv_num(job, "status.running"), 0);
    json_decref(job);
    json_t *h = job_history(s, "distcc");
    long long created = time_ms(jv_str(h, "metadata.creationTimestamp"));
    json_t *done = json_array_get(json_object_get(h, "transitions"),
                                  json_array_size(json_object_get(h, "transitions")) - 1);
    CHECK_STR(jv_str(done, "to"), "Completed");
    CHECK(time_ms(jv_str(done, "time")) - created < 10000); /* the master's 1 s, not the workers' 300 s */
    json_t *att[MAX_ATTEMPTS];
    REQUIRE_ATTEMPTS(h, "distcc-master-0", att, 1);
    CHECK_INT(jv_num(att[0], "exitCode"), 0);
    CHECK_STR(jv_str(att[0], "reason"), "Completed");
    for (int w = 0; w < 3; w++) {
        char pod[64];
        snprintf(pod, sizeof pod, "distcc-worker-%d", w);
        REQUIRE_ATTEMPTS(h, pod, att, 1);
        CHECK(jv_str(att[0], "finishTime") != NULL);
        CHECK(jv_num(att[0], "exitCode") != 0); /* stopped, not finished */
        CHECK_STR(jv_str(att[0], "reason"), "Stopped");
        CHECK(time_ms(jv_str(att[0], "finishTime")) - time_ms(jv_str(att[0], "startTime")) < 10000);
    }
    json_decref(h);
    char names[512];
    pod_names(s, "distcc", names, sizeof names);
    CHECK_STR(names, "distcc-master-0");
    CHECK(attempts_gone(s, "distcc", 5000));
}

/* minSuccess 2 of 5: two quick successes complete the job; the three sleepers are stopped. */
static void min_success_completes_the_job_early(void)
{
    struct test_server *s = lifecycle_server();
    REQUIRE(s);
    CHECK(job_wait(s, "minsuccess", "status.state.phase", "Completed", WAIT_MS) == 0);
    CHECK(job_wait(s, "minsuccess", "status.running", "0", 5000) == 0);
    json_t *job = job_get(s, "minsuccess");
    CHECK_INT(jv_num(job, "status.succeeded"), 2);
    CHECK_INT(jv_num(job, "status.terminating"), 0);
    json_decref(job);
    json_t *h = job_history(s, "minsuccess");
    json_t *att[MAX_ATTEMPTS];
    for (int i = 0; i < 5; i++) {
        char pod[64];
        snprintf(pod, sizeof pod, "minsuccess-w-%d", i);
        REQUIRE_ATTEMPTS(h, pod, att, 1);
        CHECK(jv_str(att[0], "finishTime") != NULL);
        if (i < 2) {
            CHECK_INT(jv_num(att[0], "exitCode"), 0);
            CHECK_STR(jv_str(att[0], "reason"), "Completed");
        } else {
            CHECK(jv_num(att[0], "exitCode") != 0);
            CHECK_STR(jv_str(att[0], "reason"), "Stopped");
        }
    }
    json_decref(h);
    char names[512];
    pod_names(s, "minsuccess", names, sizeof names);
    CHECK_STR(names, "minsuccess-w-0,minsuccess-w-1"); /* the finished pods are kept, the stopped ones gone */
    CHECK(attempts_gone(s, "minsuccess", 5000));
}

/* An exitCode policy: exit 3 terminates the job, stopping the replica still running. */
static void exit_code_policy_terminates_the_job(void)
{
    struct test_server *s = lifecycle_server();
    REQUIRE(s);
    CHECK(job_wait(s, "exitcode", "status.state.phase", "Terminated", WAIT_MS) == 0);
    json_t *h = job_history(s, "exitcode");
    json_t *att[MAX_ATTEMPTS];
    REQUIRE_ATTEMPTS(h, "exitcode-w-0", att, 1);
    CHECK_INT(jv_num(att[0], "exitCode"), 3);
    CHECK_STR(jv_str(att[0], "reason"), "Error");
    REQUIRE_ATTEMPTS(h, "exitcode-w-1", att, 1);
    CHECK_STR(jv_str(att[0], "reason"), "Stopped");
    json_t *terminating = transition(h, "TerminateJob");
    CHECK(terminating != NULL);
    CHECK_CONTAINS(jv_str(terminating, "message"), "exitCode 3");
    json_decref(h);
    char names[512];
    pod_names(s, "exitcode", names, sizeof names);
    CHECK_STR(names, "exitcode-w-0");
    CHECK(attempts_gone(s, "exitcode", 5000));
}

/* dependsOn: b's pod exists only once a runs, so b starts after a started, while a still runs. */
static void depends_on_starts_b_once_a_runs(void)
{
    struct test_server *s = lifecycle_server();
    REQUIRE(s);
    CHECK(job_wait(s, "depends", "status.state.phase", "Completed", WAIT_MS) == 0);
    json_t *h = job_history(s, "depends");
    json_t *a[MAX_ATTEMPTS], *b[MAX_ATTEMPTS];
    REQUIRE_ATTEMPTS(h, "depends-a-0", a, 1);
    REQUIRE_ATTEMPTS(h, "depends-b-0", b, 1);
    long long a_start = time_ms(jv_str(a[0], "startTime")), a_end = time_ms(jv_str(a[0], "finishTime"));
    long long b_start = time_ms(jv_str(b[0], "startTime"));
    CHECK(a_start > 0 && b_start > 0);
    CHECK(b_start >= a_start);
    CHECK(b_start <= a_end); /* Running is enough: b does not wait for a to finish */
    CHECK_INT(jv_num(a[0], "exitCode"), 0);
    CHECK_INT(jv_num(b[0], "exitCode"), 0);
    json_decref(h);
    char dir[1024];
    work_dir(s, "depends", dir, sizeof dir);
    long long a_file = file_number(dir, "a.start"), a_done = file_number(dir, "a.end"),
              b_file = file_number(dir, "b.start");
    CHECK(a_file > 0 && a_done > 0 && b_file > 0);
    /* b's process ran after a's was started and before a finished. (Not necessarily after a's first
     * line: a is Running once spawned, and the two shells then race.) */
    CHECK(b_file >= a_start * 1000000);
    CHECK(b_file <= a_done);
}

/* Commands: AbortJob as a Volcano Command, resume and terminate with jobctl, restart over HTTP. */
static void commands_abort_resume_terminate_restart(void)
{
    struct test_server *s = lifecycle_server();
    REQUIRE(s);
    REQUIRE(job_wait(s, "suspend", "status.running", "2", WAIT_MS) == 0);
    long code;
    json_t *r = server_request(s, "POST", COMMANDS,
                               "apiVersion: bus.volcano.sh/v1alpha1\nkind: Command\nmetadata: {generateName: x-}\n"
                               "action: AbortJob\n"
                               "target: {apiVersion: batch.volcano.sh/v1alpha1, kind: Job, name: suspend}\n",
                               "application/yaml", &code);
    CHECK_INT(code, 201);
    CHECK_STR(jv_str(r, "kind"), "Command");
    CHECK(jv_str(r, "metadata.name") && strncmp(jv_str(r, "metadata.name"), "x-", 2) == 0 &&
          strlen(jv_str(r, "metadata.name")) > 2);
    json_decref(r);
    CHECK(job_wait(s, "suspend", "status.state.phase", "Aborted", WAIT_MS) == 0);
    CHECK(attempts_gone(s, "suspend", 5000));
    char names[512];
    pod_names(s, "suspend", names, sizeof names);
    CHECK_STR(names, "");

    char *out = NULL, *err = NULL;
    const char *resume[] = {"resume", "suspend", NULL};
    CHECK_INT(server_jobctl(s, resume, &out, &err), 0);
    CHECK_CONTAINS(out, "job.batch.volcano.sh/suspend resume");
    free(out);
    free(err);
    CHECK(job_wait(s, "suspend", "status.state.phase", "Running", WAIT_MS) == 0);
    CHECK(job_wait(s, "suspend", "status.running", "2", WAIT_MS) == 0);
    CHECK(history_wait(s, "suspend", "attempts.1.attempt", "2", WAIT_MS) == 0);

    const char *terminate[] = {"terminate", "suspend", NULL};
    CHECK_INT(server_jobctl(s, terminate, &out, &err), 0);
    free(out);
    free(err);
    CHECK(job_wait(s, "suspend", "status.state.phase", "Terminated", WAIT_MS) == 0);
    CHECK(attempts_gone(s, "suspend", 5000));

    REQUIRE(job_wait(s, "restart", "status.running", "1", WAIT_MS) == 0);
    r = server_request(s, "POST", HISTORY "/restart/restart", "{}", NULL, &code);
    CHECK_INT(code, 200);
    json_decref(r);
    CHECK(job_wait(s, "restart", "status.retryCount", "1", WAIT_MS) == 0);
    CHECK(history_wait(s, "restart", "attempts.1.jobVersion", "1", WAIT_MS) == 0);
    CHECK(job_wait(s, "restart", "status.state.phase", "Running", WAIT_MS) == 0);
    json_t *h = job_history(s, "restart");
    CHECK(jv_str(h, "attempts.0.finishTime") != NULL);
    CHECK_STR(jv_str(h, "attempts.0.reason"), "Stopped");
    CHECK_INT(jv_num(h, "attempts.1.attempt"), 2);
    json_decref(h);

    r = server_request(s, "POST", HISTORY "/restart/explode", "{}", NULL, &code);
    CHECK_INT(code, 404);
    CHECK_STR(jv_str(r, "kind"), "Status");
    CHECK_STR(jv_str(r, "reason"), "NotFound");
    json_decref(r);
    r = server_request(
        s, "POST", COMMANDS,
        "{\"apiVersion\":\"bus.volcano.sh/v1alpha1\",\"kind\":\"Command\",\"metadata\":{\"name\":\"boom\"},"
        "\"action\":\"Explode\",\"target\":{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\","
        "\"name\":\"restart\"}}",
        NULL, &code);
    CHECK_INT(code, 422);
    CHECK_STR(jv_str(r, "kind"), "Status");
    CHECK_STR(jv_str(r, "details.causes.0.field"), "action");
    CHECK_CONTAINS(jv_str(r, "message"), "Explode");
    json_decref(r);
    CHECK(job_wait(s, "restart", "status.state.phase", "Running", 1000) == 0); /* the bad command did nothing */

    r = server_request(s, "POST", HISTORY "/restart/terminate", "{}", NULL, &code);
    CHECK_INT(code, 200);
    json_decref(r);
    CHECK(job_wait(s, "restart", "status.state.phase", "Terminated", WAIT_MS) == 0);
    CHECK(attempts_gone(s, "restart", 5000));
}

/* ttlSecondsAfterFinished: 1 s after Completed the job leaves the API; its history stays. */
static void ttl_removes_the_finished_job_and_keeps_its_history(void)
{
    struct test_server *s = lifecycle_server();
    REQUIRE(s);
    CHECK(history_wait(s, "ttl", "phase", "Completed", WAIT_MS) == 0);
    CHECK(job_wait(s, "ttl", "code", "404", 5000) == 0);
    long code;
    json_t *h = api_get(s, HISTORY "/%s/history", "ttl", &code);
    CHECK_INT(code, 200);
    CHECK_STR(jv_str(h, "phase"), "Completed");
    CHECK(jv_str(h, "metadata.deletionTimestamp") != NULL);
    CHECK_INT(jv_num(h, "attempts.0.exitCode"), 0);
    long long finished = -1;
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(h, "transitions"), i, t)
    {
        if (jv_str(t, "to") && strcmp(jv_str(t, "to"), "Completed") == 0)
            finished = time_ms(jv_str(t, "time"));
    }
    long long deleted = time_ms(jv_str(h, "metadata.deletionTimestamp"));
    CHECK(finished > 0);
    CHECK(deleted - finished >= 1000); /* not before its TTL */
    CHECK(deleted - finished < 5000);
    json_decref(h);
    json_t *pod = api_get(s, PODS "/%s", "ttl-t-0", &code);
    CHECK_INT(code, 404);
    json_decref(pod);
}

/* restartPolicy OnFailure with a 100 ms back-off: two failures restart the container in place (after
 * 100 then 200 ms), the third run succeeds. */
static void on_failure_restarts_in_place_with_backoff(void)
{
    struct test_server *s = lifecycle_server();
    REQUIRE(s);
    CHECK(job_wait(s, "onfailure", "status.state.phase", "Completed", WAIT_MS) == 0);
    long code;
    json_t *pod = api_get(s, PODS "/%s", "onfailure-t-0", &code);
    CHECK_INT(code, 200);
    CHECK_INT(jv_num(pod, "status.containerStatuses.0.restartCount"), 2);
    CHECK_INT(jv_num(pod, "status.containerStatuses.0.state.terminated.exitCode"), 0);
    CHECK_STR(jv_str(pod, "status.phase"), "Succeeded");
    json_decref(pod);
    json_t *job = job_get(s, "onfailure");
    CHECK_INT(jv_num(job, "status.retryCount"), 0);
    CHECK_INT(jv_num(job, "status.version"), 0);
    json_decref(job);
    json_t *h = job_history(s, "onfailure");
    json_t *att[MAX_ATTEMPTS];
    REQUIRE_ATTEMPTS(h, "onfailure-t-0", att, 3);
    for (int i = 0; i < 3; i++) {
        CHECK_INT(jv_num(att[i], "jobVersion"), 0);
        CHECK_INT(jv_num(att[i], "exitCode"), i < 2 ? 1 : 0);
        const char *outcome = jv_str(att[i], "outcome"); /* left out when the pod ended with the attempt */
        CHECK_STR(outcome ? outcome : "", i < 2 ? "Restarting" : "");
    }
    long long gap1 = time_ms(jv_str(att[1], "startTime")) - time_ms(jv_str(att[0], "finishTime"));
    long long gap2 = time_ms(jv_str(att[2], "startTime")) - time_ms(jv_str(att[1], "finishTime"));
    /* The back-off runs from the core's clock of the loop that saw the exit, which can read a few ms
     * before the exit time recorded: allow 10 ms. */
    if (!(gap1 >= 90 && gap1 < 2000))
        test_fail(__FILE__, __LINE__, "restart 1 came %lld ms after the exit, expected 100 ms (the back-off)", gap1);
    if (!(gap2 >= 190 && gap2 < 2000)) /* the back-off doubles */
        test_fail(__FILE__, __LINE__, "restart 2 came %lld ms after the exit, expected 200 ms (the back-off)", gap2);
    json_decref(h);
    char *log = server_request_text(s, "GET", PODS "/onfailure-t-0/log", &code);
    CHECK_CONTAINS(log, "run 3");
    free(log);
    log = server_request_text(s, "GET", PODS "/onfailure-t-0/log?previous=true", &code);
    CHECK_CONTAINS(log, "run 2");
    free(log);
}

/* Stops the shared server; it must exit cleanly (no sanitizer report, nothing left running). */
/* PUT with more replicas: the new pods run beside the old one; a change of anything else is a 422
 * naming spec; a stale resourceVersion is a 409. */
static void put_scales_a_running_job(void)
{
    struct test_server *s = lifecycle_server();
    REQUIRE(s);
    CHECK(job_wait(s, "scale", "status.running", "1", WAIT_MS) == 0);
    long code;
    json_t *r = server_request(s, "PUT", JOBS "/scale",
                               job_yaml("scale", "  minAvailable: 1\n", TASK("t", 3, "", "'exec sleep 300'", "")),
                               "application/yaml", &code);
    CHECK_INT(code, 200);
    CHECK_INT(jv_num(r, "metadata.generation"), 2);
    json_decref(r);
    CHECK(job_wait(s, "scale", "status.running", "3", WAIT_MS) == 0);
    r = server_request(s, "PUT", JOBS "/scale",
                       job_yaml("scale", "  maxRetry: 7\n", TASK("t", 3, "", "'exec sleep 300'", "")),
                       "application/yaml", &code);
    CHECK_INT(code, 422);
    CHECK_CONTAINS(jv_str(r, "message"), "spec: Forbidden: job updates may not change fields other than");
    json_decref(r);
    r = server_request(
        s, "PUT", JOBS "/scale",
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: scale, resourceVersion: \"1\"}\n"
        "spec:\n  tasks:\n  - {name: t, replicas: 2, template: {spec: {containers: [{name: c, command: [x]}]}}}\n",
        "application/yaml", &code);
    CHECK_INT(code, 409);
    json_decref(r);
    r = server_request(s, "DELETE", JOBS "/scale", NULL, NULL, &code);
    json_decref(r);
}

/* Where cgroups cannot be written, tasks run without limits and /healthz says so (here a v2 root
 * that is no cgroup2 mount stands for a machine without writable cgroups). */
static void without_cgroups_tasks_run_and_healthz_warns(void)
{
    setenv("CALDERA_CGROUP2_ROOT", "/nonexistent-cgroup", 1);
    struct test_server s;
    int rc = server_start(&s, NULL, NULL);
    unsetenv("CALDERA_CGROUP2_ROOT");
    REQUIRE(rc == 0);
    long code;
    char *health = server_request_text(&s, "GET", "/healthz", &code);
    CHECK_INT(code, 200);
    CHECK_CONTAINS(health, "ok\nwarning: cgroups not writable: tasks run without limits");
    free(health);
    CHECK_INT(job_submit(&s, "free", "",
                         TASK("t", 1, "", "'echo unlimited'", "          resources: {limits: {memory: 50Mi}}\n")),
              201);
    CHECK(job_wait(&s, "free", "status.state.phase", "Completed", WAIT_MS) == 0);
    char *log = NULL;
    for (int i = 0; i < 3 && !log; i++)
        log = server_request_text(&s, "GET", PODS "/free-t-0/log", &code);
    CHECK_CONTAINS(log, "unlimited");
    free(log);
    server_stop(&s);
    char *server_log = NULL;
    CHECK(read_file(s.log_path, 1 << 20, &server_log, NULL) == 0);
    CHECK_CONTAINS(server_log, "cgroups not writable: tasks run without limits");
    free(server_log);
    server_cleanup(&s);
}

static void shared_server_stops_cleanly(void)
{
    if (!shared_up)
        return;
    CHECK_INT(server_stop(&shared), 0);
    server_cleanup(&shared);
    shared_up = false;
}

/* --- a crash ------------------------------------------------------------------------------------ */

/* The server log's lines that say "error" or "warn", on stderr, to show why a recovery went wrong. */
static void print_log_problems(const struct test_server *s)
{
    char *log = NULL;
    if (read_file(s->log_path, 1 << 20, &log, NULL) != 0)
        return;
    int printed = 0;
    for (char *save = NULL, *line = strtok_r(log, "\n", &save); line && printed < 20;
         line = strtok_r(NULL, "\n", &save))
        if (strstr(line, " error ") || strstr(line, " warn ")) {
            fprintf(stderr, "  %s: %s\n", s->log_path, line);
            printed++;
        }
    free(log);
}

/* After the restart: the attempts that ran through the crash were adopted and end with their real
 * exit codes, and each job goes on to the phase its policies lead to. */
static void check_recovered(const struct test_server *s, const long long *pids, int npids)
{
    if (job_wait(s, "crashretry", "status.state.phase", "Failed", WAIT_MS) != 0) {
        /* the rest waits on the same recovery: say why it is stuck instead of waiting again */
        test_fail(__FILE__, __LINE__, "crashretry did not reach Failed after the restart");
        print_log_problems(s);
        return;
    }
    json_t *job = job_get(s, "crashretry");
    CHECK_INT(jv_num(job, "status.retryCount"), 2);
    json_decref(job);
    json_t *h = job_history(s, "crashretry");
    json_t *att[MAX_ATTEMPTS];
    /* maxRetry 2: the second failure, the adopted attempt's, is the last */
    if (pod_attempts(h, "crashretry-t-0", att, MAX_ATTEMPTS) == 2) {
        for (int i = 0; i < 2; i++) {
            CHECK_INT(jv_num(att[i], "jobVersion"), i);
            CHECK_INT(jv_num(att[i], "exitCode"), 1); /* the second ran through the crash: adopted */
            CHECK_STR(jv_str(att[i], "reason"), "Error");
        }
    } else {
        test_fail(__FILE__, __LINE__, "crashretry-t-0: %d attempts, expected 2",
                  pod_attempts(h, "crashretry-t-0", att, MAX_ATTEMPTS));
    }
    json_decref(h);

    CHECK(job_wait(s, "crashdistcc", "status.state.phase", "Completed", WAIT_MS) == 0);
    job = job_get(s, "crashdistcc");
    CHECK_INT(jv_num(job, "status.succeeded"), 1);
    CHECK_INT(jv_num(job, "status.running"), 0);
    json_decref(job);
    h = job_history(s, "crashdistcc");
    if (pod_attempts(h, "crashdistcc-master-0", att, MAX_ATTEMPTS) == 1) {
        CHECK_STR(jv_str(att[0], "reason"), "Completed"); /* adopted, then it finished */
        CHECK_INT(jv_num(att[0], "exitCode"), 0);
        CHECK_INT(jv_num(att[0], "pid"), pids[0]);
    } else {
        test_fail(__FILE__, __LINE__, "crashdistcc-master-0: %d attempts, expected 1",
                  pod_attempts(h, "crashdistcc-master-0", att, MAX_ATTEMPTS));
    }
    json_decref(h);
    char names[512];
    pod_names(s, "crashdistcc", names, sizeof names);
    CHECK_STR(names, "crashdistcc-master-0");
    CHECK(attempts_gone(s, "crashdistcc", 5000));
    for (int p = 0; p < npids; p++)
        CHECK(pid_gone(pids[p]));
}

/* kill -9 while two jobs with policies run, then a restart on the same data: the running attempts are
 * adopted, and the jobs keep going (a retry counted before the crash stays counted). */
static void crash_recovery_keeps_policies_going(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, shared_args) == 0);
    CHECK_INT(job_submit(&s, "crashretry", "  maxRetry: 2\n  policies:\n  - {event: PodFailed, action: RestartJob}\n",
                         TASK("t", 1, "", "'sleep 2; exit 1'", "")),
              201);
    CHECK_INT(job_submit(&s, "crashdistcc", "",
                         TASK("master", 1, "    policies:\n    - {event: TaskCompleted, action: CompleteJob}\n",
                              "'sleep 3; exit 0'", "") TASK("worker", 2, "", "'exec sleep 300'", "")),
              201);
    CHECK(job_wait(&s, "crashdistcc", "status.running", "3", WAIT_MS) == 0);
    /* crashretry's first run fails after 2 s: the job restarts (retryCount 1) and runs version 1 */
    CHECK(history_wait(&s, "crashretry", "attempts.1.jobVersion", "1", WAIT_MS) == 0);
    CHECK(job_wait(&s, "crashretry", "status.running", "1", WAIT_MS) == 0);
    json_t *before = job_history(&s, "crashdistcc");
    long long pids[8];
    int npids = 0;
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(before, "attempts"), i, a)
    {
        if (npids < 8)
            pids[npids++] = jv_num(a, "pid");
    }
    json_decref(before);
    CHECK_INT(npids, 3);
    server_kill9(&s);
    if (server_start(&s, s.data_dir, shared_args) != 0) {
        test_fail(__FILE__, __LINE__, "the server did not start again on %s", s.data_dir);
        server_cleanup(&s);
        return;
    }
    check_recovered(&s, pids, npids);
    if (test_failed_checks)
        server_kill9(&s); /* it may be stuck: its log lines are above */
    else
        CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

TEST_MAIN(TEST_CASE(oom_kill_scales_memory_and_the_rerun_succeeds),
          TEST_CASE(pod_failed_restarts_the_job_up_to_max_retry), TEST_CASE(recreated_pods_count_no_restarts),
          TEST_CASE(task_completed_completes_the_job_and_stops_workers), TEST_CASE(min_success_completes_the_job_early),
          TEST_CASE(exit_code_policy_terminates_the_job), TEST_CASE(depends_on_starts_b_once_a_runs),
          TEST_CASE(commands_abort_resume_terminate_restart),
          TEST_CASE(ttl_removes_the_finished_job_and_keeps_its_history),
          TEST_CASE(on_failure_restarts_in_place_with_backoff), TEST_CASE(put_scales_a_running_job),
          TEST_CASE(without_cgroups_tasks_run_and_healthz_warns), TEST_CASE(shared_server_stops_cleanly),
          TEST_CASE(crash_recovery_keeps_policies_going))
