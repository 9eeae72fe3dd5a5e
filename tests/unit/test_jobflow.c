/* Volcano's JobFlow, pure: its validation (a cycle, a target that is no flow, a flow named twice, a
 * bad output, each cause naming its field), the planner of each sync (what starts, the phase, a
 * failed step stopping its dependents, probes), the job a step makes, and the stored form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/jobflow.h"
#include "model/flow_dag.h"
#include "tests/lib/test.h"

static int parse(const char *flows, struct job_flow **f, struct api_status *st)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "apiVersion: flow.volcano.sh/v1alpha1\nkind: JobFlow\nmetadata:\n  name: pipe\nspec:\n  flows:\n%s",
             flows);
    struct intake in;
    memset(st, 0, sizeof *st);
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, st) != 0)
        return -1;
    int rc = jobflow_from_doc(&in.docs[0], "team-a", f, st);
    intake_free(&in);
    return rc;
}

static const char *diamond =
    "  - name: a\n"
    "  - name: b\n    dependsOn:\n      targets: [a]\n"
    "  - name: c\n    dependsOn:\n      targets: [a]\n"
    "  - name: d\n    dependsOn:\n      targets: [b, c]\n"
    "  - name: e\n    dependsOn:\n      targets: [d]\n";

static void refusals_name_the_field(void)
{
    struct job_flow *f;
    struct api_status st;
    CHECK(parse("  - name: a\n    dependsOn:\n      targets: [c]\n"
                "  - name: b\n    dependsOn:\n      targets: [a]\n"
                "  - name: c\n    dependsOn:\n      targets: [b]\n",
                &f, &st) != 0);
    CHECK_INT(st.code, 422);
    REQUIRE(st.ncauses == 1);
    CHECK_CONTAINS(st.causes[0].field, ".dependsOn.targets[0]");
    CHECK_CONTAINS(st.causes[0].message, "cycle");
    CHECK(parse("  - name: a\n  - name: b\n    dependsOn:\n      targets: [a, zz]\n", &f, &st) != 0);
    REQUIRE(st.ncauses == 1);
    CHECK_STR(st.causes[0].field, "spec.flows[1].dependsOn.targets[1]");
    CHECK_STR(st.causes[0].reason, "FieldValueNotFound");
    CHECK(parse("  - name: a\n  - name: a\n", &f, &st) != 0);
    CHECK_STR(st.causes[0].field, "spec.flows[1].name");
    CHECK(parse("  - name: a\n    dependsOn:\n      targets: [a]\n", &f, &st) != 0); /* itself */
    CHECK_CONTAINS(st.causes[0].message, "cycle");
    CHECK(parse("  - name: a\n    outputs:\n    - name: m\n      path: ../etc/passwd\n", &f, &st) != 0);
    CHECK_STR(st.causes[0].field, "spec.flows[0].outputs[0].path");
    CHECK(parse("  - name: a\n    outputs:\n    - name: m\n      path: /etc/passwd\n", &f, &st) != 0);
}

static const char *two_steps =
    "  - name: server\n  - name: client\n    dependsOn:\n      targets: [server]\n"
    "      probe:\n";

/* The field of the only cause of refusing two_steps with this probe. */
static const char *refused_field(const char *probe, struct api_status *st)
{
    char flows[1024];
    struct job_flow *f = NULL;
    snprintf(flows, sizeof flows, "%s%s", two_steps, probe);
    if (parse(flows, &f, st) == 0) {
        job_flow_free(f);
        return "(accepted)";
    }
    return st->ncauses == 1 ? st->causes[0].field : "(not one cause)";
}

