/* runtimeClassName: oci against a real server and podman: a task runs as a container of an image made
 * from the debootstrap bookworm base (tests/lib/debootstrap-base) plus a marker file the host lacks,
 * with its exit code exact, its limits visible inside and its container's cgroup below the attempt's;
 * terminating the job, or deleting it after a restart of the server, leaves no container; a missing
 * image and a missing command get their reasons (ErrImageNeverPull, StartError); a pod's hostPath,
 * emptyDir (on disk and in memory) and configMap volumes are mounted by podman; without podman, and
 * for an unknown class, the Job is refused naming the field. Skipped where podman cannot run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define WAIT_MS 60000
#define PODS "/api/v1/namespaces/default/pods"
#define IMAGE "localhost/caldera-test/oci-marked:bookworm"
#define MARKER "/caldera-image-marker"
#define MARK_TEXT "made-by-caldera-test-oci"
#define PODMAN "podman --cgroup-manager=cgroupfs --events-backend=file"

/* A task of one replica whose pod runs in class `klass` with `container` lines (indented 10). */
#define OCI_TASK(klass, container)                                                                  \
    "  - name: main\n    replicas: 1\n    template:\n      spec:\n        runtimeClassName: " klass \
    "\n"                                                                                            \
    "        terminationGracePeriodSeconds: 2\n        containers:\n        - name: c\n" container

/* A command's output (never NULL; caller frees) and its exit status in *status. */
static char *run(const char *cmd, int *status)
{
    char *out = NULL;
    size_t cap = 0;
    FILE *p = popen(cmd, "r");
    if (!p) {
        *status = -1;
        return strdup("");
    }
    if (getdelim(&out, &cap, '\0', p) < 0) {
        free(out);
        out = NULL;
    }
    int rc = pclose(p);
    *status = rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    return out ? out : strdup("");
}

/* The server's rlimits for `podman run` by hand, as the runtime passes them (runtime/oci_launch.c). */
static void ulimit_args(char *out, size_t len)
{
    struct rlimit nofile, nproc;
    getrlimit(RLIMIT_NOFILE, &nofile);
    getrlimit(RLIMIT_NPROC, &nproc);
    rlim_t proc_max = nproc.rlim_max > 32768 ? 32768 : nproc.rlim_max;
    snprintf(out, len, "--ulimit=nofile=%llu:%llu --ulimit=nproc=%llu:%llu", (unsigned long long)nofile.rlim_cur,
             (unsigned long long)nofile.rlim_max,
             (unsigned long long)(nproc.rlim_cur < proc_max ? nproc.rlim_cur : proc_max), (unsigned long long)proc_max);
}

/* Why the image cannot be had or run here, or NULL once it is present and a container ran. Made
 * once a machine (podman keeps it): the base tar with the marker added, imported. */
static const char *image_ready(void)
{
    static char why[1024];
    static int done;
    if (done)
        return why[0] ? why : NULL;
    done = 1;
    int st;
    if (geteuid() != 0) {
        snprintf(why, sizeof why, "the oci runtime class runs rootful podman: the test needs root");
        return why;
    }
    free(run("tools/ensure-deps podman 2>&1", &st));
    if (st != 0) {
        snprintf(why, sizeof why, "podman is not installed and could not be (tools/ensure-deps podman)");
        return why;
    }
    free(run(PODMAN " image exists " IMAGE, &st));
    if (st != 0) {
        char *base = run("tests/lib/debootstrap-base 2>&1", &st);
        base[strcspn(base, "\n")] = '\0';
        if (st != 0) {
            snprintf(why, sizeof why, "no debootstrap base: %.900s", base);
            free(base);
            return why;
        }
        char cmd[4096];
        snprintf(cmd, sizeof cmd,
                 "set -e; d=$(mktemp -d /var/tmp/caldera-oci.XXXXXX); trap 'rm -rf \"$d\"' EXIT; "
                 "cp '%s' \"$d/image.tar\"; echo " MARK_TEXT " > \"$d\"" MARKER
                 "; "
                 "tar -C \"$d\" -rf \"$d/image.tar\" ." MARKER "; " PODMAN " import -q \"$d/image.tar\" " IMAGE " 2>&1",
                 base);
        free(base);
        char *out = run(cmd, &st);
        if (st != 0)
            snprintf(why, sizeof why, "podman import failed: %.900s", out);
        free(out);
        if (st != 0)
            return why;
    }
    char limits[256], cmd[1024];
    ulimit_args(limits, sizeof limits);
    snprintf(cmd, sizeof cmd, PODMAN " run --rm --pull=never --network=host %s " IMAGE " true 2>&1", limits);
    char *out = run(cmd, &st);
    if (st != 0)
        snprintf(why, sizeof why, "podman cannot run a container on this machine: %.900s", out);
    free(out);
    return st != 0 ? why : NULL;
}

