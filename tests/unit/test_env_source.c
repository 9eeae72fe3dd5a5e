/* env valueFrom in a Volcano Job's pod template: fieldRef and resourceFieldRef read and refused as
 * Kubernetes' validation does, and resolved against a rendered pod as the kubelet does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "adapters/objects/env_source.h"
#include "common/strv.h"
#include "model/resource.h"
#include "tests/lib/causes.h"
#include "tests/lib/test.h"
#include "tests/lib/yaml_fixture.h"

static struct job *parse_env(const char *env, const char *resources, struct api_status *st)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: train}\nspec:\n  tasks:\n"
             "  - name: w\n    replicas: 1\n    template:\n      spec:\n        serviceAccountName: trainer\n"
             "        containers:\n        - name: c\n          command: [env]\n%s%s",
             env, resources);
    return yaml_volcano_job(yaml, "team-a", false, st);
}

static void field_and_resource_refs_are_read_in_order(void)
{
    struct api_status st;
    struct job *job = parse_env(
        "          env:\n"
        "          - {name: LITERAL, value: x}\n"
        "          - {name: POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}\n"
        "          - name: TEAM\n"
        "            valueFrom: {fieldRef: {apiVersion: v1, fieldPath: \"metadata.labels['team']\"}}\n"
        "          - name: MEM_MI\n"
        "            valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}\n"
        "          - name: CPU_M\n"
        "            valueFrom: {resourceFieldRef: {containerName: c, resource: requests.cpu, "
        "divisor: 1m}}\n",
        "          resources: {limits: {memory: 1.5Gi}, requests: {cpu: 250m}}\n", &st);
    REQUIRE(job);
    const struct task_spec *ts = &job->tasks[0];
    CHECK_INT(strv_len(ts->env), 1);
    REQUIRE(ts->nenv_refs == 4);
    CHECK_STR(ts->env_refs[0].name, "POD");
    CHECK_STR(ts->env_refs[0].field_path, "metadata.name");
    CHECK(!ts->env_refs[0].resource);
    CHECK_STR(ts->env_refs[1].field_path, "metadata.labels['team']");
    CHECK_STR(ts->env_refs[2].field_path, "limits.memory");
    CHECK(ts->env_refs[2].resource);
    CHECK_INT(ts->env_refs[2].divisor, 1024 * 1024);
    CHECK_INT(ts->env_refs[3].divisor, 1); /* 1m of cpu: one millicore */
    job_free(job);
}

static void wrong_refs_name_their_fields(void)
{
    struct api_status st;
    struct job *job = parse_env(
        "          env:\n"
        "          - {name: A, valueFrom: {fieldRef: {fieldPath: spec.containers}}}\n"
        "          - {name: B, valueFrom: {fieldRef: {fieldPath: metadata.name, apiVersion: v2}}}\n"
        "          - {name: C, valueFrom: {resourceFieldRef: {resource: limits.gpu}}}\n"
        "          - {name: D, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: 1Mi}}}\n"
        "          - {name: E, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 3}}}\n"
        "          - {name: F, value: x, valueFrom: {fieldRef: {fieldPath: metadata.uid}}}\n"
        "          - {name: G, valueFrom: {}}\n"
        "          - {name: H, valueFrom: {fieldRef: {fieldPath: metadata.uid}, "
        "resourceFieldRef: {resource: limits.cpu}}}\n"
        "          - {name: I, valueFrom: {secretKeyRef: {name: s, key: a/b}}}\n"
        "          - {name: J, valueFrom: {resourceFieldRef: {containerName: other, resource: limits.cpu}}}\n"
        "          - {name: K, valueFrom: {fieldRef: {fieldPath: \"metadata.labels['-bad']\"}}}\n",
        "", &st);
    CHECK(job == NULL);
    CHECK_INT(st.code, 422);
#define ENV "spec.tasks[0].template.spec.containers[0].env"
    CHECK_CAUSE(&st, ENV "[0].valueFrom.fieldRef.fieldPath", "FieldValueNotSupported", 15, "\"metadata.name\"");
    CHECK_CAUSE(&st, ENV "[1].valueFrom.fieldRef.apiVersion", "FieldValueNotSupported", 16, "\"v1\"");
    CHECK_CAUSE(&st, ENV "[2].valueFrom.resourceFieldRef.resource", "FieldValueNotSupported", 17, "limits.cpu");
    CHECK_CAUSE(&st, ENV "[3].valueFrom.resourceFieldRef.divisor", "FieldValueInvalid", 18,
                "only divisor's values 1m and 1 are supported with the cpu resource");
    CHECK_CAUSE(&st, ENV "[4].valueFrom.resourceFieldRef.divisor", "FieldValueInvalid", 19, "1Ki");
    CHECK_CAUSE(&st, ENV "[5].valueFrom", "FieldValueInvalid", 20, "may not be specified when `value` is not empty");
    CHECK_CAUSE(&st, ENV "[6].valueFrom", "FieldValueInvalid", 21, "must specify one of");
    CHECK_CAUSE(&st, ENV "[7].valueFrom", "FieldValueInvalid", 22, "may not have more than one field");
    CHECK_CAUSE(&st, ENV "[8].valueFrom.secretKeyRef.key", "FieldValueInvalid", 23, "a valid config key");
    CHECK_CAUSE(&st, ENV "[9].valueFrom.resourceFieldRef.containerName", "FieldValueInvalid", 24, "container");
    CHECK_CAUSE(&st, ENV "[10].valueFrom.fieldRef.fieldPath", "FieldValueInvalid", 25, "alphanumeric");
#undef ENV
}

