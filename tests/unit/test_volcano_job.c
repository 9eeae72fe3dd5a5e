/* The Volcano Job adapter: Volcano's admission defaults written into the manifest, the runtime
 * fields read from the template, and every validation error with its field path and line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "adapters/dialects/volcano/job.h"
#include "common/duration.h"
#include "model/resource.h"
#include "tests/lib/causes.h"
#include "model/numa.h"
#include "tests/lib/test.h"
#include "tests/lib/yaml_fixture.h"

static struct job *parse(const char *yaml, struct api_status *st)
{
    return yaml_volcano_job(yaml, "team-a", false, st);
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
    json_t *spec = json_object_get(job_manifest(job), "spec");
    CHECK_STR(json_string_value(json_object_get(spec, "queue")), "default");
    CHECK_INT(json_integer_value(json_object_get(spec, "minAvailable")), 2);
    CHECK_INT(json_integer_value(json_object_get(spec, "maxRetry")), 3);
    CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(spec, "tasks"), 0), "name")),
              "default0");
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
    CHECK_INT(t->request.v[RES_CPU], 500); /* explicit request */
    CHECK_INT(t->limit.v[RES_CPU], 1500);
    CHECK_INT(t->request.v[RES_MEMORY], 1610612736); /* request defaults to the limit */
    CHECK_INT(t->request.v[RES_GPU], 1);
    CHECK_INT(t->request.v[RES_PODS], 1);
    CHECK_STR(t->image, "python:3");
    /* Never unless asked (Kubernetes' Always would rerun a finished task for ever), written back */
    CHECK_STR(t->restart_policy, "Never");
    CHECK_INT(t->restart, RESTART_NEVER);
    CHECK_STR(json_string_value(json_object_get(json_object_get(t->template_tree, "spec"), "restartPolicy")), "Never");
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
    const char *yaml =
        "apiVersion: batch.volcano.sh/v1alpha1\n"
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
    CHECK_CONTAINS(st.message,
                   "spec.tasks[0].minAvailable: Invalid value: 2: must not be greater than the task's replicas (line "
                   "9, column 19)");
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
    CHECK(parse("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: x, namespace: other}\nspec: "
                "{tasks: []}\n",
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
    struct job *job = parse(
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: x}\nspec:\n"
        "  minAvailable: 3\n  tasks:\n  - replicas: 2\n"
        "    template: {spec: {containers: [{name: c, command: [x]}]}}\n",
        &st);
    CHECK(job == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CONTAINS(
        st.message,
        "spec.minAvailable: Invalid value: 3: job 'minAvailable' should not be greater than total replicas in tasks");
}

static void generate_name_gets_a_suffix(void)
{
    struct api_status st;
    struct job *job = parse(
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {generateName: run-}\nspec:\n"
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
    CHECK_INT(json_integer_value(json_object_get(
                  json_object_get(json_object_get(json_object_get(status, "taskStatusCount"), "default0"), "phase"),
                  "Running")),
              1);
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
    const char *yaml =
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: pol}\nspec:\n"
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
    CHECK_CONTAINS(st.message,
                   "spec.tasks[0].policies[0]: Forbidden: if there's * here, no other event should be here");
    /* the duplicate is found across policies once each one is valid on its own */
    CHECK(parse("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: dup}\nspec:\n"
                "  policies:\n  - {event: PodFailed, action: RestartJob}\n"
                "  - {events: [PodEvicted, PodFailed], action: AbortJob}\n"
                "  - {exitCode: 2, action: AbortJob}\n  - {exitCode: 2, action: RestartJob}\n"
                "  tasks:\n  - replicas: 1\n    template: {spec: {containers: [{name: c, command: [x]}]}}\n",
                &st) == NULL);
    CHECK_CONTAINS(st.message,
                   "spec.policies[1]: Duplicate value: \"PodFailed\": duplicate event across different policies");
    CHECK_CONTAINS(st.message, "spec.policies[3]: Duplicate value: 2: duplicate exitCode across different policies");
}

static void lifecycle_fields_parse(void)
{
    struct api_status st;
    struct job *job = parse(
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: lc}\nspec:\n"
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
    CHECK_CONTAINS(st.message,
                   "spec.tasks[1].dependsOn.name[1]: Invalid value: \"nope\": no task of the job has this name");
    CHECK_CONTAINS(st.message, "spec.tasks[1].dependsOn.iteration: Unsupported value: \"some\"");
    CHECK(parse("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: d}\nspec:\n"
                "  tasks:\n  - name: a\n    replicas: 1\n    dependsOn: {name: [b]}\n"
                "    template: {spec: {containers: [{name: c, command: [x]}]}}\n"
                "  - name: b\n    replicas: 1\n    dependsOn: {name: [a]}\n"
                "    template: {spec: {containers: [{name: c, command: [x]}]}}\n",
                &st) == NULL);
    CHECK_CONTAINS(st.message, "dependsOn: Invalid value: the tasks' dependsOn form a cycle");
}

/* --- strict fields, volumes, deadlines, durations, minResources ------------------------------- */

static const char *const job_head =
    "apiVersion: batch.volcano.sh/v1alpha1\n" /* 1 */
    "kind: Job\n"                             /* 2 */
    "metadata: {name: j}\n";                  /* 3 */

#define ONE_TASK                                                                                                     \
    "  tasks: [{replicas: 2, template: {spec: {containers: [{name: c, command: [x], resources: {requests: {cpu: 1, " \
    "memory: 1Gi}}}]}}}]\n"

static struct job *parse_with_head(const char *rest, struct api_status *st)
{
    static char buf[8192];
    snprintf(buf, sizeof buf, "%s%s", job_head, rest);
    return parse(buf, st);
}

static void unknown_fields_are_refused_by_name(void)
{
    struct api_status st;
    struct job *job = parse(
        "apiVersion: batch.volcano.sh/v1alpha1\n"                        /* 1 */
        "kind: Job\n"                                                    /* 2 */
        "metadata: {name: j, nmae: x}\n"                                 /* 3 */
        "extra: 1\n"                                                     /* 4 */
        "spec:\n"                                                        /* 5 */
        "  foo: bar\n"                                                   /* 6 */
        "  policies: [{event: PodFailed, action: AbortJob, delay: 1}]\n" /* 7 */
        "  tasks:\n"                                                     /* 8 */
        "  - replicas: 1\n"                                              /* 9 */
        "    replica: 2\n"                                               /* 10 */
        "    template:\n"                                                /* 11 */
        "      metadata: {labels: {a: b}, lables: {}}\n"                 /* 12 */
        "      spek: {}\n"                                               /* 13 */
        "      spec:\n"                                                  /* 14 */
        "        restartPolcy: Never\n"                                  /* 15 */
        "        securityContext: {runAsUsr: 1}\n"                       /* 16 */
        "        containers:\n"                                          /* 17 */
        "        - name: c\n"                                            /* 18 */
        "          command: [x]\n"                                       /* 19 */
        "          comand: [y]\n",                                       /* 20 */
        &st);
    CHECK(job == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CAUSE_AT(&st, "metadata.nmae", "FieldValueNotSupported", 3, 27, "unknown field \"metadata.nmae\"");
    CHECK_CAUSE_AT(&st, "extra", "FieldValueNotSupported", 4, 8, "unknown field \"extra\"");
    CHECK_CAUSE_AT(&st, "spec.foo", "FieldValueNotSupported", 6, 8, "unknown field \"spec.foo\"");
    CHECK_CAUSE_AT(&st, "spec.policies[0].delay", "FieldValueNotSupported", 7, 58,
                   "unknown field \"spec.policies[0].delay\"");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].replica", "FieldValueNotSupported", 10, 14, "unknown field");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.metadata.lables", "FieldValueNotSupported", 12, 42, "unknown field");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spek", "FieldValueNotSupported", 13, 13, "unknown field");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.restartPolcy", "FieldValueNotSupported", 15, 23,
                   "unknown field \"spec.tasks[0].template.spec.restartPolcy\"");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.securityContext.runAsUsr", "FieldValueNotSupported", 16, 37,
                   "unknown field");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.containers[0].comand", "FieldValueNotSupported", 20, 19,
                   "unknown field");
    CHECK_INT(st.ncauses, 10);
    job_free(job);
}

