/* runtime/slurm/slurm_script.c: Volcano Jobs (as the manifest renders them, after admission or a Kubeflow
 * translation) into Slurm submit bodies and batch scripts, against golden files in tests/unit/data/slurm/
 * (UPDATE_GOLDEN=1 rewrites them); what cannot run on Slurm is refused naming the field. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "adapters/dialects/volcano/job.h"
#include "adapters/dialects/volcano/manifest.h"
#include "adapters/intake/intake.h"
#include "common/fs.h"
#include "model/job.h"
#include "runtime/slurm/slurm_script.h"
#include "tests/lib/test.h"

#define DATA "tests/unit/data/slurm/"
#define UID "6f1c2d3e-0000-4000-8000-00000000abcd"

static const char *const ENV[] = {"PATH=/usr/bin:/bin", NULL};

/* The manifest a document becomes: admitted (Volcano) or translated (a dialect), then rendered. */
static json_t *manifest_of(const char *yaml)
{
    struct intake in;
    struct api_status st = {0};
    struct job *job = NULL;
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st) != 0) {
        fprintf(stderr, "intake: %s\n", st.message);
        return NULL;
    }
    const json_t *root = in.docs[0].root;
    const struct dialect *d = dialect_by_kind(json_string_value(json_object_get(root, "apiVersion")),
                                              json_string_value(json_object_get(root, "kind")));
    int rc = d ? dialect_job_from_doc(d, &in.docs[0], "team-a", &job, &st)
               : volcano_job_from_doc(&in.docs[0], "team-a", &job, &st);
    json_t *m = rc == 0 ? manifest_job(job) : NULL;
    if (rc != 0)
        fprintf(stderr, "admission: %s\n", st.message);
    job_free(job);
    intake_free(&in);
    return m;
}

/* Compares text with a golden file, or rewrites it under UPDATE_GOLDEN=1. */
static void check_golden(const char *text, const char *file)
{
    char path[256];
    snprintf(path, sizeof path, DATA "%s", file);
    if (getenv("UPDATE_GOLDEN")) {
        REQUIRE(write_file_atomic(path, text, strlen(text), 0644) == 0);
        return;
    }
    char *want = NULL;
    size_t len;
    REQUIRE(read_file(path, 1 << 20, &want, &len) == 0);
    CHECK_STR(text, want);
    free(want);
}

/* The plan's submit body (script left out: it has its own golden) and script against name.json/.sh. */
static void check_plan(const struct slurm_plan *p, const char *name)
{
    char err[256], file[128];
    json_t *body = slurm_submit_body(&p->spec, err, sizeof err);
    REQUIRE(body);
    json_object_del(body, "script");
    char *text = json_dumps(body, JSON_INDENT(2) | JSON_SORT_KEYS);
    size_t n = strlen(text);
    text = realloc(text, n + 2);
    strcpy(text + n, "\n");
    snprintf(file, sizeof file, "%s.json", name);
    check_golden(text, file);
    free(text);
    json_decref(body);
    snprintf(file, sizeof file, "%s.sh", name);
    check_golden(p->script, file);
}

static int plan(const char *yaml, struct slurm_plan *p, char *err, size_t errlen)
{
    json_t *m = manifest_of(yaml);
    if (!m) {
        snprintf(err, errlen, "no manifest");
        return -1;
    }
    struct slurm_plan_opts o = {.uid = UID, .attempt = 2, .work_dir = "/shared/caldera", .env = ENV};
    int rc = slurm_plan_build(m, &o, p, err, errlen);
    json_decref(m);
    return rc;
}

static const char *const two_tasks =
    "apiVersion: batch.volcano.sh/v1alpha1\n"
    "kind: Job\n"
    "metadata: {name: sim}\n"
    "spec:\n"
    "  minAvailable: 3\n"
    "  plugins: {env: [], svc: []}\n"
    "  tasks:\n"
    "  - name: ps\n"
    "    replicas: 1\n"
    "    template:\n"
    "      spec:\n"
    "        restartPolicy: Never\n"
    "        containers:\n"
    "        - name: ps\n"
    "          image: busybox\n"
    "          command: [sh, -c, 'echo \"ps $VC_TASK_INDEX\"']\n"
    "          workingDir: /srv/sim\n"
    "          env: [{name: ROLE, value: \"it's ps\"}]\n"
    "          resources: {requests: {cpu: 500m, memory: 512Mi}}\n"
    "  - name: sim-worker\n"
    "    replicas: 2\n"
    "    template:\n"
    "      spec:\n"
    "        restartPolicy: Never\n"
    "        containers:\n"
    "        - name: w\n"
    "          image: busybox\n"
    "          command: [python3]\n"
    "          args: [sim.py, --steps=10]\n"
    "          resources: {limits: {cpu: \"2\", memory: 1Gi}}\n";

/* Tasks that differ in resources: a heterogeneous job, one component per task, ranks in task order. */
static void test_two_tasks_het_golden(void)
{
    struct slurm_plan p;
    char err[256];
    REQUIRE(plan(two_tasks, &p, err, sizeof err) == 0 || (fprintf(stderr, "%s\n", err), 0));
    CHECK_INT(p.ntasks, 2);
    CHECK_INT((int)p.spec.ncomponents, 2);
    CHECK_INT(p.tasks[1].first_rank, 1);
    CHECK_INT(p.tasks[1].component, 1);
    CHECK_INT(p.components[0].cpus_per_task, 1);
    CHECK_INT((int)p.components[0].memory_per_cpu_mb, 512);
    CHECK_INT(p.components[1].tasks, 2);
    CHECK_INT((int)p.components[1].memory_per_cpu_mb, 512); /* 1Gi over 2 cpus */
    CHECK_STR(p.comment, "caldera.io/uid=" UID "/2");
    CHECK_CONTAINS(p.script, "export VC_SIM_WORKER_HOSTS=\"$(echo \"$H\" | cut -d, -f2-3)\"");
    CHECK_CONTAINS(p.script, "--het-group=1 -n 2 sh");
    check_plan(&p, "plan_two_tasks");
    slurm_plan_free(&p);
}