/* The kubelet's values: the pod's own fields, its labels (missing: ""), the ServiceAccount, limits
 * rounded up by their divisor, and an unset limit read as the node's allocatable. */
static void refs_resolve_against_the_pod(void)
{
    struct api_status st;
    struct job *job = parse_env(
        "          env:\n"
        "          - {name: A, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}\n"
        "          - {name: B, valueFrom: {fieldRef: {fieldPath: \"metadata.labels['team']\"}}}\n"
        "          - {name: C, valueFrom: {fieldRef: {fieldPath: \"metadata.labels['none']\"}}}\n"
        "          - {name: D, valueFrom: {fieldRef: {fieldPath: spec.serviceAccountName}}}\n"
        "          - {name: E, valueFrom: {fieldRef: {fieldPath: status.podIPs}}}\n"
        "          - {name: F, valueFrom: {resourceFieldRef: {resource: limits.memory, "
        "divisor: 1Gi}}}\n"
        "          - {name: G, valueFrom: {resourceFieldRef: {resource: limits.cpu}}}\n"
        "          - {name: H, valueFrom: {resourceFieldRef: {resource: requests.cpu, "
        "divisor: 1m}}}\n",
        "          resources: {limits: {memory: 1.5Gi}, requests: {cpu: 250m}}\n", &st);
    REQUIRE(job);
    json_t *pod = json_pack("{s:{s:s, s:s, s:{s:s}}, s:{s:s}, s:{s:s}}", "metadata", "name", "train-w-0", "namespace",
                            "team-a", "labels", "team", "vision", "spec", "serviceAccountName", "trainer", "status",
                            "podIP", "127.0.0.1");
    struct node node = {0};
    node.allocatable.v[RES_CPU] = 7500; /* 7.5 cores: 8 when rounded up */
    static const char *const want[] = {"team-a", "vision", "", "trainer", "127.0.0.1", "2", "8", "250"};
    const struct task_spec *ts = &job->tasks[0];
    REQUIRE(ts->nenv_refs == 8);
    for (int i = 0; i < 8; i++) {
        char value[64] = "?";
        CHECK_INT(env_source_resolve(&ts->env_refs[i], ts, pod, &node, value, sizeof value), 0);
        CHECK_STR(value, want[i]);
    }
    json_decref(pod);
    job_free(job);
}

TEST_MAIN(TEST_CASE(field_and_resource_refs_are_read_in_order), TEST_CASE(wrong_refs_name_their_fields),
          TEST_CASE(refs_resolve_against_the_pod))