/* The pod's log (never NULL; caller frees). */
static char *pod_log(const struct test_server *s, const char *pod)
{
    char *log = server_pod_log(s, pod);
    return log ? log : strdup("");
}

static char *job_uid(const struct test_server *s, const char *name)
{
    json_t *j = job_get(s, name);
    const char *uid = jv_str(j, "metadata.uid");
    char *out = strdup(uid ? uid : "");
    json_decref(j);
    return out;
}

/* Whether any container, running or not, has this name (podman ps -a). */
static bool container_exists(const char *name)
{
    char cmd[512];
    int st;
    snprintf(cmd, sizeof cmd, PODMAN " ps -a -q --filter name='^%s$'", name);
    char *out = run(cmd, &st);
    bool exists = st != 0 || out[0] != '\0';
    free(out);
    return exists;
}

/* Whether the container is gone within ms (its removal runs on a cleaner thread), polled. */
static bool container_gone_within(const char *name, int ms)
{
    for (int waited = 0; waited <= ms; waited += 200) {
        if (!container_exists(name))
            return true;
        usleep(200 * 1000);
    }
    return false;
}

/* The host pid of the container's first process, 0 while it has none (polled up to ms). */
static long container_pid(const char *name, int ms)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, PODMAN " inspect --format '{{.State.Pid}}' %s 2>/dev/null", name);
    for (int waited = 0; waited <= ms; waited += 100) {
        int st;
        char *out = run(cmd, &st);
        long pid = st == 0 ? strtol(out, NULL, 10) : 0;
        free(out);
        if (pid > 0)
            return pid;
        usleep(100 * 1000);
    }
    return 0;
}

#define PROBE                                                         \
    "grep VERSION_CODENAME /etc/os-release; cat " MARKER              \
    "; echo cwd=$(pwd) mark=$MARK vk=$VK_TASK_INDEX; "                \
    "echo memory=$(cat /sys/fs/cgroup/memory.max 2>/dev/null || cat " \
    "/sys/fs/cgroup/memory/memory.limit_in_bytes); "                  \
    "echo cpu=$(cat /sys/fs/cgroup/cpu.max 2>/dev/null || cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us); exit 3"

/* The image's root filesystem, the pod's env and Volcano's, the job's working directory, the limits
 * inside, and the command's own exit code; a pod with runAsUser runs as that user; one over its
 * memory limit is OOMKilled. */