static void refused_fields_say_why(void)
{
    struct api_status st;
    struct job *job = parse_with_head(
        "spec:\n"                                                       /* 4 */
        "  networkTopology: {mode: hard, highestTierAllowed: 1}\n"      /* 5 */
        "  tasks:\n"                                                    /* 6 */
        "  - replicas: 1\n"                                             /* 7 */
        "    topologyPolicy: single-numa-nod\n"                         /* 8 */
        "    partitionPolicy: {totalPartitions: 1, partitionSize: 1}\n" /* 9 */
        "    template:\n"                                               /* 10 */
        "      metadata: {ownerReferences: [{name: x}]}\n"              /* 11 */
        "      spec:\n"                                                 /* 12 */
        "        schedulerName: default-scheduler\n"                    /* 13 */
        "        hostUsers: false\n"                                    /* 14 */
        "        volumes: [{name: v, nfs: {server: s, path: /srv}}]\n"  /* 15 */
        "        containers:\n"                                         /* 16 */
        "        - name: c\n"                                           /* 17 */
        "          command: [x]\n"                                      /* 18 */
        "          livenessProbe: {exec: {command: [true]}}\n"          /* 19 */
        "          lifecycle: {postStart: {}}\n"                        /* 20 */
        "          tty: true\n"                                         /* 21 */
        "          securityContext: {privileged: true}\n"               /* 22 */
        "          resources: {claims: [{name: gpu}]}\n"                /* 23 */
        "          env: [{name: A, vaule: b}]\n",                       /* 24 */
        &st);
    CHECK(job == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CAUSE_AT(&st, "spec.networkTopology", "FieldValueForbidden", 5, 20, "Forbidden: Caldera has no HyperNodes");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].topologyPolicy", "FieldValueNotSupported", 8, 21, "supported values");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].partitionPolicy", "FieldValueForbidden", 9, 22, "network topology");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.metadata.ownerReferences", "FieldValueForbidden", 11, 35,
                   "garbage collector");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.schedulerName", "FieldValueForbidden", 13, 24,
                   "must be the Job's spec.schedulerName");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.hostUsers", "FieldValueForbidden", 14, 20, "user namespace");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.volumes[0].nfs", "FieldValueForbidden", 15, 34,
                   "Forbidden: nfs volumes are not supported");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.containers[0].livenessProbe", "FieldValueForbidden", 19, 26,
                   "runs no probes");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.containers[0].lifecycle", "FieldValueForbidden", 20, 22,
                   "no postStart or preStop hooks");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.containers[0].tty", "FieldValueForbidden", 21, 16, "stdin");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.containers[0].securityContext.privileged", "FieldValueForbidden",
                   22, 41, "does not confine");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.containers[0].resources.claims", "FieldValueForbidden", 23, 31,
                   "no dynamic resource allocation");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.containers[0].env[0].vaule", "FieldValueNotSupported", 24, 34,
                   "unknown field");
    CHECK_INT(st.ncauses, 13);
    job_free(job);
}

