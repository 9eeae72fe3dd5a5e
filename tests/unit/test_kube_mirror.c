/* kube_mirror.c: Volcano Jobs and Pods as a real cluster writes them (kubelet's containerStatuses, the
 * scheduler's PodScheduled condition, Volcano's status.state) read into backend updates. */
#include <string.h>

#include "runtime/kube/kube_mirror.h"
#include "tests/lib/test.h"

static json_t *parse(const char *text)
{
    json_error_t err;
    json_t *v = json_loads(text, 0, &err);
    if (!v)
        test_fail(__FILE__, __LINE__, "bad fixture: %s", err.text);
    return v;
}

static void a_finished_pod(void)
{
    json_t *pod = parse(
        "{\"metadata\":{\"name\":\"train-worker-3\",\"namespace\":\"ml\",\"uid\":\"p-1\","
        "\"labels\":{\"caldera.io/uid\":\"0b7c\",\"volcano.sh/job-name\":\"train\"},"
        "\"annotations\":{\"volcano.sh/task-spec\":\"worker\"}},"
        "\"spec\":{\"nodeName\":\"gpu-07\"},"
        "\"status\":{\"phase\":\"Failed\",\"containerStatuses\":[{\"name\":\"c\",\"restartCount\":0,"
        "\"state\":{\"terminated\":{\"exitCode\":137,\"reason\":\"OOMKilled\",\"startedAt\":\"2026-11-22T08:15:00Z\","
        "\"finishedAt\":\"2026-11-22T08:16:40Z\"}}}]}}");
    struct kube_mirror_pod m;
    REQUIRE(kube_mirror_pod(pod, &m) == 0);
    CHECK_STR(m.u.task, "worker");
    CHECK_INT(m.u.index, 3);
    CHECK_STR(m.u.job_uid, "0b7c");
    CHECK_STR(m.u.ref, "ml/train-worker-3");
    CHECK_STR(m.u.node, "gpu-07");
    CHECK_INT(m.u.phase, BACKEND_POD_FAILED);
    CHECK_INT(m.u.exit_code, 137);
    CHECK_INT(m.u.term_signal, 9);
    CHECK_STR(m.u.reason, "OOMKilled");
    CHECK_INT(m.u.end_ms - m.u.start_ms, 100000);
    CHECK_STR(m.pod_uid, "p-1");
    json_decref(pod);
}

/* No task-spec annotation: the name's middle, after the job's name (which may hold dashes itself). */
static void the_task_from_the_name(void)
{
    json_t *pod = parse(
        "{\"metadata\":{\"name\":\"my-job-ps-worker-0\",\"labels\":{\"volcano.sh/job-name\":"
        "\"my-job\"}},\"status\":{\"phase\":\"Running\",\"containerStatuses\":[{\"restartCount\":2,"
        "\"state\":{\"running\":{\"startedAt\":\"2026-11-22T08:15:00Z\"}},\"lastState\":{"
        "\"terminated\":{\"exitCode\":1,\"reason\":\"Error\"}}}]}}");
    struct kube_mirror_pod m;
    REQUIRE(kube_mirror_pod(pod, &m) == 0);
    CHECK_STR(m.u.task, "ps-worker");
    CHECK_INT(m.u.index, 0);
    CHECK_INT(m.u.phase, BACKEND_POD_RUNNING);
    CHECK(m.u.start_ms > 0);
    CHECK_INT(m.restart_count, 2);
    CHECK(m.last.set);
    CHECK_INT(m.last.exit_code, 1);
    CHECK_STR(m.last.reason, "Error");
    json_decref(pod);
    /* a name that says no index, and VC_TASK_INDEX in the env */
    pod = parse(
        "{\"metadata\":{\"name\":\"odd\",\"labels\":{\"volcano.sh/task-spec\":\"w\"}},\"spec\":{"
        "\"containers\":[{\"env\":[{\"name\":\"VC_TASK_INDEX\",\"value\":\"4\"}]}]}}");
    REQUIRE(kube_mirror_pod(pod, &m) == 0);
    CHECK_STR(m.u.task, "w");
    CHECK_INT(m.u.index, 4);
    json_decref(pod);
    pod = parse("{\"metadata\":{\"name\":\"odd\"}}");
    CHECK_INT(kube_mirror_pod(pod, &m), -1);
    json_decref(pod);
}

static void an_unschedulable_pod(void)
{
    json_t *pod = parse(
        "{\"metadata\":{\"name\":\"j-w-0\"},\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":"
        "\"PodScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\",\"message\":\"0/3 nodes are "
        "available: 3 Insufficient nvidia.com/gpu.\"}]}}");
    struct kube_mirror_pod m;
    REQUIRE(kube_mirror_pod(pod, &m) == 0);
    CHECK_INT(m.u.phase, BACKEND_POD_PENDING);
    CHECK_STR(m.u.reason, "Unschedulable");
    CHECK_CONTAINS(m.u.message, "Insufficient nvidia.com/gpu");
    CHECK_STR(m.u.node, "");
    json_decref(pod);
}

static void a_volcano_job(void)
{
    json_t *job = parse(
        "{\"metadata\":{\"name\":\"train\",\"namespace\":\"ml\",\"labels\":{\"caldera.io/uid\":"
        "\"u1\"}},\"status\":{\"state\":{\"phase\":\"Restarting\",\"reason\":\"PodFailed\"},"
        "\"retryCount\":2}}");
    struct backend_update u = {0};
    kube_mirror_job(job, &u);
    CHECK_INT(u.kind, BACKEND_JOB_PHASE);
    CHECK_STR(u.job_phase, "Restarting");
    CHECK_INT(u.retry_count, 2);
    CHECK_STR(u.message, "PodFailed");
    CHECK_STR(kube_mirror_uid(job), "u1");
    char ref[BACKEND_REF_MAX];
    kube_mirror_ref(job, ref);
    CHECK_STR(ref, "ml/train");
    json_decref(job);
    job = parse("{\"metadata\":{\"name\":\"new\"}}"); /* the controller has not written a status yet */
    memset(&u, 0, sizeof u);
    kube_mirror_job(job, &u);
    CHECK_STR(u.job_phase, "Pending");
    CHECK(kube_mirror_uid(job) == NULL);
    json_decref(job);
}

TEST_MAIN(TEST_CASE(a_finished_pod), TEST_CASE(the_task_from_the_name), TEST_CASE(an_unschedulable_pod),
          TEST_CASE(a_volcano_job))
