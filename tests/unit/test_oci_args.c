/* The command line of an OCI attempt (runtime/oci_args.c): podman run with the attempt's name,
 * labels, cgroup parent, limits, user, binds, devices and command after "--"; the environment file
 * refusing what it cannot hold; and podman's start errors told from a command's own exit code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strv.h"
#include "runtime/oci_args.h"
#include "tests/lib/test.h"

/* The argv joined by spaces (static buffer). */
static const char *joined(char *const *argv)
{
    static char buf[8192];
    buf[0] = '\0';
    for (size_t i = 0; argv && argv[i]; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? " " : "", argv[i]);
    return buf;
}

static int index_of(char *const *argv, const char *s)
{
    for (int i = 0; argv && argv[i]; i++)
        if (strcmp(argv[i], s) == 0)
            return i;
    return -1;
}

static struct oci_run base_run(void)
{
    return (struct oci_run){.podman = "/usr/bin/podman",
                            .name = "caldera-train-main-0.1.uid",
                            .pod = "train-main-0",
                            .cgroup = "train-main-0.1.uid",
                            .cgroup_parent = "/caldera/train-main-0.1.uid",
                            .image = "example/torch:2",
                            .work_dir = "/var/lib/caldera/jobs/uid/work",
                            .chdir_to = "/var/lib/caldera/jobs/uid/work",
                            .env_file = "/var/lib/caldera/jobs/uid/logs/train-main-0.1.log.env",
                            .uid = -1,
                            .gid = -1,
                            .nofile = {-1, -1},
                            .nproc = {-1, -1}};
}

static void run_args_carry_the_attempt(void)
{
    struct oci_run r = base_run();
    char *argv_in[] = {"python", "train.py", "--epochs", "3", NULL};
    const char *devices[] = {"nvidia.com/gpu=GPU-1234", NULL};
    const char *src[] = {"/data/claims/ds"}, *dst[] = {"/datasets"};
    bool ro[] = {false};
    r.argv = argv_in;
    r.uid = 1000;
    r.gid = 100;
    r.memory = 256LL << 20;
    r.cpu_milli = 1500;
    r.pids_max = 4096;
    r.nofile[0] = 1024;
    r.nofile[1] = 20000;
    r.nproc[0] = r.nproc[1] = 32768;
    r.devices = devices;
    r.nbinds = 1;
    r.bind_sources = src;
    r.bind_targets = dst;
    r.bind_read_only = ro;
    char **argv = NULL;
    REQUIRE(oci_args_build(&r, &argv) == 0);
    const char *s = joined(argv);
    CHECK_STR(argv[0], "/usr/bin/podman");
    CHECK(index_of(argv, "--cgroup-manager=cgroupfs") > 0 &&
          index_of(argv, "--cgroup-manager=cgroupfs") < index_of(argv, "run"));
    CHECK(index_of(argv, "--rm") > index_of(argv, "run"));
    CHECK(index_of(argv, "--pull=never") > 0);
    CHECK(index_of(argv, "--name=caldera-train-main-0.1.uid") > 0);
    CHECK(index_of(argv, "--label=" OCI_LABEL_POD "=train-main-0") > 0);
    CHECK(index_of(argv, "--label=" OCI_LABEL_CGROUP "=train-main-0.1.uid") > 0);
    CHECK(index_of(argv, "--cgroup-parent=/caldera/train-main-0.1.uid") > 0);
    CHECK(index_of(argv, "--network=host") > 0);
    CHECK(index_of(argv, "--memory=268435456") > 0);
    CHECK(index_of(argv, "--memory-swap=268435456") > 0); /* no swap beyond the limit */
    CHECK(index_of(argv, "--cpus=1.500") > 0);
    CHECK(index_of(argv, "--pids-limit=4096") > 0);
    CHECK(index_of(argv, "--ulimit=nofile=1024:20000") > 0);
    CHECK(index_of(argv, "--ulimit=nproc=32768:32768") > 0);
    CHECK(index_of(argv, "--user=1000:100") > 0);
    CHECK(index_of(argv, "--security-opt=no-new-privileges") > 0);
    CHECK(index_of(argv, "--volume=/var/lib/caldera/jobs/uid/work:/var/lib/caldera/jobs/uid/work") > 0);
    CHECK(index_of(argv, "--volume=/data/claims/ds:/datasets") > 0);
    CHECK(index_of(argv, "--workdir=/var/lib/caldera/jobs/uid/work") > 0);
    CHECK(index_of(argv, "--env-file=/var/lib/caldera/jobs/uid/logs/train-main-0.1.log.env") > 0);
    CHECK(index_of(argv, "--device=nvidia.com/gpu=GPU-1234") > 0);
    CHECK(index_of(argv, "--entrypoint=[\"python\"]") > 0);
    /* the image right after "--", then the rest of the command as it was */
    int dash = index_of(argv, "--");
    REQUIRE(dash > 0);
    CHECK_STR(argv[dash + 1], "example/torch:2");
    CHECK_STR(argv[dash + 2], "train.py");
    CHECK_STR(argv[dash + 4], "3");
    CHECK(argv[dash + 5] == NULL);
    CHECK(strstr(s, "--device=") < strstr(s, " -- ")); /* every option before the image */
    strv_free(argv);
}