static void network_probes_are_checked(void)
{
    struct job_flow *f;
    struct api_status st;
    char flows[1024];
    snprintf(flows, sizeof flows, "%s%s", two_steps,
             "        httpGetList:\n        - {taskName: web, port: 8080, path: /healthz,"
             " httpHeader: {name: X-Probe, value: flow}}\n"
             "        - {taskName: web, port: 8081}\n"
             "        tcpSocketList:\n        - {taskName: db, port: 5432}\n");
    REQUIRE(parse(flows, &f, &st) == 0);
    REQUIRE(f->steps[1].nnets == 3);
    CHECK_STR(f->steps[1].nets[0].task, "web");
    CHECK_INT(f->steps[1].nets[0].port, 8080);
    CHECK_STR(f->steps[1].nets[0].path, "/healthz");
    CHECK_STR(f->steps[1].nets[0].header, "X-Probe: flow");
    CHECK_STR(f->steps[1].nets[1].path, "/"); /* Volcano's path is optional */
    CHECK(f->steps[1].nets[1].header == NULL);
    CHECK_STR(f->steps[1].nets[2].task, "db");
    CHECK(f->steps[1].nets[2].path == NULL); /* a TCP connect */
    CHECK(flow_step_probed(&f->steps[1]));
    CHECK(!flow_step_probed(&f->steps[0]));
    job_flow_free(f);

    CHECK_STR(refused_field("        httpGetList: [{taskName: web, port: 0}]\n", &st),
              "spec.flows[1].dependsOn.probe.httpGetList[0].port");
    CHECK_INT(st.code, 422);
    CHECK_STR(refused_field("        tcpSocketList: [{taskName: web, port: 65536}]\n", &st),
              "spec.flows[1].dependsOn.probe.tcpSocketList[0].port");
    CHECK_STR(refused_field("        tcpSocketList: [{taskName: web}]\n", &st),
              "spec.flows[1].dependsOn.probe.tcpSocketList[0].port");
    CHECK_STR(refused_field("        tcpSocketList: [{taskName: web, port: http}]\n", &st),
              "spec.flows[1].dependsOn.probe.tcpSocketList[0].port");
    CHECK_STR(refused_field("        tcpSocketList: [{port: 80}]\n", &st),
              "spec.flows[1].dependsOn.probe.tcpSocketList[0].taskName");
    CHECK_STR(refused_field("        tcpSocketList: [{taskName: web, port: 80, path: /}]\n", &st),
              "spec.flows[1].dependsOn.probe.tcpSocketList[0].path");
    CHECK_STR(refused_field("        httpGetList: [{taskName: web, port: 80, path: healthz}]\n", &st),
              "spec.flows[1].dependsOn.probe.httpGetList[0].path");
    CHECK_STR(refused_field("        httpGetList: [{taskName: web, port: 80, path: '/a b'}]\n", &st),
              "spec.flows[1].dependsOn.probe.httpGetList[0].path");
    CHECK_STR(
        refused_field("        httpGetList: [{taskName: web, port: 80, httpHeader: {name: 'X:Y', value: v}}]\n", &st),
        "spec.flows[1].dependsOn.probe.httpGetList[0].httpHeader.name");
    CHECK_STR(refused_field("        httpGetList: [{taskName: web, port: 80, httpHeader: {value: v}}]\n", &st),
              "spec.flows[1].dependsOn.probe.httpGetList[0].httpHeader.name");
    CHECK_STR(refused_field("        httpGetList: {taskName: web, port: 80}\n", &st),
              "spec.flows[1].dependsOn.probe.httpGetList");
}

static void planner_follows_the_dependencies(void)
{
    struct job_flow *f;
    struct api_status st;
    REQUIRE(parse(diamond, &f, &st) == 0);
    int start[8];
    struct flow_plan plan = {.start = start};
    flow_dag_plan(f, NULL, &plan);
    CHECK_INT(plan.phase, FLOW_PENDING);
    REQUIRE(plan.nstart == 1);
    CHECK_INT(start[0], 0);
    f->steps[0].state = STEP_CREATED;
    snprintf(f->steps[0].phase, sizeof f->steps[0].phase, "Running");
    flow_dag_plan(f, NULL, &plan);
    CHECK_INT(plan.phase, FLOW_RUNNING);
    CHECK_INT(plan.nstart, 0);
    f->steps[0].state = STEP_COMPLETED;
    flow_dag_plan(f, NULL, &plan);
    REQUIRE(plan.nstart == 2); /* b and c together */
    CHECK_INT(start[0], 1);
    CHECK_INT(start[1], 2);
    f->steps[1].state = STEP_COMPLETED;
    f->steps[2].state = STEP_CREATED;
    flow_dag_plan(f, NULL, &plan);
    CHECK_INT(plan.nstart, 0); /* d waits for c */
    f->steps[2].state = STEP_FAILED;
    flow_dag_plan(f, NULL, &plan);
    CHECK_INT(plan.phase, FLOW_FAILED);
    CHECK_INT(plan.failed_step, 2);
    CHECK_INT(plan.nstart, 0); /* nothing after a failure */
    f->steps[2].state = STEP_COMPLETED;
    f->steps[3].state = STEP_COMPLETED;
    f->steps[4].state = STEP_COMPLETED;
    flow_dag_plan(f, NULL, &plan);
    CHECK_INT(plan.phase, FLOW_SUCCEED);
    job_flow_free(f);
}

static void probes_start_a_step_beside_its_target(void)
{
    struct job_flow *f;
    struct api_status st;
    REQUIRE(parse("  - name: server\n  - name: client\n    dependsOn:\n      targets: [server]\n      probe:\n"
                  "        taskStatusList:\n        - taskName: t\n          phase: Running\n",
                  &f, &st) == 0);
    int start[4];
    bool ok[2] = {false, false};
    struct flow_plan plan = {.start = start};
    f->steps[0].state = STEP_CREATED;
    snprintf(f->steps[0].phase, sizeof f->steps[0].phase, "Running");
    flow_dag_plan(f, ok, &plan);
    CHECK_INT(plan.nstart, 0);
    ok[1] = true;
    flow_dag_plan(f, ok, &plan);
    REQUIRE(plan.nstart == 1);
    CHECK_INT(start[0], 1);
    job_flow_free(f);
}

