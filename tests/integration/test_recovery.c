/* Tasks outliving the server: a crash or a stop with --keep-tasks leaves them running, the next
 * start adopts the live ones and records the real exit codes of those that ended meanwhile; an
 * attempt nobody can account for is Unknown, and a task whose start was never recorded is killed. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define WAIT_MS 20000
#define CGROUP_V1_MEMORY "/sys/fs/cgroup/memory/caldera"

static const char *const args[] = {"--shutdown-grace", "2", NULL};

/* The job's exits file, where the supervisors write how each attempt ended. */
static void exits_path(const struct test_server *s, const char *job, char *buf, size_t len)
{
    json_t *j = job_get(s, job);
    snprintf(buf, len, "%s/jobs/%s/exits", s->data_dir, jv_str(j, "metadata.uid") ? jv_str(j, "metadata.uid") : "?");
    json_decref(j);
}

static int count_lines(const char *path)
{
    char *data = NULL;
    if (read_file(path, 1 << 20, &data, NULL) != 0)
        return 0;
    int n = 0;
    for (const char *p = data; *p; p++)
        n += *p == '\n';
    free(data);
    return n;
}

/* Waits (at most ms) until the file holds n lines. */
static bool wait_lines(const char *path, int n, int ms)
{
    for (int waited = 0; waited < ms; waited += 50) {
        if (count_lines(path) >= n)
            return true;
        usleep(50000);
    }
    return false;
}

/* The pids of the job's attempts that have not ended (from its history). */
static int running_pids(const struct test_server *s, const char *job, long long *pids, int max)
{
    json_t *h = job_history(s, job);
    int n = 0;
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(h, "attempts"), i, a)
    {
        if (json_is_null(json_object_get(a, "finishTime")) && n < max)
            pids[n++] = jv_num(a, "pid");
    }
    json_decref(h);
    return n;
}