static void image_defaults_and_odd_names(void)
{
    struct oci_run r = base_run();
    r.image = "-v"; /* never read as an option */
    r.cgroup_parent = NULL;
    char **argv = NULL;
    REQUIRE(oci_args_build(&r, &argv) == 0);
    int dash = index_of(argv, "--");
    REQUIRE(dash > 0);
    CHECK_STR(argv[dash + 1], "-v");
    CHECK(argv[dash + 2] == NULL);                       /* no command: the image's own */
    CHECK(strstr(joined(argv), "--entrypoint") == NULL); /* nor its entrypoint replaced */
    CHECK(strstr(joined(argv), "--cgroup-parent") == NULL);
    CHECK(strstr(joined(argv), "--user") == NULL); /* the image's user */
    CHECK(strstr(joined(argv), "--memory") == NULL);
    CHECK(index_of(argv, "--pids-limit=-1") > 0); /* the attempt's cgroup limits it, not podman's 2048 */
    strv_free(argv);
    char *quoted[] = {"say \"hi\"\\", NULL};
    r.argv = quoted;
    REQUIRE(oci_args_build(&r, &argv) == 0);
    CHECK(index_of(argv, "--entrypoint=[\"say \\\"hi\\\"\\\\\"]") > 0);
    strv_free(argv);
}

static void container_names_follow_the_cgroup(void)
{
    char name[256];
    oci_container_name("train-main-0.3.0b6e-11", name, sizeof name);
    CHECK_STR(name, "caldera-train-main-0.3.0b6e-11");
}

static void env_file_lines_and_newlines_refused(void)
{
    char *env[] = {"PATH=/usr/bin:/bin", "EMPTY=", "EQ=a=b", NULL}, *text = NULL, why[256] = "";
    REQUIRE(oci_env_file_text(env, &text, why, sizeof why) == 0);
    CHECK_STR(text, "PATH=/usr/bin:/bin\nEMPTY=\nEQ=a=b\n");
    free(text);
    char *bad[] = {"OK=1", "MULTI=line one\nline two", NULL};
    text = NULL;
    CHECK(oci_env_file_text(bad, &text, why, sizeof why) == -1);
    CHECK(text == NULL);
    CHECK_CONTAINS(why, "env MULTI: a value holding a newline");
}

#define REC(stream, line) "2026-01-02T03:04:05.000000000Z " stream " F " line "\n"

static void start_errors_told_from_exit_codes(void)
{
    char msg[240];
    const char *missing = REC("stderr", "Error: example/none:1: image not known");
    CHECK_INT(oci_start_error(125, missing, msg, sizeof msg), OCI_IMAGE_NOT_FOUND);
    CHECK_STR(msg, "Error: example/none:1: image not known");
    const char *not_found = REC("stdout", "starting")
        REC("stderr",
            "Error: runc: exec: \"nope\": executable file not found in $PATH: OCI runtime attempted to invoke a "
            "command that was not found");
    CHECK_INT(oci_start_error(127, not_found, msg, sizeof msg), OCI_START_ERROR);
    CHECK_CONTAINS(msg, "executable file not found");
    /* a command of the image exiting 127 itself, with no word of podman's: its own exit code */
    CHECK_INT(oci_start_error(127, REC("stderr", "sh: 1: foo: not found"), msg, sizeof msg), OCI_STARTED);
    CHECK_STR(msg, "");
    /* other codes are the command's, whatever it printed */
    CHECK_INT(oci_start_error(1, missing, msg, sizeof msg), OCI_STARTED);
    CHECK_INT(oci_start_error(125, NULL, msg, sizeof msg), OCI_STARTED);
    /* the last Error: line is podman's last word */
    const char *two = REC("stderr", "Error: from the task") REC("stderr", "Error: podman's own");
    CHECK_INT(oci_start_error(125, two, msg, sizeof msg), OCI_START_ERROR);
    CHECK_STR(msg, "Error: podman's own");
}

TEST_MAIN(TEST_CASE(run_args_carry_the_attempt), TEST_CASE(image_defaults_and_odd_names),
          TEST_CASE(container_names_follow_the_cgroup), TEST_CASE(env_file_lines_and_newlines_refused),
          TEST_CASE(start_errors_told_from_exit_codes))
