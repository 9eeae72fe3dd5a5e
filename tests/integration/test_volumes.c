/* A real jobserver running the Job's spec.volumes (a directory per volume, named by a variable and
 * bound at mountPath when it exists), PodSpec activeDeadlineSeconds (DeadlineExceeded) and env
 * valueFrom (the pod's fields and its container's resources, as the kubelet gives them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define JOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
#define PODS "/api/v1/namespaces/default/pods"
#define WAIT_MS 20000

static struct test_server server;
static bool up, failed;

static bool ensure_server(void)
{
    static const char *const args[] = {"--shutdown-grace", "2", NULL};
    if (!up && !failed) {
        failed = server_start(&server, NULL, args) != 0;
        up = !failed;
    }
    return up;
}

static char *file_text(const char *dir, const char *name)
{
    char path[1024], *data = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (read_file(path, 4096, &data, NULL) != 0)
        return NULL;
    return data;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* One job writes into a claim through its variable; a second naming the same claim at another path
 * reads it. The per-job volumeClaim directory goes with its job; the claim's stays. */
static void a_claim_is_shared_between_jobs(void)
{
    REQUIRE(ensure_server());
    char bound[] = "/tmp/caldera-volume-bind-XXXXXX"; /* exists on the node: bound there too */
    REQUIRE(mkdtemp(bound));
    char spec[1024], task[1024];
    snprintf(spec, sizeof spec,
             "  volumes:\n"
             "  - {mountPath: /data/simulation, volumeClaimName: shared-results}\n"
             "  - mountPath: /scratch\n"
             "    volumeClaim: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n"
             "  - {mountPath: %s, volumeClaimName: bound-claim}\n",
             bound);
    snprintf(task, sizeof task,
             "  - name: w\n    replicas: 1\n    template:\n      spec:\n        containers:\n        - name: c\n"
             "          command: [sh, -c, 'echo hello > \"$CALDERA_VOLUME_DATA_SIMULATION/greeting\" && "
             "echo mine > \"$CALDERA_VOLUME_SCRATCH/f\" && echo inside > %s/b']\n",
             bound);
    REQUIRE(job_submit(&server, "writer", spec, task) == 201);
    REQUIRE(job_wait(&server, "writer", "status.state.phase", "Completed", WAIT_MS) == 0);

    char claim_dir[512], bound_dir[512];
    snprintf(claim_dir, sizeof claim_dir, "%s/volumes/default/shared-results", server.data_dir);
    snprintf(bound_dir, sizeof bound_dir, "%s/volumes/default/bound-claim", server.data_dir);
    char *text = file_text(claim_dir, "greeting");
    CHECK_STR(text, "hello\n");
    free(text);
    /* The bind lives in the task's own mount namespace: the node's directory stays untouched. */
    if (geteuid() == 0) {
        text = file_text(bound_dir, "b");
        CHECK_STR(text, "inside\n");
        free(text);
        char host_file[600];
        snprintf(host_file, sizeof host_file, "%s/b", bound);
        CHECK(!exists(host_file));
    }

    /* The pod says where each volume is. */
    long code;
    json_t *pod = api_get(&server, PODS "/%s", "writer-w-0", &code);
    CHECK_INT(code, 200);
    const char *ann = json_string_value(json_object_get(jv_at(pod, "metadata.annotations"), "caldera.io/volumes"));
    REQUIRE(ann);
    CHECK(strstr(ann, "\"mountPath\":\"/data/simulation\"") != NULL);
    CHECK(strstr(ann, "\"env\":\"CALDERA_VOLUME_DATA_SIMULATION\"") != NULL);
    CHECK(strstr(ann, claim_dir) != NULL);
    CHECK_STR(jv_str(pod, "spec.volumes.0.persistentVolumeClaim.claimName"), "shared-results");
    CHECK_STR(jv_str(pod, "spec.containers.0.volumeMounts.1.mountPath"), "/scratch");
    json_decref(pod);

    json_t *job = job_get(&server, "writer");
    char scratch[600];
    snprintf(scratch, sizeof scratch, "%s/jobs/%s/volumes/1", server.data_dir,
             jv_str(job, "metadata.uid") ? jv_str(job, "metadata.uid") : "?");
    json_decref(job);
    text = file_text(scratch, "f");
    CHECK_STR(text, "mine\n");
    free(text);

    REQUIRE(job_submit(&server, "reader", "  volumes:\n  - {mountPath: /results, volumeClaimName: shared-results}\n",
                       TASK("r", 1, "", "'test \"$(cat \"$CALDERA_VOLUME_RESULTS/greeting\")\" = hello'", "")) == 201);
    CHECK(job_wait(&server, "reader", "status.state.phase", "Completed", WAIT_MS) == 0);

    json_decref(server_request(&server, "DELETE", JOBS "/writer", NULL, NULL, &code));
    CHECK_INT(code, 200);
    for (int i = 0; i < 100 && exists(scratch); i++)
        usleep(50000);
    CHECK(!exists(scratch));  /* the job's own claim went with it */
    CHECK(exists(claim_dir)); /* the named claim stays, like a PVC */
    rmdir(bound);
}

