/* The --backends file (adapters/objects/backend_conf.c): routes per queue over the flags' default,
 * each engine's settings, and every mistake named by its field and line. */
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "adapters/objects/backend_conf.h"
#include "tests/lib/test.h"

static void routes_and_settings(void)
{
    static const char file[] =
        "default: local\n"
        "kubernetes:\n  kubeconfig: /etc/caldera/kubeconfig\n"
        "slurm:\n  url: http://127.0.0.1:6820\n  partition: gpu\n  workDir: /shared/caldera\n"
        "queues:\n  research: slurm\n  prod: kubernetes\n";
    struct backend_conf c = {.default_kind = BACKEND_SLURM};
    struct api_status st = {0};
    REQUIRE(backend_conf_parse(file, strlen(file), &c, &st) == 0);
    CHECK_INT(c.default_kind, BACKEND_LOCAL); /* the file over the flag */
    CHECK_STR(c.kubeconfig, "/etc/caldera/kubeconfig");
    CHECK_STR(c.slurmrestd, "http://127.0.0.1:6820");
    CHECK_STR(c.slurm_partition, "gpu");
    CHECK_STR(c.slurm_work_dir, "/shared/caldera");
    CHECK_INT(backend_conf_route(&c, "research"), BACKEND_SLURM);
    CHECK_INT(backend_conf_route(&c, "prod"), BACKEND_KUBERNETES);
    CHECK_INT(backend_conf_route(&c, "default"), BACKEND_LOCAL);
    CHECK_INT(backend_conf_check(&c, &st), 0);
    backend_conf_free(&c);
}

static void mistakes_name_field_and_line(void)
{
    static const char file[] = "default: local\nqueues:\n  research: pbs\nslurm:\n  uri: http://x\n";
    struct backend_conf c = {0};
    struct api_status st = {0};
    CHECK_INT(backend_conf_parse(file, strlen(file), &c, &st), -1);
    CHECK_INT(st.code, 422);
    REQUIRE(st.ncauses == 2);
    CHECK_STR(st.causes[0].field, "slurm.uri");
    CHECK_INT(st.causes[0].line, 5);
    CHECK_STR(st.causes[1].field, "queues.research");
    CHECK_INT(st.causes[1].line, 3);
    CHECK_CONTAINS(st.causes[1].message, "\"slurm\"");
    backend_conf_free(&c);
}

static void a_route_needs_its_engine(void)
{
    static const char file[] = "queues:\n  research: slurm\n";
    struct backend_conf c = {0};
    struct api_status st = {0};
    REQUIRE(backend_conf_parse(file, strlen(file), &c, &st) == 0);
    CHECK_INT(backend_conf_check(&c, &st), -1);
    CHECK_CONTAINS(st.message, "--slurmrestd URL");
    backend_conf_free(&c);
}

/* The README's example file, shipped in examples/, reads as it says. */
static void the_shipped_example_reads(void)
{
    char *data = NULL;
    size_t len = 0;
    REQUIRE(read_file("examples/backends.yaml", 1 << 20, &data, &len) == 0);
    struct backend_conf c = {0};
    struct api_status st = {0};
    CHECK_INT(backend_conf_parse(data, len, &c, &st), 0);
    CHECK_INT(backend_conf_route(&c, "research"), BACKEND_SLURM);
    CHECK_INT(backend_conf_route(&c, "prod"), BACKEND_KUBERNETES);
    CHECK_INT(backend_conf_check(&c, &st), 0);
    backend_conf_free(&c);
    free(data);
}

TEST_MAIN(TEST_CASE(routes_and_settings), TEST_CASE(mistakes_name_field_and_line), TEST_CASE(a_route_needs_its_engine),
          TEST_CASE(the_shipped_example_reads))