/* Tasks that end while the server is down: the restart records their real codes and end times. */
static void exit_while_down_keeps_its_code(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    CHECK_INT(job_submit(&s, "down", "  minAvailable: 2\n", TASK("t", 2, "", "'sleep 1; exit 7'", "")), 201);
    REQUIRE(job_wait(&s, "down", "status.running", "2", WAIT_MS) == 0);
    char exits[512];
    exits_path(&s, "down", exits, sizeof exits);
    server_kill9(&s);
    CHECK(wait_lines(exits, 2, 10000)); /* both ended while nobody watched */
    long long down_ms = (long long)time(NULL) * 1000;
    REQUIRE(server_start(&s, s.data_dir, args) == 0);
    CHECK(job_wait(&s, "down", "status.state.phase", "Failed", WAIT_MS) == 0);
    json_t *h = job_history(&s, "down");
    json_t *att[MAX_ATTEMPTS];
    for (int i = 0; i < 2; i++) {
        char pod[32];
        snprintf(pod, sizeof pod, "down-t-%d", i);
        REQUIRE_ATTEMPTS(h, pod, att, 1);
        CHECK_INT(jv_num(att[0], "exitCode"), 7);
        CHECK_STR(jv_str(att[0], "reason"), "Error");
        const char *finish = jv_str(att[0], "finishTime");
        CHECK(finish != NULL);
        /* the time the supervisor wrote, not the restart's */
        struct tm tm = {0};
        if (finish && strptime(finish, "%Y-%m-%dT%H:%M:%S", &tm))
            CHECK(timegm(&tm) * 1000LL <= down_ms);
    }
    json_decref(h);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* A task killed with its supervisor while the server is down leaves no status: Unknown. Without a
 * policy for it the pod is created again and runs; with one, the policy decides. */
static void lost_attempt_is_unknown_and_policies_decide(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    CHECK_INT(job_submit(&s, "again", "", TASK("t", 1, "", "'test -f done && exit 0; touch done; sleep 300'", "")),
              201);
    CHECK_INT(job_submit(&s, "abort", "  policies:\n  - {event: Unknown, action: AbortJob}\n",
                         TASK("t", 1, "", "'sleep 300'", "")),
              201);
    REQUIRE(job_wait(&s, "again", "status.running", "1", WAIT_MS) == 0);
    REQUIRE(job_wait(&s, "abort", "status.running", "1", WAIT_MS) == 0);
    long long pids[4];
    int n = running_pids(&s, "again", pids, 2);
    n += running_pids(&s, "abort", pids + n, 2);
    REQUIRE(n == 2);
    server_kill9(&s);
    for (int i = 0; i < n; i++) {
        kill(-(pid_t)pids[i], SIGKILL); /* the supervisor's whole group: nothing can write a status */
        for (int w = 0; w < 100 && !pid_gone(pids[i]); w++)
            usleep(20000);
    }
    REQUIRE(server_start(&s, s.data_dir, args) == 0);
    CHECK(job_wait(&s, "again", "status.state.phase", "Completed", WAIT_MS) == 0);
    CHECK(job_wait(&s, "abort", "status.state.phase", "Aborted", WAIT_MS) == 0);
    json_t *h = job_history(&s, "again");
    json_t *att[MAX_ATTEMPTS];
    REQUIRE_ATTEMPTS(h, "again-t-0", att, 2);
    CHECK_STR(jv_str(att[0], "reason"), "Unknown");
    CHECK_INT(jv_num(att[0], "exitCode"), -1);
    CHECK_STR(jv_str(att[1], "reason"), "Completed");
    json_decref(h);
    h = job_history(&s, "abort");
    REQUIRE_ATTEMPTS(h, "abort-t-0", att, 1);
    CHECK_STR(jv_str(att[0], "reason"), "Unknown");
    json_decref(h);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* --keep-tasks: SIGTERM leaves the task running; the next server adopts it and sees it finish. */
static void keep_tasks_leaves_tasks_for_the_next_server(void)
{
    struct test_server s;
    const char *const keep[] = {"--shutdown-grace", "2", "--keep-tasks", NULL};
    REQUIRE(server_start(&s, NULL, keep) == 0);
    CHECK_INT(job_submit(&s, "kept", "", TASK("t", 1, "", "'sleep 2; echo finished; exit 3'", "")), 201);
    REQUIRE(job_wait(&s, "kept", "status.running", "1", WAIT_MS) == 0);
    long long pid;
    REQUIRE(running_pids(&s, "kept", &pid, 1) == 1);
    CHECK_INT(server_stop(&s), 0);
    CHECK(!pid_gone(pid)); /* still running without a server */
    REQUIRE(server_start(&s, s.data_dir, args) == 0);
    CHECK(job_wait(&s, "kept", "status.state.phase", "Failed", WAIT_MS) == 0);
    json_t *h = job_history(&s, "kept");
    json_t *att[MAX_ATTEMPTS];
    REQUIRE_ATTEMPTS(h, "kept-t-0", att, 1);
    CHECK_INT(jv_num(att[0], "exitCode"), 3);
    CHECK_INT(jv_num(att[0], "pid"), pid);
    json_decref(h);
    long code;
    char *log = server_request_text(&s, "GET", "/api/v1/namespaces/default/pods/kept-t-0/log", &code);
    CHECK_CONTAINS(log, "finished");
    free(log);
    /* the default stop still stops what runs */
    CHECK_INT(job_submit(&s, "stopped", "", TASK("t", 1, "", "'sleep 300'", "")), 201);
    REQUIRE(job_wait(&s, "stopped", "status.running", "1", WAIT_MS) == 0);
    REQUIRE(running_pids(&s, "stopped", &pid, 1) == 1);
    CHECK_INT(server_stop(&s), 0);
    CHECK(pid_gone(pid));
    server_cleanup(&s);
}

/* A task the last run started but never recorded (it crashed in between) runs in a cgroup named for
 * an attempt of one of this data directory's jobs that no row knows: the start kills it. */
static void unrecorded_task_is_killed_at_start(void)
{
    struct stat st;
    SKIP_IF(stat(CGROUP_V1_MEMORY, &st) != 0, "needs the cgroup v1 memory hierarchy (%s)", CGROUP_V1_MEMORY);
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    CHECK_INT(job_submit(&s, "ghost", "", TASK("t", 1, "", "'exit 0'", "")), 201);
    REQUIRE(job_wait(&s, "ghost", "status.state.phase", "Completed", WAIT_MS) == 0);
    json_t *j = job_get(&s, "ghost");
    char cgroup[512];
    snprintf(cgroup, sizeof cgroup, CGROUP_V1_MEMORY "/ghost-t-0.9.%s", jv_str(j, "metadata.uid"));
    json_decref(j);
    server_kill9(&s);
    REQUIRE(mkdir(cgroup, 0755) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        char procs[600];
        snprintf(procs, sizeof procs, "%s/cgroup.procs", cgroup);
        FILE *f = fopen(procs, "w");
        if (f) {
            fprintf(f, "0\n");
            fclose(f);
        }
        execlp("sleep", "sleep", "300", (char *)NULL);
        _exit(127);
    }
    usleep(100000);
    REQUIRE(server_start(&s, s.data_dir, args) == 0);
    bool gone = false;
    for (int w = 0; w < 100 && !gone; w++) {
        gone = waitpid(pid, NULL, WNOHANG) == pid;
        usleep(50000);
    }
    CHECK(gone);
    for (int w = 0; w < 100 && stat(cgroup, &st) == 0; w++)
        usleep(50000);
    CHECK(stat(cgroup, &st) != 0);
    if (!gone) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    rmdir(cgroup);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* Finished jobs come back from a restart as they were: their status, pods, PodGroup, queue counts
 * and listing (they are parsed only when first read), and one can be deleted and its name reused. */
static void finished_jobs_read_the_same_after_a_restart(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    CHECK_INT(job_submit(&s, "done", "", TASK("t", 2, "", "'echo hi; exit 0'", "")), 201);
    CHECK_INT(job_submit(&s, "broke", "  maxRetry: 1\n", TASK("t", 1, "", "'exit 4'", "")), 201);
    REQUIRE(job_wait(&s, "done", "status.state.phase", "Completed", WAIT_MS) == 0);
    REQUIRE(job_wait(&s, "broke", "status.state.phase", "Failed", WAIT_MS) == 0);
    json_t *before = job_get(&s, "done");
    long code;
    json_t *pods_before = server_request(
        &s, "GET", "/api/v1/namespaces/default/pods?labelSelector=volcano.sh/job-name=done", NULL, NULL, &code);
    CHECK_INT(server_stop(&s), 0);
    REQUIRE(server_start(&s, s.data_dir, args) == 0);
    /* listed before anything looked them up one by one */
    json_t *queue = server_request(&s, "GET", "/apis/scheduling.volcano.sh/v1beta1/queues/default", NULL, NULL, &code);
    CHECK_INT(jv_num(queue, "status.completed"), 2);
    json_decref(queue);
    json_t *list = server_request(&s, "GET", JOBS, NULL, NULL, &code);
    CHECK_INT(json_array_size(json_object_get(list, "items")), 2);
    json_decref(list);
    json_t *after = job_get(&s, "done");
    CHECK_STR(jv_str(after, "status.state.phase"), "Completed");
    CHECK_INT(jv_num(after, "status.succeeded"), jv_num(before, "status.succeeded"));
    CHECK_INT(jv_num(after, "status.succeeded"), 2);
    CHECK_STR(jv_str(after, "metadata.uid"), jv_str(before, "metadata.uid"));
    CHECK(json_equal(json_object_get(after, "spec"), json_object_get(before, "spec")));
    json_decref(after);
    json_decref(before);
    json_t *pods = server_request(&s, "GET", "/api/v1/namespaces/default/pods?labelSelector=volcano.sh/job-name=done",
                                  NULL, NULL, &code);
    CHECK_INT(json_array_size(json_object_get(pods, "items")), 2);
    CHECK_STR(jv_str(pods, "items.0.status.phase"), "Succeeded");
    CHECK_STR(jv_str(pods, "items.0.metadata.name"), jv_str(pods_before, "items.0.metadata.name"));
    json_decref(pods);
    json_decref(pods_before);
    char *log = server_request_text(&s, "GET", "/api/v1/namespaces/default/pods/done-t-1/log", &code);
    CHECK_INT(code, 200);
    CHECK_CONTAINS(log, "hi");
    free(log);
    json_t *broke = job_get(&s, "broke");
    CHECK_STR(jv_str(broke, "status.state.phase"), "Failed");
    CHECK_INT(jv_num(broke, "status.failed"), 1);
    json_decref(broke);
    json_t *pg = server_request(&s, "GET", "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups/broke",
                                NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(jv_str(pg, "status.phase"), "Completed");
    json_decref(pg);
    json_decref(server_request(&s, "DELETE", JOBS "/broke", NULL, NULL, &code));
    CHECK_INT(code, 200);
    CHECK_INT(job_submit(&s, "broke", "", TASK("t", 1, "", "'exit 0'", "")), 201);
    CHECK(job_wait(&s, "broke", "status.state.phase", "Completed", WAIT_MS) == 0);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* A job that finished while one of its pods still ran (a PyTorchJob's master succeeded; by the
 * operator's default its worker is left to finish), then the server was killed: the next start keeps
 * finished jobs unread in the database, but this one's running attempt wakes it during the load. The
 * master's ended attempt, streamed before the worker's and skipped, is read back with the job. */
static void finished_job_with_a_running_pod_wakes_at_start(void)
{
    static const char pytorchjob[] =
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: half\nspec:\n"
        "  pytorchReplicaSpecs:\n"
        "    Master:\n      restartPolicy: Never\n      template:\n        spec:\n"
        "          containers:\n          - name: pytorch\n            command: [sh, -c, 'echo master done']\n"
        "    Worker:\n      replicas: 1\n      restartPolicy: Never\n      template:\n"
        "        spec:\n          terminationGracePeriodSeconds: 1\n"
        "          containers:\n          - name: pytorch\n            command: [sleep, '60']\n";
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    long code;
    json_decref(server_request(&s, "POST", "/apis/kubeflow.org/v1/namespaces/default/pytorchjobs", pytorchjob,
                               "application/yaml", &code));
    CHECK_INT(code, 201);
    REQUIRE(job_wait(&s, "half", "status.state.phase", "Completed", WAIT_MS) == 0);
    long long pid;
    REQUIRE(running_pids(&s, "half", &pid, 1) == 1);
    server_kill9(&s);
    REQUIRE(server_start(&s, s.data_dir, args) == 0);
    json_t *job = job_get(&s, "half");
    CHECK_STR(jv_str(job, "status.state.phase"), "Completed");
    CHECK_INT(jv_num(job, "status.succeeded"), 1);
    CHECK_INT(jv_num(job, "status.running"), 1);
    json_decref(job);
    json_t *pod = server_request(&s, "GET", "/api/v1/namespaces/default/pods/half-master-0", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(jv_str(pod, "status.phase"), "Succeeded");
    json_decref(pod);
    pod = server_request(&s, "GET", "/api/v1/namespaces/default/pods/half-worker-0", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(jv_str(pod, "status.phase"), "Running");
    json_decref(pod);
    char *log = server_pod_log(&s, "half-master-0");
    CHECK_CONTAINS(log, "master done");
    free(log);
    CHECK(!pid_gone(pid)); /* adopted, not killed as an orphan */
    json_decref(server_request(&s, "DELETE", JOBS "/half", NULL, NULL, &code));
    CHECK_INT(code, 200);
    CHECK_INT(server_stop(&s), 0);
    CHECK(pid_gone(pid));
    server_cleanup(&s);
}

TEST_MAIN(TEST_CASE(finished_jobs_read_the_same_after_a_restart),
          TEST_CASE(finished_job_with_a_running_pod_wakes_at_start), TEST_CASE(exit_while_down_keeps_its_code),
          TEST_CASE(lost_attempt_is_unknown_and_policies_decide),
          TEST_CASE(keep_tasks_leaves_tasks_for_the_next_server), TEST_CASE(unrecorded_task_is_killed_at_start))