static void runs_in_the_image_with_its_limits(void)
{
    const char *skip = image_ready();
    SKIP_IF(skip, "%s", skip);
    CHECK(access(MARKER, F_OK) != 0); /* the host has no marker: the log's is the image's */
    struct test_server s;
    REQUIRE(server_start(&s, NULL, NULL) == 0);
    REQUIRE(job_submit(&s, "inside", "",
                       OCI_TASK("oci", "          image: " IMAGE "\n"
                                       "          command: [sh, -c, '" PROBE "']\n"
                                       "          env: [{name: MARK, value: from-the-pod}]\n"
                                       "          resources: {limits: {cpu: 500m, memory: 256Mi}}\n")) == 201);
    REQUIRE(
        job_submit(&s, "asuser", "",
                   OCI_TASK("oci", "          image: " IMAGE "\n"
                                   "          command: [sh, -c, 'echo id=$(id -u):$(id -g); touch made-here && ls']\n"
                                   "          securityContext: {runAsUser: 4321, runAsGroup: 4322}\n")) == 201);
    REQUIRE(job_submit(&s, "oom", "",
                       OCI_TASK("oci", "          image: " IMAGE "\n"
                                       "          command: [sh, -c, 'head -c 400m /dev/zero | tail >/dev/null']\n"
                                       "          resources: {limits: {memory: 64Mi}}\n")) == 201);
    CHECK(job_wait(&s, "inside", "status.state.phase", "Failed", WAIT_MS) == 0);
    CHECK(server_wait_field(&s, PODS "/inside-main-0", "status.containerStatuses.0.state.terminated.exitCode", "3",
                            WAIT_MS) == 0);
    CHECK(server_wait_field(&s, PODS "/inside-main-0", "status.containerStatuses.0.state.terminated.reason", "Error",
                            WAIT_MS) == 0);
    char *log = pod_log(&s, "inside-main-0");
    char *uid = job_uid(&s, "inside"), cwd[256];
    snprintf(cwd, sizeof cwd, "cwd=%s/jobs/%s/work ", s.data_dir, uid);
    CHECK_CONTAINS(log, "VERSION_CODENAME=bookworm");
    CHECK_CONTAINS(log, MARK_TEXT);
    CHECK_CONTAINS(log, cwd);
    CHECK_CONTAINS(log, "mark=from-the-pod vk=0");
    CHECK_CONTAINS(log, "memory=268435456");
    CHECK_CONTAINS(log, "cpu=50000");
    free(uid);
    free(log);
    /* --user: the pod's ids, writing in the job's working directory (the task's own) */
    CHECK(job_wait(&s, "asuser", "status.state.phase", "Completed", WAIT_MS) == 0);
    log = pod_log(&s, "asuser-main-0");
    CHECK_CONTAINS(log, "id=4321:4322");
    CHECK_CONTAINS(log, "made-here");
    free(log);
    /* the container's memory limit reached: the OOM killer's, as kubelet says it */
    CHECK(server_wait_field(&s, PODS "/oom-main-0", "status.containerStatuses.0.state.terminated.reason", "OOMKilled",
                            WAIT_MS) == 0);
    server_stop(&s);
    server_cleanup(&s);
}

/* The container's processes sit below the attempt's cgroup; a TerminateJob stops the pod and its
 * container is removed (podman ps -a no longer lists it). */
static void in_the_task_cgroup_and_terminate_leaves_no_container(void)
{
    const char *skip = image_ready();
    SKIP_IF(skip, "%s", skip);
    struct test_server s;
    REQUIRE(server_start(&s, NULL, NULL) == 0);
    REQUIRE(job_submit(&s, "held", "",
                       OCI_TASK("oci", "          image: " IMAGE "\n          command: [sleep, '300']\n")) == 201);
    REQUIRE(job_wait(&s, "held", "status.running", "1", WAIT_MS) == 0);
    char *uid = job_uid(&s, "held"), name[256], cgroup[256], path[64];
    snprintf(name, sizeof name, "caldera-held-main-0.1.%s", uid);
    snprintf(cgroup, sizeof cgroup, ":/caldera/held-main-0.1.%s/", uid);
    long pid = container_pid(name, WAIT_MS);
    CHECK(pid > 0);
    snprintf(path, sizeof path, "/proc/%ld/cgroup", pid);
    int st;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "cat %s", path);
    char *cgroups = run(cmd, &st);
    CHECK_CONTAINS(cgroups, cgroup);
    free(cgroups);
    long code;
    json_decref(
        server_request(&s, "POST", "/apis/caldera.io/v1/namespaces/default/jobs/held/terminate", NULL, NULL, &code));
    CHECK_INT(code, 200);
    CHECK(job_wait(&s, "held", "status.state.phase", "Terminated", WAIT_MS) == 0);
    CHECK(pid_gone_within(pid, WAIT_MS));
    CHECK(container_gone_within(name, WAIT_MS));
    free(uid);
    server_stop(&s);
    server_cleanup(&s);
}

/* A server killed while a container runs: the next one adopts the attempt, and deleting the job then
 * stops and removes the container. */
