/* The Volcano Job adapter: Volcano's admission defaults written into the manifest, the runtime
 * fields read from the template, and every validation error with its field path and line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake.h"
#include "adapters/volcano_job.h"
#include "scheduler/api/resource.h"
#include "tests/lib/test.h"

static struct job *parse(const char *yaml, struct api_status *st)
{
    struct intake in;
    struct job *job = NULL;
    memset(st, 0, sizeof *st);
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, st) != 0)
        return NULL;
    volcano_job_from_doc(&in.docs[0], "team-a", &job, st);
    intake_free(&in);
    return job;
}

static const char *const minimal =
    "apiVersion: batch.volcano.sh/v1alpha1\n"
    "kind: Job\n"
    "metadata:\n"
    "  name: train\n"
    "spec:\n"
    "  tasks:\n"
    "  - replicas: 2\n"
    "    template:\n"
    "      spec:\n"
    "        containers:\n"
    "        - name: c\n"
    "          image: python:3\n"
    "          command: [python, -c]\n"
    "          args: [\"print(1)\"]\n"
    "          env: [{name: A, value: \"1\"}, {name: B, value: two}]\n"
    "          resources:\n"
    "            limits: {cpu: 1500m, memory: 1.5Gi, nvidia.com/gpu: 1}\n"
    "            requests: {cpu: 500m}\n"
    "  - name: ps\n"
    "    replicas: 1\n"
    "    minAvailable: 0\n"
    "    template: {spec: {containers: [{name: c, args: [sleep, \"1\"]}]}}\n";

static void defaults_as_volcano_admission_sets_them(void)
{
    struct api_status st;
    struct job *job = parse(minimal, &st);
    REQUIRE(job);
    CHECK_STR(job->ns, "team-a");
    CHECK_STR(job->queue, "default");
    CHECK_INT(job->max_retry, 3);
    CHECK_STR(job->tasks[0].name, "default0");
    CHECK_INT(job->tasks[0].min_available, 2);
    CHECK_INT(job->tasks[1].min_available, 0);
    CHECK_INT(job->min_available, 2); /* sum of task minAvailable */
    CHECK_INT(job->total_replicas, 3);
    json_t *spec = json_object_get(job->manifest, "spec");
    CHECK_STR(json_string_value(json_object_get(spec, "queue")), "default");
    CHECK_INT(json_integer_value(json_object_get(spec, "minAvailable")), 2);
    CHECK_INT(json_integer_value(json_object_get(spec, "maxRetry")), 3);
    CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(spec, "tasks"), 0), "name")), "default0");
    job_free(job);
}

static void runtime_fields_from_the_template(void)
{
    struct api_status st;
    struct job *job = parse(minimal, &st);
    REQUIRE(job);
    const struct task_spec *t = &job->tasks[0];
    REQUIRE(t->argv);
    CHECK_STR(t->argv[0], "python");
    CHECK_STR(t->argv[1], "-c");
    CHECK_STR(t->argv[2], "print(1)");
    CHECK(t->argv[3] == NULL);
    CHECK_STR(t->env[0], "A=1");
    CHECK_STR(t->env[1], "B=two");
    CHECK_INT(t->request.v[RES_CPU], 500);                 /* explicit request */
    CHECK_INT(t->limit.v[RES_CPU], 1500);
    CHECK_INT(t->request.v[RES_MEMORY], 1610612736);       /* request defaults to the limit */
    CHECK_INT(t->request.v[RES_GPU], 1);
    CHECK_INT(t->request.v[RES_PODS], 1);
    CHECK_STR(t->image, "python:3");
    /* Never unless asked (Kubernetes' Always would rerun a finished task for ever), written back */
    CHECK_STR(t->restart_policy, "Never");
    CHECK_INT(t->restart, RESTART_NEVER);
    CHECK_STR(json_string_value(json_object_get(json_object_get(t->template, "spec"), "restartPolicy")), "Never");
    CHECK_INT(t->max_retry, 3);
    CHECK_INT(t->run_as_uid, -1);
    CHECK_INT(job->ttl_seconds, -1);
    CHECK_INT(t->grace_seconds, 30);
    CHECK_STR(job->tasks[1].argv[0], "sleep"); /* args alone when there is no command */
    /* minResources: the first minAvailable replicas' requests */
    CHECK_INT(job->pg.min_resources.v[RES_CPU], 1000);
    job_free(job);
}