static const char *const pytorch_job =
    "apiVersion: kubeflow.org/v1\n"
    "kind: PyTorchJob\n"
    "metadata: {name: mnist}\n"
    "spec:\n"
    "  pytorchReplicaSpecs:\n"
    "    Master:\n"
    "      replicas: 1\n"
    "      restartPolicy: OnFailure\n"
    "      template:\n"
    "        spec:\n"
    "          containers:\n"
    "          - name: pytorch\n"
    "            image: pytorch\n"
    "            command: [python3, train.py]\n"
    "    Worker:\n"
    "      replicas: 2\n"
    "      restartPolicy: OnFailure\n"
    "      template:\n"
    "        spec:\n"
    "          containers:\n"
    "          - name: pytorch\n"
    "            image: pytorch\n"
    "            command: [python3, train.py]\n";

/* A Kubeflow PyTorchJob through its adapter: alike tasks share one component; the pytorch plugin's
 * variables come from the first rank's host. */
static void test_pytorch_job_golden(void)
{
    struct slurm_plan p;
    char err[256];
    REQUIRE(plan(pytorch_job, &p, err, sizeof err) == 0 || (fprintf(stderr, "%s\n", err), 0));
    CHECK_INT((int)p.spec.ncomponents, 1);
    CHECK_INT(p.components[0].tasks, 3);
    CHECK_STR(p.tasks[0].name, "master");
    CHECK_CONTAINS(p.script, "export MASTER_ADDR=\"$(echo \"$H\" | cut -d, -f1)\"");
    CHECK_CONTAINS(p.script, "export WORLD_SIZE=3");
    CHECK_CONTAINS(p.script, "\"RANK=$((i + 1))\"");
    check_plan(&p, "plan_pytorch");
    slurm_plan_free(&p);
}

/* nvidia.com/gpu becomes GPUs per task (per replica), whichever node the replica lands on. */
static void test_gpus(void)
{
    const char *yaml =
        "apiVersion: batch.volcano.sh/v1alpha1\n"
        "kind: Job\n"
        "metadata: {name: g}\n"
        "spec:\n"
        "  tasks:\n"
        "  - name: trainer\n"
        "    replicas: 2\n"
        "    template:\n"
        "      spec:\n"
        "        containers:\n"
        "        - name: t\n"
        "          image: cuda\n"
        "          command: [nvidia-smi]\n"
        "          resources: {limits: {nvidia.com/gpu: 2, cpu: \"4\", memory: 16Gi}}\n";
    struct slurm_plan p;
    char err[256];
    REQUIRE(plan(yaml, &p, err, sizeof err) == 0 || (fprintf(stderr, "%s\n", err), 0));
    CHECK_INT(p.components[0].gpus_per_task, 2);
    CHECK_INT(p.components[0].cpus_per_task, 4);
    CHECK_INT((int)p.components[0].memory_per_cpu_mb, 4096);
    check_plan(&p, "plan_gpus");
    slurm_plan_free(&p);
}

/* What Slurm cannot run is refused with the field's path; the Job inside a List is the one planned. */
static void test_refusals_and_lists(void)
{
    struct slurm_plan_opts o = {.uid = UID, .attempt = 1, .work_dir = "/w"};
    struct slurm_plan p;
    char err[256];
    json_t *m = json_loads(
        "{\"kind\":\"Job\",\"metadata\":{\"name\":\"a\"},\"spec\":{\"tasks\":[{\"name\":\"t\","
        "\"replicas\":1,\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"x\"}]}}}]}}",
        0, NULL);
    REQUIRE(m);
    CHECK_INT(slurm_plan_build(m, &o, &p, err, sizeof err), -1);
    CHECK_CONTAINS(err, "spec.tasks[0].template.spec.containers[0].command");
    json_t *c = json_array_get(
        json_object_get(
            json_object_get(
                json_object_get(json_array_get(json_object_get(json_object_get(m, "spec"), "tasks"), 0), "template"),
                "spec"),
            "containers"),
        0);
    json_object_set_new(c, "command", json_pack("[s]", "true"));
    json_object_set_new(c, "env", json_pack("[{s:s,s:{}}]", "name", "X", "valueFrom"));
    CHECK_INT(slurm_plan_build(m, &o, &p, err, sizeof err), -1);
    CHECK_CONTAINS(err, "containers[0].env[0]");
    json_object_del(c, "env");
    json_t *list = json_pack("{s:s,s:[{s:s},O]}", "kind", "List", "items", "kind", "Pod", m);
    REQUIRE(slurm_plan_build(list, &o, &p, err, sizeof err) == 0);
    CHECK_STR(p.name, "default.a");
    CHECK_CONTAINS(p.script, "set -- env 'true'");
    slurm_plan_free(&p);
    json_decref(list);
    CHECK_INT(slurm_plan_build(json_object_get(m, "metadata"), &o, &p, err, sizeof err), -1);
    CHECK_CONTAINS(err, "no Volcano Job");
    json_decref(m);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {TEST_CASE(test_two_tasks_het_golden), TEST_CASE(test_pytorch_job_golden),
                                             TEST_CASE(test_gpus), TEST_CASE(test_refusals_and_lists)};
    return test_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