static void a_restarted_server_adopts_and_removes_the_container(void)
{
    const char *skip = image_ready();
    SKIP_IF(skip, "%s", skip);
    struct test_server s;
    REQUIRE(server_start(&s, NULL, NULL) == 0);
    REQUIRE(job_submit(&s, "kept", "",
                       OCI_TASK("oci", "          image: " IMAGE "\n          command: [sleep, '300']\n")) == 201);
    REQUIRE(job_wait(&s, "kept", "status.running", "1", WAIT_MS) == 0);
    char *uid = job_uid(&s, "kept"), name[256];
    snprintf(name, sizeof name, "caldera-kept-main-0.1.%s", uid);
    free(uid);
    REQUIRE(container_pid(name, WAIT_MS) > 0);
    server_kill9(&s);
    REQUIRE(server_start(&s, s.data_dir, NULL) == 0);
    CHECK(server_wait_field(&s, PODS "/kept-main-0", "status.phase", "Running", WAIT_MS) == 0);
    CHECK(container_exists(name));
    long code;
    json_decref(server_request(&s, "DELETE", JOBS "/kept", NULL, NULL, &code));
    CHECK_INT(code, 200);
    CHECK(container_gone_within(name, WAIT_MS));
    server_stop(&s);
    server_cleanup(&s);
}

/* An image that is not here is never pulled: the pod fails ErrImageNeverPull in kubelet's words; a
 * command the image lacks is a StartError with podman's message; neither leaves a container. */
static void start_errors_have_their_reasons(void)
{
    const char *skip = image_ready();
    SKIP_IF(skip, "%s", skip);
    struct test_server s;
    REQUIRE(server_start(&s, NULL, NULL) == 0);
    REQUIRE(job_submit(&s, "absent", "",
                       OCI_TASK("oci",
                                "          image: localhost/caldera-test/never-made:none\n"
                                "          command: [\"true\"]\n")) == 201);
    REQUIRE(job_submit(&s, "nocmd", "",
                       OCI_TASK("oci", "          image: " IMAGE "\n          command: [no-such-command]\n")) == 201);
    const char *reason = "status.containerStatuses.0.state.terminated.reason";
    CHECK(server_wait_field(&s, PODS "/absent-main-0", reason, "ErrImageNeverPull", WAIT_MS) == 0);
    CHECK(server_wait_field(&s, PODS "/nocmd-main-0", reason, "StartError", WAIT_MS) == 0);
    long code;
    json_t *pod = api_get(&s, PODS "/%s", "absent-main-0", &code);
    CHECK_CONTAINS(jv_str(pod, "status.containerStatuses.0.state.terminated.message"),
                   "Container image \"localhost/caldera-test/never-made:none\" is not present with pull policy of "
                   "Never");
    json_decref(pod);
    pod = api_get(&s, PODS "/%s", "nocmd-main-0", &code);
    CHECK_CONTAINS(jv_str(pod, "status.containerStatuses.0.state.terminated.message"), "no-such-command");
    json_decref(pod);
    char *uid = job_uid(&s, "nocmd"), name[256];
    snprintf(name, sizeof name, "caldera-nocmd-main-0.1.%s", uid);
    free(uid);
    CHECK(container_gone_within(name, WAIT_MS));
    server_stop(&s);
    server_cleanup(&s);
}

/* The 422 Status of a refused submit, its message into msg. */
static long submit_refused(const struct test_server *s, const char *name, const char *tasks, char *msg, size_t len)
{
    long code;
    json_t *r = server_request(s, "POST", JOBS, job_yaml(name, "", tasks), "application/yaml", &code);
    const char *m = jv_str(r, "message");
    snprintf(msg, len, "%s", m ? m : "");
    json_decref(r);
    return code;
}

/* Without podman (the flag names a program that is not there) "oci" is refused as Kubernetes
 * refuses a RuntimeClass it cannot run, naming the field; an unknown class is refused as not found. */
static void refused_without_podman_or_unknown(void)
{
    struct test_server s;
    const char *const args[] = {"--oci-runtime", "/nonexistent/caldera-test/podman", NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);
    char msg[2048];
    CHECK_INT(submit_refused(&s, "nopodman",
                             OCI_TASK("oci", "          image: " IMAGE "\n          command: [\"true\"]\n"), msg,
                             sizeof msg),
              422);
    CHECK_CONTAINS(msg, "spec.tasks[0].template.spec.runtimeClassName");
    CHECK_CONTAINS(msg, "RuntimeClass \"oci\": podman is not installed");
    CHECK_INT(submit_refused(&s, "unknown",
                             OCI_TASK("gvisor", "          image: " IMAGE "\n          command: [\"true\"]\n"), msg,
                             sizeof msg),
              422);
    CHECK_CONTAINS(msg, "spec.tasks[0].template.spec.runtimeClassName");
    CHECK_CONTAINS(msg, "RuntimeClass \"gvisor\" not found");
    CHECK(job_submit(&s, "plain", "", TASK("main", 1, "", "'true'", "")) == 201); /* process tasks still run */
    server_stop(&s);
    server_cleanup(&s);
}

