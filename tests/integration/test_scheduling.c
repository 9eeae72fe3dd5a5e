/* Scheduling through a real server: node zones chosen by schedulerName, a pending reason naming
 * the predicate (or pod anti-affinity rule) that failed on the job's status, its PodGroup and its
 * pods, and priority preemption evicting
 * a real process (its attempt ends Evicted and it runs again later). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define JOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"

static const char *const args[] = {"--nodes", "tests/integration/data/zones-nodes.yaml", "--scheduler-conf",
                                   "tests/integration/data/zones-preempt.conf", NULL};

static json_t *at(json_t *v, const char *path) { return server_json_at(v, path); }

static long submit(const struct test_server *s, const char *name, const char *spec_extra, const char *cpu,
                   const char *command)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: %s}\nspec:\n%s  tasks:\n"
             "  - name: t\n    replicas: 1\n    template:\n      spec:\n        terminationGracePeriodSeconds: 1\n"
             "        containers:\n        - name: c\n          command: [sh, -c, \"%s\"]\n"
             "          resources: {requests: {cpu: \"%s\"}}\n",
             name, spec_extra, command, cpu);
    long code;
    json_t *r = server_request(s, "POST", JOBS, yaml, "application/yaml", &code);
    if (code != 201)
        fprintf(stderr, "submit %s: %s\n", name, json_string_value(json_object_get(r, "message")));
    json_decref(r);
    return code;
}

static void zones_are_chosen_by_scheduler_name(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    CHECK_INT(submit(&s, "daily", "  schedulerName: volcano-daily\n", "2", "sleep 30"), 201);
    CHECK(server_wait_field(&s, "/api/v1/namespaces/default/pods/daily-t-0", "spec.nodeName", "daily-1", 20000) == 0);
    /* the general zone cannot use daily-1's room: a 2-CPU job fits general-1 only */
    CHECK_INT(submit(&s, "general", "", "2", "sleep 30"), 201);
    CHECK(server_wait_field(&s, "/api/v1/namespaces/default/pods/general-t-0", "spec.nodeName", "general-1", 20000) ==
          0);
    CHECK_INT(submit(&s, "overflow", "", "1", "true"), 201);
    CHECK(server_wait_field(&s, JOBS "/overflow", "status.state.reason", "Unschedulable", 20000) == 0);
    long code;
    json_t *r = server_request(&s, "POST", JOBS,
                               "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: lost}\nspec:\n"
                               "  schedulerName: nowhere\n  tasks:\n  - replicas: 1\n"
                               "    template: {spec: {containers: [{name: c, command: [\"true\"]}]}}\n",
                               "application/yaml", &code);
    CHECK_INT(code, 422);
    CHECK_CONTAINS(json_string_value(json_object_get(r, "message")),
                   "spec.schedulerName: Unsupported value: \"nowhere\": supported values: volcano, volcano-daily");
    json_decref(r);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static void pending_reason_names_the_predicate(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    CHECK_INT(submit(&s, "picky", "", "1", "true"), 201);
    long code;
    /* a nodeSelector no node of the default zone has */
    json_t *r = server_request(
        &s, "POST", JOBS,
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: gpu-only}\nspec:\n"
        "  tasks:\n  - replicas: 1\n    template:\n      spec:\n        nodeSelector: {disk: nvme}\n"
        "        containers: [{name: c, command: [\"true\"]}]\n",
        "application/yaml", &code);
    CHECK_INT(code, 201);
    json_decref(r);
    CHECK(server_wait_field(&s, JOBS "/gpu-only", "status.state.reason", "Unschedulable", 20000) == 0);
    r = server_request(&s, "GET", JOBS "/gpu-only", NULL, NULL, &code);
    CHECK_CONTAINS(json_string_value(at(r, "status.state.message")),
                   "0/1 nodes are available: 1 node(s) didn't match node selector.");
    json_decref(r);
    r = server_request(&s, "GET", "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups/gpu-only", NULL,
                       NULL, &code);
    CHECK_STR(json_string_value(at(r, "status.conditions.0.type")), "Unschedulable");
    CHECK_CONTAINS(json_string_value(at(r, "status.conditions.0.message")), "1/1 tasks in gang unschedulable");
    json_decref(r);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* A rule about other pods: two replicas that will not share a disk kind, one node of it; the
 * reason reaches the job, and the pod's PodScheduled condition, in kube-scheduler's words. */