/* A step probing the network waits for its target's job to exist and for the sync's verdict on its
 * probes (the probe thread's answers); nothing of it starts before its target was created. */
static void network_probes_start_a_step_beside_its_target(void)
{
    struct job_flow *f;
    struct api_status st;
    REQUIRE(parse("  - name: server\n  - name: client\n    dependsOn:\n      targets: [server]\n      probe:\n"
                  "        tcpSocketList:\n        - {taskName: t, port: 9000}\n",
                  &f, &st) == 0);
    int start[4];
    bool ok[2] = {false, true};
    struct flow_plan plan = {.start = start};
    flow_dag_plan(f, ok, &plan);
    REQUIRE(plan.nstart == 1); /* server only: client's target has no job yet, whatever its probe says */
    CHECK_INT(start[0], 0);
    f->steps[0].state = STEP_CREATED;
    snprintf(f->steps[0].phase, sizeof f->steps[0].phase, "Running");
    ok[1] = false;
    flow_dag_plan(f, ok, &plan);
    CHECK_INT(plan.nstart, 0); /* the port has not answered */
    ok[1] = true;
    flow_dag_plan(f, ok, &plan);
    REQUIRE(plan.nstart == 1);
    CHECK_INT(start[0], 1);
    CHECK_INT(plan.phase, FLOW_RUNNING);
    f->steps[0].state = STEP_FAILED;
    flow_dag_plan(f, ok, &plan);
    CHECK_INT(plan.nstart, 0); /* a failed target stops it, answered or not */
    job_flow_free(f);
}

static void a_step_job_and_the_stored_form(void)
{
    struct job_flow *f;
    struct api_status st;
    REQUIRE(parse("  - name: prep\n    outputs:\n    - name: data-path\n      path: out/p.txt\n"
                  "  - name: train\n    dependsOn:\n      targets: [prep]\n    patch:\n      spec:\n        tasks:\n"
                  "        - name: t\n          replicas: 2\n",
                  &f, &st) == 0);
    snprintf(f->uid, sizeof f->uid, "flow-uid");
    struct job_template t = {.ns = "team-a", .name = "train"};
    t.manifest = json_loads(
        "{\"metadata\":{\"name\":\"train\"},\"spec\":{\"tasks\":[{\"name\":\"t\",\"replicas\":1,"
        "\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"command\":[\"true\"]}]}}}]}}",
        0, NULL);
    f->steps[0].state = STEP_COMPLETED;
    snprintf(f->steps[0].phase, sizeof f->steps[0].phase, "Completed");
    f->steps[0].values = json_pack("{s:s}", "data-path", "/data/x");
    json_t *doc = jobflow_job_document(f, &f->steps[1], &t, &st);
    REQUIRE(doc);
    CHECK_STR(json_string_value(json_object_get(json_object_get(doc, "metadata"), "name")), "pipe-train");
    json_t *task = json_array_get(json_object_get(json_object_get(doc, "spec"), "tasks"), 0);
    CHECK_INT((int)json_integer_value(json_object_get(task, "replicas")), 2);
    json_t *env = json_array_get(
        json_object_get(
            json_array_get(json_object_get(json_object_get(json_object_get(task, "template"), "spec"), "containers"),
                           0),
            "env"),
        0);
    CHECK_STR(json_string_value(json_object_get(env, "name")), "CALDERA_INPUT_PREP_DATA_PATH");
    CHECK_STR(json_string_value(json_object_get(env, "value")), "/data/x");
    json_decref(doc);
    json_decref(t.manifest);
    char *text = jobflow_to_store_json(f);
    REQUIRE(text);
    struct job_flow *back = jobflow_from_store_json(text);
    REQUIRE(back);
    CHECK_STR(back->uid, "flow-uid");
    CHECK_INT(back->steps[0].state, STEP_COMPLETED);
    CHECK_STR(json_string_value(json_object_get(back->steps[0].values, "data-path")), "/data/x");
    CHECK_INT(back->steps[1].state, STEP_WAITING);
    free(text);
    job_flow_free(back);
    job_flow_free(f);
}

TEST_MAIN(TEST_CASE(refusals_name_the_field), TEST_CASE(planner_follows_the_dependencies),
          TEST_CASE(network_probes_are_checked), TEST_CASE(probes_start_a_step_beside_its_target),
          TEST_CASE(network_probes_start_a_step_beside_its_target), TEST_CASE(a_step_job_and_the_stored_form))