static void errors_name_field_and_line(void)
{
    struct api_status st;
    const char *yaml = "apiVersion: batch.volcano.sh/v1alpha1\n"
                       "kind: Job\n"
                       "metadata: {name: bad}\n"
                       "spec:\n"
                       "  minAvailable: 7\n"
                       "  tasks:\n"
                       "  - name: a\n"
                       "    replicas: 1\n"
                       "    minAvailable: 2\n"
                       "    template: {spec: {containers: [{name: c, command: [x], env: [{value: v}]}]}}\n"
                       "  - name: a\n"
                       "    replicas: -1\n"
                       "  - name: Upper\n"
                       "    replicas: 1\n"
                       "    template:\n"
                       "      spec:\n"
                       "        restartPolicy: Sometimes\n"
                       "        containers:\n"
                       "        - {name: c, command: [x]}\n"
                       "        - {name: d, command: [y]}\n";
    struct job *job = parse(yaml, &st);
    CHECK(job == NULL);
    CHECK_INT(st.code, 422);
    CHECK_STR(st.reason, "Invalid");
    CHECK_CONTAINS(st.message, "Job.batch.volcano.sh \"bad\" is invalid");
    CHECK_CONTAINS(st.message, "spec.tasks[0].minAvailable: Invalid value: 2: must not be greater than the task's replicas (line 9, column 19)");
    CHECK_CONTAINS(st.message, "spec.tasks[0].template.spec.containers[0].env[0].name: Required value");
    CHECK_CONTAINS(st.message, "spec.tasks[1].replicas: Invalid value: -1");
    CHECK_CONTAINS(st.message, "spec.tasks[1].template: Required value");
    CHECK_CONTAINS(st.message, "spec.tasks[2].name: Invalid value: \"Upper\"");
    CHECK_CONTAINS(st.message, "restartPolicy: Unsupported value: \"Sometimes\"");
    CHECK_CONTAINS(st.message, "containers[1]: Unsupported value: a second container");
    CHECK_CONTAINS(st.message, "spec.tasks[1].name: Duplicate value: \"a\"");
    CHECK(st.ncauses >= 8);
    job_free(job);
}

static void type_and_namespace_errors_are_400(void)
{
    struct api_status st;
    CHECK(parse("apiVersion: v1\nkind: Job\nmetadata: {name: x}\n", &st) == NULL);
    CHECK_INT(st.code, 400);
    CHECK_CONTAINS(st.message, "the API version in the data (v1) does not match the expected API version");
    CHECK(parse("apiVersion: batch.volcano.sh/v1alpha1\nkind: Queue\nmetadata: {name: x}\n", &st) == NULL);
    CHECK_INT(st.code, 400);
    CHECK(parse("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: x, namespace: other}\nspec: {tasks: []}\n",
                &st) == NULL);
    CHECK_INT(st.code, 422); /* no tasks is reported first, as a field error */
    CHECK(parse("kind: Job\nmetadata: {name: x, namespace: other}\nspec:\n  tasks:\n  - replicas: 1\n"
                "    template: {spec: {containers: [{name: c, command: [x]}]}}\n",
                &st) == NULL);
    CHECK_INT(st.code, 400);
    CHECK_CONTAINS(st.message, "does not match the namespace sent on the request");
}