/* What a process runtime can truthfully accept is accepted, and omitempty values ask for nothing. */
static void accepted_fields_parse(void)
{
    struct api_status st;
    struct job *job = parse_with_head(
        "spec:\n"
        "  runningEstimate: 1h30m\n"
        "  tasks:\n"
        "  - replicas: 1\n"
        "    topologyPolicy: best-effort\n"
        "    template:\n"
        "      metadata: {name: ignored, labels: {app: x}, annotations: {a: b}}\n"
        "      spec:\n"
        "        hostNetwork: true\n"
        "        dnsPolicy: ClusterFirstWithHostNet\n"
        "        schedulerName: volcano\n"
        "        imagePullSecrets: [{name: reg}]\n"
        "        os: {name: linux}\n"
        "        automountServiceAccountToken: false\n"
        "        volumes: []\n"
        "        activeDeadlineSeconds: 600\n"
        "        priorityClassName: high-priority\n"
        "        containers:\n"
        "        - name: c\n"
        "          image: pytorch/pytorch:2.3\n"
        "          imagePullPolicy: IfNotPresent\n"
        "          command: [x]\n"
        "          ports: [{containerPort: 23456, name: master}]\n"
        "          terminationMessagePath: /dev/termination-log\n"
        "          livenessProbe: {}\n"
        "          stdin: false\n"
        "          securityContext: {runAsUser: 1000, runAsNonRoot: true}\n",
        &st);
    REQUIRE(job);
    CHECK_STR(job->tasks[0].image, "pytorch/pytorch:2.3");
    CHECK_INT(job->tasks[0].active_deadline_seconds, 600);
    CHECK_INT(job->tasks[0].run_as_uid, 1000);
    CHECK_STR(job->tasks[0].priority_class, "high-priority"); /* the task's priority, found at admission */
    job_free(job);
}

/* The API server's own metadata: cleared or replaced on create, never refused; ownerReferences and
 * finalizers would need a garbage collector Caldera lacks. */