/* The pod's own volumes, mounted by podman at paths the image lacks: a hostPath read-only (the
 * node's file read, a write refused), an emptyDir on disk (written), one in memory (a tmpfs) and
 * a ConfigMap's key as a file. */
static void pod_volumes_are_mounted_by_podman(void)
{
    const char *skip = image_ready();
    SKIP_IF(skip, "%s", skip);
    char host_dir[] = "/tmp/caldera-oci-host-XXXXXX";
    REQUIRE(mkdtemp(host_dir));
    char file[128];
    snprintf(file, sizeof file, "%s/in.txt", host_dir);
    FILE *fp = fopen(file, "w");
    REQUIRE(fp);
    fputs("from-the-node\n", fp);
    fclose(fp);
    chmod(host_dir, 0755);
    chmod(file, 0644);
    struct test_server s;
    REQUIRE(server_start(&s, NULL, NULL) == 0);
    long code = 0;
    json_decref(server_request(&s, "POST", "/api/v1/namespaces/default/configmaps",
                               "{\"metadata\":{\"name\":\"app\"},\"data\":{\"key\":\"from-the-configmap\"}}", NULL,
                               &code));
    CHECK_INT(code, 201);
    char tasks[2048];
    snprintf(tasks, sizeof tasks,
             "  - name: main\n    replicas: 1\n    template:\n      spec:\n        runtimeClassName: oci\n"
             "        terminationGracePeriodSeconds: 2\n"
             "        volumes:\n"
             "        - {name: data, hostPath: {path: %s, type: Directory}}\n"
             "        - {name: scratch, emptyDir: {}}\n"
             "        - {name: shm, emptyDir: {medium: Memory, sizeLimit: 16Mi}}\n"
             "        - {name: cfg, configMap: {name: app}}\n"
             "        containers:\n        - name: c\n          image: " IMAGE
             "\n"
             "          command: [sh, -c, 'cat /in-data/in.txt; touch /in-data/x 2>/dev/null || echo ro=yes; "
             "echo w > /in-scratch/f && echo scratch=$(cat /in-scratch/f); "
             "grep \" /in-shm \" /proc/mounts | cut -d\" \" -f3; cat /in-cfg/key; echo']\n"
             "          volumeMounts:\n"
             "          - {name: data, mountPath: /in-data, readOnly: true}\n"
             "          - {name: scratch, mountPath: /in-scratch}\n"
             "          - {name: shm, mountPath: /in-shm}\n"
             "          - {name: cfg, mountPath: /in-cfg, readOnly: true}\n",
             host_dir);
    CHECK_INT(job_submit(&s, "vols", "", tasks), 201);
    CHECK(job_wait(&s, "vols", "status.state.phase", "Completed", WAIT_MS) == 0);
    char *log = pod_log(&s, "vols-main-0");
    CHECK_CONTAINS(log, "from-the-node");
    CHECK_CONTAINS(log, "ro=yes");
    CHECK_CONTAINS(log, "scratch=w");
    CHECK_CONTAINS(log, "tmpfs");
    CHECK_CONTAINS(log, "from-the-configmap");
    free(log);
    CHECK(access("/in-data", F_OK) != 0 && access("/in-scratch", F_OK) != 0); /* nothing made on the node */
    server_stop(&s);
    server_cleanup(&s);
    unlink(file);
    rmdir(host_dir);
}

TEST_MAIN(TEST_CASE(refused_without_podman_or_unknown), TEST_CASE(runs_in_the_image_with_its_limits),
          TEST_CASE(in_the_task_cgroup_and_terminate_leaves_no_container),
          TEST_CASE(a_restarted_server_adopts_and_removes_the_container), TEST_CASE(start_errors_have_their_reasons),
          TEST_CASE(pod_volumes_are_mounted_by_podman))
