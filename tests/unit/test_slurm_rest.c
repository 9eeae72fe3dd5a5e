/* runtime/slurm/slurm_rest.c's pure half: submit bodies against golden JSON (tests/unit/data/slurm/),
 * and job and submit answers as slurmrestd 22.05 (v0.0.38) gives them. */
#include <jansson.h>
#include <stdlib.h>

#include "runtime/slurm/slurm_rest.h"
#include "tests/lib/test.h"

#define DATA "tests/unit/data/slurm/"

static char *slurp(const char *path)
{
    json_t *j = json_load_file(path, 0, NULL);
    char *s = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(j);
    return s;
}

static const char *const ENV[] = {"PATH=/usr/bin:/bin", "MASTER_PORT=29500", NULL};

static void test_submit_het_golden(void)
{
    struct slurm_component c[2] = {{.nodes = 1, .tasks = 1, .memory_per_node_mb = 2048, .gres = "gpu:1"},
                                   {.nodes = 2, .tasks = 4, .cpus_per_task = 4, .gpus_per_task = 2}};
    struct slurm_job_spec spec = {.name = "train",
                                  .script = "#!/bin/sh\nsrun --het-group=0,1 python train.py\n",
                                  .cwd = "/srv/job",
                                  .std_out = "/srv/job/%x-%j-%t.out",
                                  .env = ENV,
                                  .components = c,
                                  .ncomponents = 2};
    char err[256];
    json_t *body = slurm_submit_body(&spec, err, sizeof err);
    REQUIRE(body);
    char *got = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS), *want = slurp(DATA "submit_het.json");
    CHECK_STR(got, want);
    free(got);
    free(want);
    json_decref(body);
}

static void test_submit_one_component(void)
{
    struct slurm_component c = {.tasks = 2};
    struct slurm_job_spec spec = {
        .name = "a", .script = "#!/bin/sh\ntrue\n", .cwd = "/tmp", .components = &c, .ncomponents = 1};
    char err[256];
    json_t *body = slurm_submit_body(&spec, err, sizeof err);
    REQUIRE(body);
    json_t *job = json_object_get(body, "job");
    CHECK(json_is_object(job));
    CHECK(!json_object_get(body, "jobs"));
    CHECK_INT(json_integer_value(json_object_get(job, "tasks")), 2);
    CHECK(!json_object_get(job, "nodes"));
    CHECK(json_is_object(json_object_get(job, "environment"))); /* required, even empty */
    json_decref(body);
}

static void test_submit_refusals(void)
{
    struct slurm_component c = {0};
    const char *const bad_env[] = {"NOEQUALS", NULL};
    struct slurm_job_spec spec = {.script = "echo", .cwd = "/tmp", .components = &c, .ncomponents = 1};
    char err[256];
    CHECK(!slurm_submit_body(&spec, err, sizeof err));
    CHECK_CONTAINS(err, "#!");
    spec.script = "#!/bin/sh\n";
    spec.cwd = "rel";
    CHECK(!slurm_submit_body(&spec, err, sizeof err));
    CHECK_CONTAINS(err, "absolute");
    spec.cwd = "/tmp";
    spec.env = bad_env;
    CHECK(!slurm_submit_body(&spec, err, sizeof err));
    CHECK_CONTAINS(err, "NOEQUALS");
    spec.env = NULL;
    spec.ncomponents = 0;
    CHECK(!slurm_submit_body(&spec, err, sizeof err));
}

static void test_parse_jobs(void)
{
    json_t *j = json_load_file(DATA "job_failed.json", 0, NULL);
    REQUIRE(j);
    char *text = json_dumps(j, 0), err[256];
    json_decref(j);
    struct slurm_job_info info[1];
    int n = slurm_parse_jobs(text, info, 1, err, sizeof err);
    CHECK_INT(n, 2); /* the count, beyond max */
    CHECK_INT(info[0].job_id, 2);
    CHECK_INT(info[0].state, SLURM_STATE_FAILED);
    CHECK(slurm_state_final(info[0].state));
    CHECK_STR(info[0].reason, "NonZeroExitCode");
    CHECK_INT(info[0].exit_status, 3);
    CHECK_INT(info[0].term_signal, 0);
    CHECK_INT(info[0].start_time, 1795742183);
    CHECK_INT(info[0].end_time, 1795742184);
    CHECK_STR(info[0].nodes, "n1");
    struct slurm_job_info two[2];
    CHECK_INT(slurm_parse_jobs(text, two, 2, err, sizeof err), 2);
    CHECK_INT(two[1].state, SLURM_STATE_CANCELLED);
    CHECK_INT(two[1].exit_status, -1);
    CHECK_INT(two[1].term_signal, 15);
    CHECK_STR(two[1].nodes, "n[1-2]");
    free(text);
    CHECK_INT(slurm_parse_jobs("{\"errors\":[]}", info, 1, err, sizeof err), -1);
    CHECK_INT(slurm_parse_jobs("not json", info, 1, err, sizeof err), -1);
    CHECK_INT(slurm_state_parse("RUNNING"), SLURM_STATE_RUNNING);
    CHECK(!slurm_state_final(SLURM_STATE_PENDING));
    CHECK_INT(slurm_state_parse("WHATEVER"), SLURM_STATE_UNKNOWN);
}

static void test_parse_submit(void)
{
    uint32_t id = 0;
    char err[256];
    CHECK_INT(slurm_parse_submit("{\"errors\":[],\"job_id\":7,\"step_id\":\"BATCH\"}", &id, err, sizeof err), 0);
    CHECK_INT(id, 7);
    json_t *j = json_load_file(DATA "submit_error.json", 0, NULL);
    char *text = json_dumps(j, 0);
    json_decref(j);
    CHECK_INT(slurm_parse_submit(text, &id, err, sizeof err), -1);
    CHECK_CONTAINS(err, "Requested node configuration is not available");
    CHECK_CONTAINS(err, "2072");
    free(text);
}

TEST_MAIN(TEST_CASE(test_submit_het_golden), TEST_CASE(test_submit_one_component), TEST_CASE(test_submit_refusals),
          TEST_CASE(test_parse_jobs), TEST_CASE(test_parse_submit))
