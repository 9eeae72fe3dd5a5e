/* Slurm through slurmrestd (runtime/slurm/slurm_rest.c) against real daemons (tests/lib/slurm-cluster):
 * a 2-task job sees its ranks and node list, a failing job reports its exit code, a cancel is seen. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/slurm/slurm_rest.h"
#include "tests/lib/slurm_cluster.h"
#include "tests/lib/test.h"

/* Polls GET /job/{id} until a final state (up to 20 s). Returns 0 with info filled, or -1. */
static int wait_final(const struct slurm_rest *r, uint32_t id, struct slurm_job_info *info)
{
    char err[512];
    for (int i = 0; i < 200; i++) {
        if (slurm_rest_job(r, id, info, 1, err, sizeof err) >= 1 && slurm_state_final(info->state))
            return 0;
        usleep(100 * 1000);
    }
    return -1;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = calloc(1, 4096);
    if (buf && fread(buf, 1, 4095, f) == 0)
        buf[0] = '\0';
    fclose(f);
    return buf;
}

static void test_slurm_cluster(void)
{
    struct slurm_cluster c;
    char err[1024];
    SKIP_IF(getuid() != 0, "the Slurm daemons run as root here");
    SKIP_IF(slurm_cluster_start(&c, err, sizeof err) != 0, "no Slurm cluster: %s", err);
    fprintf(stderr, "# Slurm cluster up in %ld ms at %s\n", c.start_ms, c.url);
    struct slurm_rest r = {.url = c.url, .user = c.user, .token = c.token};
    CHECK_INT(slurm_rest_ping(&r, err, sizeof err), 0);

    /* Two tasks on two nodes: one srun step, each task writing its rank and the allocation. */
    const char *const env[] = {"PATH=/usr/bin:/bin", NULL};
    struct slurm_component two = {.nodes = 2, .tasks = 2, .cpus_per_task = 1};
    char out[400], script[600];
    snprintf(out, sizeof out, "%s/gang-%%t.out", c.dir);
    snprintf(script, sizeof script,
             "#!/bin/sh\nexec srun --output=%s sh -c 'echo rank=$SLURM_PROCID nodes=$SLURM_JOB_NODELIST'\n", out);
    struct slurm_job_spec spec = {
        .name = "gang", .script = script, .cwd = c.dir, .env = env, .components = &two, .ncomponents = 1};
    uint32_t id = 0;
    REQUIRE(slurm_rest_submit(&r, &spec, &id, err, sizeof err) == 0 || (fprintf(stderr, "%s\n", err), 0));
    struct slurm_job_info info;
    REQUIRE(wait_final(&r, id, &info) == 0);
    CHECK_STR(info.state_name, "COMPLETED");
    CHECK_INT(info.exit_status, 0);
    CHECK_STR(info.nodes, "n[1-2]");
    CHECK(info.start_time > 0 && info.end_time >= info.start_time);
    for (int t = 0; t < 2; t++) {
        char path[400], want[64];
        snprintf(path, sizeof path, "%s/gang-%d.out", c.dir, t);
        snprintf(want, sizeof want, "rank=%d nodes=n[1-2]", t);
        char *text = read_file(path);
        CHECK_CONTAINS(text, want);
        free(text);
    }

    /* A failing job: its exit code back through the REST API. */
    struct slurm_component one = {.tasks = 1};
    spec = (struct slurm_job_spec){.name = "fails",
                                   .script = "#!/bin/sh\nexit 3\n",
                                   .cwd = c.dir,
                                   .env = env,
                                   .components = &one,
                                   .ncomponents = 1};
    REQUIRE(slurm_rest_submit(&r, &spec, &id, err, sizeof err) == 0);
    REQUIRE(wait_final(&r, id, &info) == 0);
    CHECK_STR(info.state_name, "FAILED");
    CHECK_STR(info.reason, "NonZeroExitCode");
    CHECK_INT(info.exit_status, 3);

    /* A cancel (scancel through DELETE). */
    spec.name = "sleeps";
    spec.script = "#!/bin/sh\nsleep 60\n";
    REQUIRE(slurm_rest_submit(&r, &spec, &id, err, sizeof err) == 0);
    CHECK_INT(slurm_rest_cancel(&r, id, 0, err, sizeof err), 0);
    REQUIRE(wait_final(&r, id, &info) == 0);
    CHECK_STR(info.state_name, "CANCELLED");

    /* No slurmdbd: sacct has nothing, but jobcomp/filetxt keeps every finished job. */
    char jobcomp[400];
    snprintf(jobcomp, sizeof jobcomp, "%s/log/jobcomp.txt", c.dir);
    char *text = read_file(jobcomp);
    CHECK_CONTAINS(text, "Name=gang JobState=COMPLETED");
    CHECK_CONTAINS(text, "ExitCode=3:0");
    free(text);

    slurm_cluster_stop(&c);
}

int main(int argc, char **argv)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    static const struct test_case cases[] = {TEST_CASE(test_slurm_cluster)};
    int rc = test_run(cases, 1, argc, argv);
    curl_global_cleanup();
    return rc;
}