static void server_metadata_on_create(void)
{
    struct api_status st;
    struct job *job = parse(
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n"
        "metadata:\n  name: j\n  uid: 1234\n  generation: 7\n  selfLink: /x\n"
        "  deletionTimestamp: \"2020-01-01T00:00:00Z\"\n  managedFields: [{manager: kubectl}]\n"
        "spec:\n" ONE_TASK,
        &st);
    REQUIRE(job);
    const json_t *meta = json_object_get(job_manifest(job), "metadata");
    CHECK(json_object_get(meta, "deletionTimestamp") == NULL);
    CHECK(json_object_get(meta, "selfLink") == NULL);
    /* managedFields stay, as Kubernetes keeps what a client sets: server-side apply records them there */
    CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(meta, "managedFields"), 0), "manager")),
              "kubectl");
    job_free(job);
    CHECK(parse("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n"
                "metadata:\n  name: j\n  finalizers: [example.com/keep]\n" /* 3-5 */
                "spec:\n" ONE_TASK,
                &st) == NULL);
    CHECK_CAUSE_AT(&st, "metadata.finalizers", "FieldValueForbidden", 5, 15, "could not be deleted");
}

static void deadline_and_security_values(void)
{
    struct api_status st;
    struct job *job = parse_with_head(
        "spec:\n"                                         /* 4 */
        "  tasks:\n"                                      /* 5 */
        "  - replicas: 1\n"                               /* 6 */
        "    template:\n"                                 /* 7 */
        "      spec:\n"                                   /* 8 */
        "        activeDeadlineSeconds: 0\n"              /* 9 */
        "        securityContext: {runAsNonRoot: true}\n" /* 10 */
        "        os: {name: windows}\n"                   /* 11 */
        "        containers:\n"                           /* 12 */
        "        - name: c\n"                             /* 13 */
        "          command: [x]\n"                        /* 14 */
        "          imagePullPolicy: Sometimes\n"          /* 15 */
        "          ports: [{containerPort: 70000}]\n",    /* 16 */
        &st);
    CHECK(job == NULL);
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.activeDeadlineSeconds", "FieldValueInvalid", 9, 32,
                   "Invalid value: 0: must be between 1 and 4294967295");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.securityContext.runAsNonRoot", "FieldValueInvalid", 10, 41,
                   "needs a runAsUser other than 0");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.os.name", "FieldValueNotSupported", 11, 20,
                   "Unsupported value: \"windows\": supported values: \"linux\"");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.containers[0].imagePullPolicy", "FieldValueNotSupported", 15, 28,
                   "\"Always\", \"IfNotPresent\", \"Never\"");
    CHECK_CAUSE_AT(&st, "spec.tasks[0].template.spec.containers[0].ports[0].containerPort", "FieldValueInvalid", 16, 35,
                   "must be between 1 and 65535");
    job_free(job);
}