static void min_available_above_replicas_is_refused(void)
{
    struct api_status st;
    struct job *job = parse("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: x}\nspec:\n"
                            "  minAvailable: 3\n  tasks:\n  - replicas: 2\n"
                            "    template: {spec: {containers: [{name: c, command: [x]}]}}\n",
                            &st);
    CHECK(job == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CONTAINS(st.message, "spec.minAvailable: Invalid value: 3: job 'minAvailable' should not be greater than total replicas in tasks");
}

static void generate_name_gets_a_suffix(void)
{
    struct api_status st;
    struct job *job = parse("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {generateName: run-}\nspec:\n"
                            "  tasks:\n  - replicas: 1\n    template: {spec: {containers: [{name: c, command: [x]}]}}\n",
                            &st);
    REQUIRE(job);
    CHECK(strncmp(job->name, "run-", 4) == 0 && strlen(job->name) == 9);
    job_free(job);
}

static void render_and_restore_status(void)
{
    struct api_status st;
    struct job *job = parse(minimal, &st);
    REQUIRE(job);
    snprintf(job->uid, sizeof job->uid, "11111111-2222-4333-8444-555555555555");
    job->created_ms = 1700000000000;
    job->resource_version = 42;
    job->status.phase = JOB_RUNNING;
    job->status.retry_count = 2;
    job->status.version = 1;
    job->status.transition_ms = 1700000001000;
    job_set_replica_phase(job, 0, POD_RUNNING);
    job_set_replica_phase(job, 1, POD_SUCCEEDED);
    job_count_replicas(job);
    volcano_job_stamp_metadata(job);
    json_t *obj = volcano_job_render(job);
    json_t *status = json_object_get(obj, "status");
    CHECK_STR(json_string_value(json_object_get(json_object_get(obj, "metadata"), "resourceVersion")), "42");
    CHECK_STR(json_string_value(json_object_get(json_object_get(obj, "metadata"), "uid")), job->uid);
    CHECK_STR(json_string_value(json_object_get(json_object_get(status, "state"), "phase")), "Running");
    CHECK_INT(json_integer_value(json_object_get(status, "running")), 1);
    CHECK_INT(json_integer_value(json_object_get(status, "succeeded")), 1);
    CHECK_INT(json_integer_value(json_object_get(status, "pending")), 1);
    CHECK_INT(json_integer_value(json_object_get(json_object_get(json_object_get(json_object_get(status, "taskStatusCount"),
                                                                                 "default0"), "phase"), "Running")), 1);
    char *stored = json_dumps(status, JSON_COMPACT);
    struct job *again = parse(minimal, &st);
    REQUIRE(again);
    CHECK_INT(volcano_job_restore_status(again, stored), 0);
    CHECK_INT(again->status.phase, JOB_RUNNING);
    CHECK_INT(again->status.retry_count, 2);
    CHECK_INT(again->status.version, 1);
    CHECK_INT(again->status.transition_ms, 1700000001000);
    free(stored);
    json_decref(obj);
    job_free(again);
    job_free(job);
}

/* Volcano's policy validation, each refusal naming its field: an event twice, "*" beside other
 * events, event and exitCode together, exitCode 0, PodPending without a timeout, unknown names. */
static void policy_errors_name_their_fields(void)
{
    struct api_status st;
    const char *yaml = "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: pol}\nspec:\n"
                       "  policies:\n"
                       "  - {event: PodFailed, action: RestartJob}\n"
                       "  - {events: [PodEvicted, PodFailed], action: AbortJob}\n"
                       "  - {event: PodFailed, exitCode: 3, action: AbortJob}\n"
                       "  - {exitCode: 0, action: AbortJob}\n"
                       "  - {event: PodPending, action: AbortJob}\n"
                       "  - {event: Sometimes, action: AbortJob}\n"
                       "  - {event: Unknown, action: Explode}\n"
                       "  - {event: TaskFailed, action: RestartJob, timeout: soon}\n"
                       "  tasks:\n  - replicas: 1\n"
                       "    policies: [{events: ['*', TaskCompleted], action: CompleteJob}]\n"
                       "    template: {spec: {containers: [{name: c, command: [x]}]}}\n";
    CHECK(parse(yaml, &st) == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CONTAINS(st.message, "spec.policies[2]: Forbidden: must not specify event and exitCode simultaneously");
    CHECK_CONTAINS(st.message, "spec.policies[3].exitCode: Invalid value: 0: 0 is not a valid error code");
    CHECK_CONTAINS(st.message, "spec.policies[4].timeout: Required value: a PodPending policy needs a timeout");
    CHECK_CONTAINS(st.message, "spec.policies[5].event: Unsupported value: \"Sometimes\"");
    CHECK_CONTAINS(st.message, "spec.policies[6].action: Unsupported value: \"Explode\"");
    CHECK_CONTAINS(st.message, "spec.policies[7].timeout: Invalid value: \"soon\"");
    CHECK_CONTAINS(st.message, "spec.tasks[0].policies[0]: Forbidden: if there's * here, no other event should be here");
    /* the duplicate is found across policies once each one is valid on its own */
    CHECK(parse("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: dup}\nspec:\n"
                "  policies:\n  - {event: PodFailed, action: RestartJob}\n"
                "  - {events: [PodEvicted, PodFailed], action: AbortJob}\n"
                "  - {exitCode: 2, action: AbortJob}\n  - {exitCode: 2, action: RestartJob}\n"
                "  tasks:\n  - replicas: 1\n    template: {spec: {containers: [{name: c, command: [x]}]}}\n",
                &st) == NULL);
    CHECK_CONTAINS(st.message, "spec.policies[1]: Duplicate value: \"PodFailed\": duplicate event across different policies");
    CHECK_CONTAINS(st.message, "spec.policies[3]: Duplicate value: 2: duplicate exitCode across different policies");
}

static void lifecycle_fields_parse(void)
{
    struct api_status st;
    struct job *job = parse("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: lc}\nspec:\n"
                            "  ttlSecondsAfterFinished: 60\n"
                            "  autoMemoryScale: {rate: 1.5, maxMemory: 64Gi}\n"
                            "  policies: [{event: PodEvicted, action: RestartJob}, {exitCode: 3, action: AbortJob,"
                            " timeout: 1m}]\n"
                            "  tasks:\n  - name: a\n    replicas: 1\n    maxRetry: -1\n"
                            "    template: {spec: {securityContext: {runAsUser: 1000, runAsGroup: 100},"
                            " restartPolicy: OnFailure, containers: [{name: c, command: [x],"
                            " securityContext: {runAsUser: 1001}}]}}\n"
                            "  - name: b\n    replicas: 1\n    dependsOn: {name: [a], iteration: any}\n"
                            "    policies: [{event: TaskCompleted, action: CompleteJob}]\n"
                            "    template: {spec: {containers: [{name: c, command: [x]}]}}\n",
                            &st);
    REQUIRE(job);
    CHECK_INT(job->ttl_seconds, 60);
    CHECK(job->memory_scale_rate > 1.49 && job->memory_scale_rate < 1.51);
    CHECK_INT(job->memory_scale_max, 64LL << 30);
    REQUIRE(job->npolicies == 2);
    CHECK_INT(job->policies[0].events, 1u << EV_POD_EVICTED);
    CHECK_INT(job->policies[0].action, ACT_RESTART_JOB);
    CHECK(job->policies[1].has_exit_code);
    CHECK_INT(job->policies[1].timeout_ms, 60000);
    CHECK_INT(job->tasks[0].max_retry, -1);
    CHECK_INT(job->tasks[0].restart, RESTART_ON_FAILURE);
    CHECK_INT(job->tasks[0].run_as_uid, 1001); /* the container's wins */
    CHECK_INT(job->tasks[0].run_as_gid, 100);
    REQUIRE(job->tasks[1].ndepends == 1);
    CHECK_INT(job->tasks[1].depends[0], 0);
    CHECK_INT(job->tasks[1].npolicies, 1);
    CHECK_INT(job->tasks[1].max_retry, 3);
    job_free(job);
}

static void depends_on_and_scale_errors(void)
{
    struct api_status st;
    CHECK(parse("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: d}\nspec:\n"
                "  autoMemoryScale: {rate: 0.5}\n"
                "  tasks:\n  - name: a\n    replicas: 1\n    dependsOn: {name: [b]}\n"
                "    template: {spec: {containers: [{name: c, command: [x]}]}}\n"
                "  - name: b\n    replicas: 1\n    dependsOn: {name: [a, nope], iteration: some}\n"
                "    template: {spec: {containers: [{name: c, command: [x]}]}}\n",
                &st) == NULL);
    CHECK_CONTAINS(st.message, "spec.autoMemoryScale.rate: Invalid value");
    CHECK_CONTAINS(st.message, "spec.autoMemoryScale.maxMemory: Required value");
    CHECK_CONTAINS(st.message, "spec.tasks[1].dependsOn.name[1]: Invalid value: \"nope\": no task of the job has this name");
    CHECK_CONTAINS(st.message, "spec.tasks[1].dependsOn.iteration: Unsupported value: \"some\"");
    CHECK(parse("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: d}\nspec:\n"
                "  tasks:\n  - name: a\n    replicas: 1\n    dependsOn: {name: [b]}\n"
                "    template: {spec: {containers: [{name: c, command: [x]}]}}\n"
                "  - name: b\n    replicas: 1\n    dependsOn: {name: [a]}\n"
                "    template: {spec: {containers: [{name: c, command: [x]}]}}\n",
                &st) == NULL);
    CHECK_CONTAINS(st.message, "dependsOn: Invalid value: the tasks' dependsOn form a cycle");
}

TEST_MAIN(TEST_CASE(defaults_as_volcano_admission_sets_them), TEST_CASE(runtime_fields_from_the_template),
          TEST_CASE(errors_name_field_and_line), TEST_CASE(type_and_namespace_errors_are_400),
          TEST_CASE(min_available_above_replicas_is_refused), TEST_CASE(generate_name_gets_a_suffix),
          TEST_CASE(render_and_restore_status), TEST_CASE(policy_errors_name_their_fields),
          TEST_CASE(lifecycle_fields_parse), TEST_CASE(depends_on_and_scale_errors))