/* A pod running longer than activeDeadlineSeconds is killed and fails with DeadlineExceeded; the
 * PodFailed goes through the job's policies (here AbortJob). */
static void active_deadline_kills_the_pod(void)
{
    REQUIRE(ensure_server());
    REQUIRE(job_submit(&server, "deadline", "  policies:\n  - {event: PodFailed, action: AbortJob}\n",
                       "  - name: t\n    replicas: 1\n    template:\n      spec:\n"
                       "        activeDeadlineSeconds: 1\n        terminationGracePeriodSeconds: 1\n"
                       "        containers:\n        - name: c\n          command: [sh, -c, 'exec sleep 300']\n") ==
            201);
    REQUIRE(job_wait(&server, "deadline", "status.state.phase", "Aborted", WAIT_MS) == 0);
    long code;
    json_t *pod = api_get(&server, PODS "/%s", "deadline-t-0", &code);
    CHECK_INT(code, 200);
    CHECK_STR(jv_str(pod, "status.phase"), "Failed");
    CHECK_STR(jv_str(pod, "status.reason"), "DeadlineExceeded");
    CHECK_STR(jv_str(pod, "status.containerStatuses.0.state.terminated.reason"), "DeadlineExceeded");
    json_decref(pod);
    json_t *h = job_history(&server, "deadline");
    json_t *attempt = json_array_get(json_object_get(h, "attempts"), 0);
    CHECK(attempt != NULL);
    CHECK(pid_gone(jv_num(attempt, "pid")));
    json_decref(h);
}

/* env valueFrom: the task sees its pod's name, namespace, labels and uid and its limits divided up,
 * and writes them to a shared claim; the values are the pod's as the API shows it. */
static void env_value_from_gives_the_pods_fields(void)
{
    REQUIRE(ensure_server());
    const char *task =
        "  - name: w\n    replicas: 1\n    template:\n      metadata: {labels: {team: vision}}\n      spec:\n"
        "        containers:\n        - name: c\n"
        "          command: [sh, -c, 'printf \"%s|%s|%s|%s|%s|%s|%s\" \"$POD\" \"$NS\" \"$TEAM\" \"$JOBNAME\" "
        "\"$MEM_MI\" \"$CPU_M\" \"$POD_UID\" > \"$CALDERA_VOLUME_OUT/env\"']\n"
        "          resources: {limits: {cpu: 500m, memory: 96Mi}}\n"
        "          env:\n"
        "          - {name: POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}\n"
        "          - {name: NS, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}\n"
        "          - {name: TEAM, valueFrom: {fieldRef: {fieldPath: \"metadata.labels['team']\"}}}\n"
        "          - {name: JOBNAME, valueFrom: {fieldRef: {fieldPath: \"metadata.labels['volcano.sh/job-name']\"}}}\n"
        "          - {name: MEM_MI, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}}\n"
        "          - {name: CPU_M, valueFrom: {resourceFieldRef: {resource: requests.cpu, divisor: 1m}}}\n"
        "          - {name: POD_UID, valueFrom: {fieldRef: {fieldPath: metadata.uid}}}\n";
    REQUIRE(job_submit(&server, "downward", "  volumes:\n  - {mountPath: /out, volumeClaimName: downward-out}\n",
                       task) == 201);
    REQUIRE(job_wait(&server, "downward", "status.state.phase", "Completed", WAIT_MS) == 0);
    long code;
    json_t *pod = api_get(&server, PODS "/%s", "downward-w-0", &code);
    CHECK_INT(code, 200);
    char want[512], dir[512];
    snprintf(want, sizeof want, "downward-w-0|default|vision|downward|96|500|%s",
             jv_str(pod, "metadata.uid") ? jv_str(pod, "metadata.uid") : "?");
    json_decref(pod);
    snprintf(dir, sizeof dir, "%s/volumes/default/downward-out", server.data_dir);
    char *text = file_text(dir, "env");
    CHECK_STR(text, want);
    free(text);
}

static void server_stops_cleanly(void)
{
    if (!up)
        return;
    CHECK_INT(server_stop(&server), 0);
    server_cleanup(&server);
}

TEST_MAIN(TEST_CASE(a_claim_is_shared_between_jobs), TEST_CASE(active_deadline_kills_the_pod),
          TEST_CASE(env_value_from_gives_the_pods_fields), TEST_CASE(server_stops_cleanly))