/* Policy timeouts are metav1.Durations: Go's time.ParseDuration, not seconds. */
static void policy_timeouts_parse_as_go_durations(void)
{
    static const struct {
        const char *text;
        long long ms;    /* -1: refused */
        const char *why; /* part of the refusal */
    } cases[] = {
        {"1h30m", 5400000, NULL},
        {"1.5h", 5400000, NULL},
        {"300ms", 300, NULL},
        {"2m0.5s", 120500, NULL},
        {"0", 0, NULL},
        {"+5s", 5000, NULL},
        {".5s", 500, NULL},
        {"1000us", 1, NULL},
        {"90", -1, "time: missing unit in duration \"90\""},
        {"-", -1, "time: invalid duration \"-\""},
        {"", -1, "time: invalid duration \"\""},
        {"1d", -1, "time: unknown unit \"d\" in duration \"1d\""},
        {"-1s", -1, "must not be negative"},
        {"1.5ms", -1, "must be a whole number of milliseconds"},
        {"1h-5m", -1, "time: unknown unit \"h-\" in duration \"1h-5m\""},
        {"9999999999h", -1, "time: invalid duration"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t ms = -7;
        char why[160] = "";
        int rc = duration_parse_go(cases[i].text, &ms, why, sizeof why);
        if (cases[i].ms >= 0) {
            CHECK_INT(rc, 0);
            CHECK_INT(ms, cases[i].ms);
        } else {
            CHECK_INT(rc, -1);
            CHECK_CONTAINS(why, cases[i].why);
        }
    }
    struct api_status st;
    struct job *job = parse_with_head(
        "spec:\n"                                                        /* 4 */
        "  policies:\n"                                                  /* 5 */
        "  - {event: PodEvicted, action: RestartJob, timeout: \"90\"}\n" /* 6 */
        "  - {event: PodFailed, action: RestartJob, timeout: 90}\n"      /* 7 */
        "  tasks: [{replicas: 1, template: {spec: {containers: [{name: c, command: [x]}]}}}]\n",
        &st);
    CHECK(job == NULL);
    CHECK_CAUSE_AT(&st, "spec.policies[0].timeout", "FieldValueInvalid", 6, 54,
                   "Invalid value: \"90\": time: missing unit in duration \"90\"");
    CHECK_CAUSE_AT(&st, "spec.policies[1].timeout", "FieldValueInvalid", 7, 53, "must be a string, not an integer");
    job = parse_with_head(
        "spec:\n  runningEstimate: soon\n"
        "  tasks: [{replicas: 1, template: {spec: {containers: [{name: c, command: [x]}]}}}]\n",
        &st);
    CHECK(job == NULL);
    CHECK_CAUSE_AT(&st, "spec.runningEstimate", "FieldValueInvalid", 5, 20, "time: invalid duration \"soon\"");
}

static void volumes_parse_into_every_task(void)
{
    struct api_status st;
    struct job *job = parse_with_head(
        "spec:\n"
        "  volumes:\n"
        "  - mountPath: /data/simulation\n"
        "    volumeClaimName: sim-results\n"
        "  - mountPath: /scratch/my-set.v2/\n"
        "    volumeClaim:\n"
        "      accessModes: [ReadWriteOnce]\n"
        "      storageClassName: local\n"
        "      volumeMode: Filesystem\n"
        "      resources: {requests: {storage: 10Gi}, limits: {storage: 20Gi}}\n"
        "  tasks:\n"
        "  - {name: a, replicas: 1, template: {spec: {containers: [{name: c, command: [x]}]}}}\n"
        "  - {name: b, replicas: 1, template: {spec: {containers: [{name: c, command: [x]}]}}}\n",
        &st);
    REQUIRE(job);
    for (int t = 0; t < 2; t++) {
        REQUIRE(job->tasks[t].nvolumes == 2);
        CHECK_STR(job->tasks[t].volumes[0].mount_path, "/data/simulation");
        CHECK_STR(job->tasks[t].volumes[0].claim_name, "sim-results");
        CHECK_STR(job->tasks[t].volumes[0].env_name, "CALDERA_VOLUME_DATA_SIMULATION");
        CHECK(job->tasks[t].volumes[1].claim_name == NULL);
        CHECK_STR(job->tasks[t].volumes[1].env_name, "CALDERA_VOLUME_SCRATCH_MY_SET_V2");
        CHECK_INT(job->tasks[t].volumes[1].storage, 10LL << 30);
        CHECK(job->tasks[t].volumes[0].dir == NULL); /* the controller's to decide */
    }
    job_free(job);
}

/* clang-format off */
static void invalid_volumes_are_refused(void)
{
    struct api_status st;
    struct job *job = parse_with_head("spec:\n"                                                    /* 4 */
                                      "  volumes:\n"                                               /* 5 */
                                      "  - {mountPath: /a, volumeClaimName: x, volumeClaim: {resources: {requests: {storage: 1Gi}}}}\n" /* 6 */
                                      "  - {mountPath: /b}\n"                                      /* 7 */
                                      "  - {mountPath: data, volumeClaimName: cy}\n"               /* 8 */
                                      "  - {mountPath: /c, volumeClaimName: cy}\n"                 /* 9 */
                                      "  - {mountPath: /c, volumeClaimName: cz}\n"                 /* 10 */
                                      "  - {mountPath: /d, volumeClaim: {resources: {requests: {storage: 1GG}}}}\n" /* 11 */
                                      "  - {mountPath: /e, volumeClaim: {volumeMode: Block, resources: {requests: {}}}}\n" /* 12 */
                                      "  - {mountPath: /f, volumeClaim: {selector: {matchLabels: {a: b}}, resources: {requests: {storage: 1}}}}\n" /* 13 */
                                      "  - {mountPath: /g, volumeClaimName: Bad_Name, size: 1}\n"  /* 14 */
                                      "  - {mountPath: /a/../etc, volumeClaimName: w}\n"           /* 15 */
                                      ONE_TASK,
                                      &st);
    CHECK(job == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CAUSE_AT(&st, "spec.volumes[0].volumeClaimName", "FieldValueForbidden", 6, 38, "conflict");
    CHECK_CAUSE_AT(&st, "spec.volumes[1]", "FieldValueRequired", 7, 5,
                   "Required value: either volumeClaim or volumeClaimName must be specified");
    CHECK_CAUSE_AT(&st, "spec.volumes[2].mountPath", "FieldValueInvalid", 8, 17,
                   "Invalid value: \"data\": must be an absolute path");
    CHECK_CAUSE_AT(&st, "spec.volumes[4].mountPath", "FieldValueDuplicate", 10, 17, "Duplicate value: \"/c\"");
    CHECK_CAUSE_AT(&st, "spec.volumes[5].volumeClaim.resources.requests[storage]", "FieldValueInvalid", 11, 67,
                   "Invalid value: \"1GG\"");
    CHECK_CAUSE_AT(&st, "spec.volumes[6].volumeClaim.volumeMode", "FieldValueForbidden", 12, 47, "not block devices");
    CHECK_CAUSE_AT(&st, "spec.volumes[6].volumeClaim.resources.requests[storage]", "FieldValueRequired", 12, 76,
                   "Required value");
    CHECK_CAUSE_AT(&st, "spec.volumes[7].volumeClaim.selector", "FieldValueForbidden", 13, 45, "no PersistentVolumes");
    CHECK_CAUSE_AT(&st, "spec.volumes[8].volumeClaimName", "FieldValueInvalid", 14, 38, "RFC 1123 subdomain");
    CHECK_CAUSE_AT(&st, "spec.volumes[8].size", "FieldValueNotSupported", 14, 54, "unknown field \"spec.volumes[8].size\"");
    CHECK_CAUSE_AT(&st, "spec.volumes[9].mountPath", "FieldValueInvalid", 15, 17, "must not contain '..'");
    CHECK_INT(st.ncauses, 11);
    job_free(job);
}
/* clang-format on */

static void pod_group_min_resources_annotation(void)
{
    struct api_status st;
    struct job *job = parse(
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n"
        "metadata:\n  name: j\n  annotations:\n"
        "    caldera.io/pod-group-min-resources: '{\"cpu\":\"4\",\"memory\":\"8Gi\",\"nvidia.com/gpu\":1}'\n"
        "spec:\n" ONE_TASK,
        &st);
    REQUIRE(job);
    CHECK_INT(job->pg.min_resources.v[RES_CPU], 4000);
    CHECK_INT(job->pg.min_resources.v[RES_MEMORY], 8LL << 30);
    CHECK_INT(job->pg.min_resources.v[RES_GPU], 1);
    CHECK_INT(job->pg.min_resources.v[RES_PODS], 2); /* not named: the computed one */
    job_free(job);
    static const struct {
        const char *value, *why;
    } bad[] = {
        {"'cpu: 4'", "must be a JSON object of resource quantities"},
        {"'{\"cpu\":\"4\",\"bananas\":\"1\"}'", "bananas: no node offers this resource"},
        {"'{\"memory\":\"8GG\"}'", "memory: invalid quantity \"8GG\""},
        {"'{\"cpu\":\"1\"}'", "cpu 1 is less than 2, the requests of the job's minAvailable pods"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n" /* 1-2 */
                 "metadata:\n  name: j\n  annotations:\n"             /* 3-5 */
                 "    caldera.io/pod-group-min-resources: %s\n"       /* 6 */
                 "spec:\n" ONE_TASK,
                 bad[i].value);
        CHECK(parse(yaml, &st) == NULL);
        CHECK_CAUSE_AT(&st, "metadata.annotations[\"caldera.io/pod-group-min-resources\"]", "FieldValueInvalid", 6, 41,
                       bad[i].why);
    }
}

/* A Job an older, less strict server accepted is read back from the store whole: fields refused now
 * and the bare-seconds timeout it took pass when the document was admitted before. */
static void admitted_jobs_read_back_whatever_is_refused_now(void)
{
    static const char stored[] =
        "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"old\"},"
        "\"spec\":{\"networkTopology\":{\"mode\":\"hard\"},\"someFutureField\":1,"
        "\"policies\":[{\"event\":\"PodPending\",\"action\":\"AbortJob\",\"timeout\":\"300\"}],"
        "\"tasks\":[{\"name\":\"t\",\"replicas\":1,\"template\":{\"spec\":{\"containers\":"
        "[{\"name\":\"c\",\"command\":[\"x\"],\"livenessProbe\":{}}]}}}]}}";
    struct intake in;
    struct api_status st = {0};
    REQUIRE(intake_parse(stored, sizeof stored - 1, INTAKE_JSON, &in, &st) == 0);
    struct job *job = NULL;
    CHECK(volcano_job_from_doc(&in.docs[0], "default", &job, &st) != 0); /* a new submit: refused */
    CHECK_CONTAINS(st.message, "spec.networkTopology: Forbidden");
    CHECK_CONTAINS(st.message, "unknown field \"spec.someFutureField\"");
    CHECK_CONTAINS(st.message, "missing unit in duration");
    intake_free(&in);
    memset(&st, 0, sizeof st);
    REQUIRE(intake_parse(stored, sizeof stored - 1, INTAKE_JSON, &in, &st) == 0);
    CHECK(volcano_job_from_admitted_doc(&in.docs[0], "default", &job, &st) == 0);
    REQUIRE(job != NULL);
    CHECK_INT(job->policies[0].timeout_ms, 300000);
    job_free(job);
    intake_free(&in);
}

/* The server's limits on replicas and tasks, at their boundaries; a stored job over them still loads. */
static void replica_and_task_limits(void)
{
    struct job_limits saved = volcano_job_limits();
    volcano_job_set_limits((struct job_limits){.replicas_per_task = 3, .replicas_per_job = 5, .tasks_per_job = 2});
    static const char task[] = "  - replicas: %d\n    template: {spec: {containers: [{name: c, command: [x]}]}}\n";
    char yaml[2048], one[256];
    struct api_status st;
    struct job *job;
    int cases[][3] = {/* tasks, replicas each, accepted */ {1, 3, 1}, {1, 4, 0}, {2, 2, 1}, {2, 3, 0}, {3, 1, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int at = snprintf(yaml, sizeof yaml,
                          "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j}\n"
                          "spec:\n  tasks:\n");
        for (int t = 0; t < cases[c][0]; t++) {
            snprintf(one, sizeof one, task, cases[c][1]);
            at += snprintf(yaml + at, sizeof yaml - (size_t)at, "%s", one);
        }
        job = parse(yaml, &st);
        CHECK_INT(job != NULL, cases[c][2]);
        job_free(job);
        if (cases[c][2])
            continue;
        CHECK_INT(st.code, 422);
        if (cases[c][1] == 4)
            CHECK_CAUSE(&st, "spec.tasks[0].replicas", "FieldValueInvalid", 6,
                        "Invalid value: 4: must be less than or equal to 3 (this server's --max-replicas-per-task)");
        else if (cases[c][0] == 2)
            CHECK_CAUSE(&st, "spec.tasks", "FieldValueTooMany", 6,
                        "Too many: 6: must have at most 5 replicas in all tasks together");
        else
            CHECK_CAUSE(&st, "spec.tasks", "FieldValueTooMany", 6, "Too many: 3: must have at most 2 items");
        /* As admitted (a job stored before the limits were lowered), the same document loads. */
        struct intake in;
        memset(&st, 0, sizeof st);
        REQUIRE(intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st) == 0);
        job = NULL;
        CHECK(volcano_job_from_admitted_doc(&in.docs[0], "default", &job, &st) == 0);
        job_free(job);
        intake_free(&in);
    }
    volcano_job_set_limits(saved);
}

/* Sums the queue and the PodGroup keep must fit: 4 replicas of 2Ei of memory do not (found by the
 * YAML fuzzer); a name repeated among many tasks is still found. */
static void requests_that_cannot_be_counted_are_refused(void)
{
    struct api_status st;
    CHECK(parse("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: big}\nspec:\n  tasks:\n"
                "  - name: t\n    replicas: 4\n    template: {spec: {containers: [{name: c, command: [x], "
                "resources: {requests: {memory: 2Ei}}}]}}\n",
                &st) == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CONTAINS(st.message,
                   "spec.tasks: Invalid value: the replicas' memory requests add up to more than Caldera "
                   "can count");
    struct job *job = parse(
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: ok}\nspec:\n  tasks:\n"
        "  - name: t\n    replicas: 3\n    template: {spec: {containers: [{name: c, command: [x], "
        "resources: {requests: {memory: 2Ei}}}]}}\n",
        &st);
    CHECK(job != NULL); /* 6Ei still fits */
    job_free(job);
    /* the PodGroup minimum the annotation is checked against is such a sum too */
    CHECK(parse("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: big\n  annotations:\n"
                "    caldera.io/pod-group-min-resources: '{\"memory\":\"16Ki\"}'\nspec:\n  tasks:\n"
                "  - name: t\n    replicas: 2\n    template: {spec: {containers: [{name: c, command: [x], "
                "resources: {requests: {memory: 4Ei}}}]}}\n",
                &st) == NULL);
    CHECK_INT(st.code, 422);
    CHECK_INT(st.ncauses, 1);
    CHECK_CONTAINS(st.message,
                   "spec.tasks: Invalid value: the replicas' memory requests add up to more than Caldera "
                   "can count");
    CHECK(parse("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: d}\nspec:\n  tasks:\n"
                "  - {name: a, replicas: 1, template: {spec: {containers: [{name: c, command: [x]}]}}}\n"
                "  - {name: b, replicas: 1, template: {spec: {containers: [{name: c, command: [x]}]}}}\n"
                "  - {name: a, replicas: 1, template: {spec: {containers: [{name: c, command: [x]}]}}}\n",
                &st) == NULL);
    CHECK_CONTAINS(st.message, "spec.tasks[2].name: Duplicate value: \"a\": duplicated task name (line 8, column 12)");
}

/* topologyPolicy and the template's Volcano scheduling annotations reach the task; bad values name the field. */
static void scheduling_annotations_reach_the_task(void)
{
    struct api_status st = {0};
    struct job *job = parse_with_head(
        "spec:\n"
        "  tasks:\n"
        "  - replicas: 1\n"
        "    name: a\n"
        "    topologyPolicy: restricted\n"
        "    template:\n"
        "      metadata: {annotations: {volcano.sh/preemptable: \"true\"}}\n"
        "      spec: {containers: [{name: c, command: [x]}]}\n"
        "  - replicas: 1\n"
        "    name: b\n"
        "    template:\n"
        "      metadata:\n"
        "        annotations: {volcano.sh/numa-topology-policy: single-numa-node,\n"
        "                      volcano.sh/revocable-zone: \"*\"}\n"
        "      spec: {containers: [{name: c, command: [x]}]}\n",
        &st);
    REQUIRE(job != NULL);
    CHECK_INT(job->tasks[0].topology_policy, TOPO_RESTRICTED);
    CHECK(job->tasks[0].preemptable);
    CHECK(!job->tasks[0].revocable_zone);
    CHECK_INT(job->tasks[1].topology_policy, TOPO_SINGLE_NUMA_NODE);
    CHECK(!job->tasks[1].preemptable);
    CHECK(job->tasks[1].revocable_zone);
    job_free(job);
    job = parse_with_head(
        "spec:\n"
        "  tasks:\n"
        "  - replicas: 1\n"
        "    template:\n"
        "      metadata: {annotations: {volcano.sh/preemptable: \"yes\"}}\n"
        "      spec: {containers: [{name: c, command: [x]}]}\n",
        &st);
    CHECK(job == NULL);
    CHECK_INT(st.code, 422);
    CHECK_STR(st.causes[0].field, "spec.tasks[0].template.metadata.annotations[volcano.sh/preemptable]");
    CHECK_CONTAINS(st.causes[0].message, "Unsupported value: \"yes\"");
}

TEST_MAIN(TEST_CASE(scheduling_annotations_reach_the_task), TEST_CASE(requests_that_cannot_be_counted_are_refused),
          TEST_CASE(admitted_jobs_read_back_whatever_is_refused_now),
          TEST_CASE(defaults_as_volcano_admission_sets_them), TEST_CASE(runtime_fields_from_the_template),
          TEST_CASE(errors_name_field_and_line), TEST_CASE(type_and_namespace_errors_are_400),
          TEST_CASE(min_available_above_replicas_is_refused), TEST_CASE(generate_name_gets_a_suffix),
          TEST_CASE(render_and_restore_status), TEST_CASE(policy_errors_name_their_fields),
          TEST_CASE(lifecycle_fields_parse), TEST_CASE(depends_on_and_scale_errors),
          TEST_CASE(unknown_fields_are_refused_by_name), TEST_CASE(refused_fields_say_why),
          TEST_CASE(accepted_fields_parse), TEST_CASE(server_metadata_on_create),
          TEST_CASE(deadline_and_security_values), TEST_CASE(policy_timeouts_parse_as_go_durations),
          TEST_CASE(volumes_parse_into_every_task), TEST_CASE(invalid_volumes_are_refused),
          TEST_CASE(pod_group_min_resources_annotation), TEST_CASE(replica_and_task_limits))