static void pod_anti_affinity_reason_reaches_the_pod(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    long code;
    json_t *r = server_request(
        &s, "POST", JOBS,
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: apart}\nspec:\n  minAvailable: 2\n"
        "  tasks:\n  - replicas: 2\n    name: t\n    template:\n      metadata: {labels: {app: apart}}\n"
        "      spec:\n        affinity:\n          podAntiAffinity:\n"
        "            requiredDuringSchedulingIgnoredDuringExecution:\n"
        "            - {labelSelector: {matchLabels: {app: apart}}, topologyKey: disk}\n"
        "        containers: [{name: c, command: [\"true\"], resources: {requests: {cpu: 100m}}}]\n",
        "application/yaml", &code);
    CHECK_INT(code, 201);
    json_decref(r);
    CHECK(server_wait_field(&s, JOBS "/apart", "status.state.reason", "Unschedulable", 20000) == 0);
    r = server_request(&s, "GET", JOBS "/apart", NULL, NULL, &code);
    CHECK_CONTAINS(json_string_value(at(r, "status.state.message")),
                   "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.");
    json_decref(r);
    r = server_request(&s, "GET", "/api/v1/namespaces/default/pods/apart-t-0", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(json_string_value(at(r, "status.conditions.0.type")), "PodScheduled");
    CHECK_CONTAINS(json_string_value(at(r, "status.conditions.0.message")),
                   "node(s) didn't match pod anti-affinity rules");
    json_decref(r);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static void priority_preemption_evicts_a_real_task(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    long code;
    json_decref(server_request(&s, "POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
                               "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\","
                               "\"metadata\":{\"name\":\"urgent\"},\"value\":1000}",
                               "application/json", &code));
    CHECK_INT(code, 201);
    CHECK_INT(submit(&s, "batch", "", "2", "trap 'echo evicted; exit 143' TERM; echo batch started; sleep 300 & wait"),
              201);
    CHECK(server_wait_field(&s, JOBS "/batch", "status.running", "1", 20000) == 0);
    /* Running is the process started, not its trap set: the log says when the shell is ready. */
    char *started = NULL;
    for (int i = 0; i < 200 && !(started && strstr(started, "batch started")); i++) {
        free(started);
        struct timespec pause = {0, 50 * 1000000L};
        nanosleep(&pause, NULL);
        started = server_request_text(&s, "GET", "/api/v1/namespaces/default/pods/batch-t-0/log", &code);
    }
    CHECK_CONTAINS(started, "batch started");
    free(started);
    CHECK_INT(submit(&s, "hotfix", "  priorityClassName: urgent\n", "2", "echo hotfix ran"), 201);
    CHECK(server_wait_field(&s, JOBS "/hotfix", "status.state.phase", "Completed", 30000) == 0);
    json_t *h = server_request(&s, "GET", "/apis/caldera.io/v1/namespaces/default/jobs/batch/history", NULL, NULL,
                               &code);
    CHECK_STR(json_string_value(at(h, "attempts.0.reason")), "Evicted");
    CHECK_INT(json_integer_value(at(h, "attempts.0.exitCode")), 143);
    json_decref(h);
    /* the evicted replica came back Pending and runs again once the room is free */
    CHECK(server_wait_field(&s, "/apis/caldera.io/v1/namespaces/default/jobs/batch/history", "attempts.1.attempt", "2",
                            20000) == 0);
    char *log = server_request_text(&s, "GET", "/api/v1/namespaces/default/pods/batch-t-0/log?attempt=1", &code);
    CHECK_CONTAINS(log, "evicted");
    free(log);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* actions "allocate, backfill" (no enqueue): the PodGroup goes Inqueue through allocate and the job
 * runs to its end, as in Volcano, instead of staying Pending. */
static void allocate_runs_jobs_without_enqueue(void)
{
    static const char *const conf_args[] = {"--nodes", "tests/integration/data/zones-nodes.yaml", "--scheduler-conf",
                                            "tests/integration/data/no-enqueue.conf", NULL};
    struct test_server s;
    REQUIRE(server_start(&s, NULL, conf_args) == 0);
    CHECK_INT(submit(&s, "plain", "", "1", "true"), 201);
    CHECK(server_wait_field(&s, JOBS "/plain", "status.state.phase", "Completed", 20000) == 0);
    CHECK(server_wait_field(&s, "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups/plain",
                            "status.phase", "Completed", 20000) == 0);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

TEST_MAIN(TEST_CASE(zones_are_chosen_by_scheduler_name), TEST_CASE(pending_reason_names_the_predicate),
          TEST_CASE(pod_anti_affinity_reason_reaches_the_pod), TEST_CASE(priority_preemption_evicts_a_real_task),
          TEST_CASE(allocate_runs_jobs_without_enqueue))
