/* The Kubernetes backend's attempt counting (kube_observe.c) without a cluster: pods fed as the watch
 * would see them. A kubelet restart (restartCount) ends the run before it from lastState and starts the
 * next attempt; a new pod uid under the same name is the next attempt; nothing is reported twice; news
 * seen before SENT is held and replayed after it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kube/kube_backend.h"
#include "tests/lib/test.h"

static struct backend_update got[32];
static int ngot;

static void post(void *ctx, struct backend_update *u)
{
    (void)ctx;
    if (ngot < 32)
        got[ngot++] = *u;
    backend_update_free(u);
}

/* A pod of job "j" (uid U1), task w, index 0, as kubelet writes it. */
static json_t *pod(const char *pod_uid, const char *phase, int restarts, const char *state, const char *last)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"metadata\":{\"name\":\"j-w-0\",\"namespace\":\"default\",\"uid\":\"%s\",\"labels\":{"
             "\"caldera.io/uid\":\"U1\",\"volcano.sh/job-name\":\"j\",\"volcano.sh/task-spec\":\"w\"}},"
             "\"spec\":{\"nodeName\":\"n1\"},\"status\":{\"phase\":\"%s\",\"containerStatuses\":[{\"name\":\"c\","
             "\"restartCount\":%d,\"state\":%s%s%s}]}}",
             pod_uid, phase, restarts, state, last ? ",\"lastState\":" : "", last ? last : "");
    json_t *v = json_loads(text, 0, NULL);
    if (!v)
        test_fail(__FILE__, __LINE__, "bad fixture: %s", text);
    return v;
}

#define RUNNING "{\"running\":{\"startedAt\":\"2026-11-22T08:15:00Z\"}}"
#define FAILED1                                                                                                   \
    "{\"terminated\":{\"exitCode\":1,\"reason\":\"Error\",\"startedAt\":\"2026-11-22T08:15:00Z\",\"finishedAt\":" \
    "\"2026-11-22T08:15:09Z\"}}"
#define DONE                                                                                                          \
    "{\"terminated\":{\"exitCode\":0,\"reason\":\"Completed\",\"startedAt\":\"2026-11-22T08:16:00Z\",\"finishedAt\":" \
    "\"2026-11-22T08:17:00Z\"}}"

static void feed(struct kube_backend *kb, int type, json_t *p)
{
    kube_observe_pod(kb, type, p);
    json_decref(p);
}

static void attempts_counted(void)
{
    struct kube_backend kb = {.host = {post, NULL}};
    ngot = 0;
    struct kube_job *j = kube_job_track(&kb, "U1");
    REQUIRE(j);
    snprintf(j->ns, sizeof j->ns, "default");
    snprintf(j->name, sizeof j->name, "j");
    /* before SENT: held, nothing posted; then SENT and the newest view of the pod */
    feed(&kb, KUBE_ADDED, pod("p1", "Pending", 0, "{\"waiting\":{\"reason\":\"ContainerCreating\"}}", NULL));
    feed(&kb, KUBE_MODIFIED, pod("p1", "Running", 0, RUNNING, NULL));
    CHECK_INT(ngot, 0);
    kube_mark_sent(&kb, j);
    REQUIRE(ngot == 2);
    CHECK_INT(got[0].kind, BACKEND_SENT);
    CHECK_STR(got[0].ref, "default/j");
    CHECK_INT(got[1].kind, BACKEND_POD);
    CHECK_INT(got[1].phase, BACKEND_POD_RUNNING);
    CHECK_INT((int)got[1].attempt, 1);
    CHECK_STR(got[1].node, "n1");
    CHECK_STR(got[1].ref, "default/j");
    /* the same view again: nothing */
    feed(&kb, KUBE_MODIFIED, pod("p1", "Running", 0, RUNNING, NULL));
    CHECK_INT(ngot, 2);
    /* kubelet restarted the container: attempt 1 ended (lastState), attempt 2 runs */
    feed(&kb, KUBE_MODIFIED, pod("p1", "Running", 1, RUNNING, FAILED1));
    REQUIRE(ngot == 4);
    CHECK_INT(got[2].phase, BACKEND_POD_FAILED);
    CHECK_INT((int)got[2].attempt, 1);
    CHECK_INT(got[2].exit_code, 1);
    CHECK_STR(got[2].reason, "Error");
    CHECK_INT(got[3].phase, BACKEND_POD_RUNNING);
    CHECK_INT((int)got[3].attempt, 2);
    /* Volcano deleted the pod and made it again (a new uid): attempt 2 ended as Deleted, 3 runs */
    feed(&kb, KUBE_DELETED, pod("p1", "Running", 1, RUNNING, FAILED1));
    REQUIRE(ngot == 5);
    CHECK_INT(got[4].phase, BACKEND_POD_FAILED);
    CHECK_INT((int)got[4].attempt, 2);
    CHECK_STR(got[4].reason, "Deleted");
    CHECK_INT(got[4].exit_code, 137);
    feed(&kb, KUBE_ADDED, pod("p2", "Running", 0, RUNNING, NULL));
    REQUIRE(ngot == 6);
    CHECK_INT((int)got[5].attempt, 3);
    /* deleted with its end written, and made again under the same uid (a server that reuses them) */
    feed(&kb, KUBE_DELETED, pod("p2", "Failed", 0, FAILED1, NULL));
    REQUIRE(ngot == 7);
    CHECK_INT((int)got[6].attempt, 3);
    CHECK_INT(got[6].exit_code, 1);
    CHECK_STR(got[6].reason, "Error");
    feed(&kb, KUBE_DELETED, pod("p2", "Failed", 0, FAILED1, NULL)); /* told twice: once */
    CHECK_INT(ngot, 7);
    feed(&kb, KUBE_ADDED, pod("p2", "Running", 0, RUNNING, NULL));
    REQUIRE(ngot == 8);
    CHECK_INT((int)got[7].attempt, 4);
    feed(&kb, KUBE_MODIFIED, pod("p2", "Succeeded", 0, DONE, NULL));
    REQUIRE(ngot == 9);
    CHECK_INT(got[8].phase, BACKEND_POD_SUCCEEDED);
    CHECK_INT((int)got[8].attempt, 4);
    CHECK_INT(got[8].end_ms - got[8].start_ms, 60000);
    /* an older view crossing it (a list): never back to Running */
    feed(&kb, KUBE_MODIFIED, pod("p2", "Running", 0, RUNNING, NULL));
    CHECK_INT(ngot, 9);
    /* another job's pod: not followed, nothing */
    json_t *other = pod("p9", "Running", 0, RUNNING, NULL);
    json_object_set_new(json_object_get(json_object_get(other, "metadata"), "labels"), "caldera.io/uid",
                        json_string("U2"));
    feed(&kb, KUBE_MODIFIED, other);
    CHECK_INT(ngot, 9);
    kube_job_drop(&kb, j);
    free(kb.jobs);
}

TEST_MAIN(TEST_CASE(attempts_counted))
