/* Pod volumes on real servers: hostPath (read-write and readOnly) and emptyDir mounted at their
 * mountPath in the task's own mount namespace (the node's directory untouched), a symbolic link
 * planted in a mountPath not followed, a hostPath refused for a user's token, and every pod volume
 * refused with a 422 where the server cannot make mount namespaces (not root). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define JOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
#define PODS "/api/v1/namespaces/default/pods"
#define TOKENS "/apis/caldera.io/v1/tokens"
#define WAIT_MS 20000

static struct test_server server;
static bool up, failed;

static bool ensure_server(void)
{
    static const char *const args[] = {"--shutdown-grace", "2", NULL};
    if (!up && !failed) {
        failed = server_start(&server, NULL, args) != 0;
        up = !failed;
    }
    return up;
}

/* A task w whose pod has `volumes` (lines at indent 8) and runs cmd with `mounts` (indent 10). */
static const char *volume_task(const char *volumes, const char *cmd, const char *mounts)
{
    static char task[4096];
    snprintf(task, sizeof task,
             "  - name: w\n    replicas: 1\n    template:\n      spec:\n        terminationGracePeriodSeconds: 2\n"
             "        volumes:\n%s        containers:\n        - name: c\n          command: [sh, -c, '%s']\n"
             "          volumeMounts:\n%s",
             volumes, cmd, mounts);
    return task;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* hostPath read-write at a mountPath the server makes, the same readOnly, and an emptyDir over an
 * existing directory: the task sees each; the node's directories do not. */
static void host_path_and_empty_dir_are_mounted(void)
{
    SKIP_IF(geteuid() != 0, "mount namespaces need root");
    REQUIRE(ensure_server());
    char host[] = "/tmp/caldera-hostpath-XXXXXX", scratch[] = "/tmp/caldera-emptydir-XXXXXX";
    REQUIRE(mkdtemp(host) && mkdtemp(scratch));
    char path[600], volumes[1024], mounts[1024], cmd[1024];
    snprintf(path, sizeof path, "%s/given", host);
    REQUIRE(write_file_atomic(path, "hello\n", 6, 0644) == 0);
    snprintf(volumes, sizeof volumes,
             "        - {name: data, hostPath: {path: %s, type: Directory}}\n"
             "        - {name: made, hostPath: {path: %s/made, type: DirectoryOrCreate}}\n"
             "        - {name: scratch, emptyDir: {}}\n",
             host, host);
    snprintf(mounts, sizeof mounts,
             "          - {name: data, mountPath: %s/in/rw}\n"
             "          - {name: data, mountPath: %s/in/ro, readOnly: true}\n"
             "          - {name: made, mountPath: %s/in/made}\n"
             "          - {name: scratch, mountPath: %s}\n",
             host, host, host, scratch);
    snprintf(cmd, sizeof cmd,
             "set -e; test \"$(cat %s/in/rw/given)\" = hello; echo back > %s/in/rw/written; "
             "if echo no > %s/in/ro/denied 2>/dev/null; then exit 3; fi; echo mine > %s/inside; "
             "test -d %s/in/made",
             host, host, host, scratch, host);
    REQUIRE(job_submit(&server, "mounts", "  volumes:\n  - {mountPath: /data/joined, volumeClaimName: joined}\n",
                       volume_task(volumes, cmd, mounts)) == 201);
    if (job_wait(&server, "mounts", "status.state.phase", "Completed", WAIT_MS) != 0) {
        long code = 0;
        json_t *pod = api_get(&server, PODS "/%s", "mounts-w-0", &code);
        const char *why = jv_str(pod, "status.containerStatuses.0.state.terminated.message");
        CHECK_STR(why, "(completed)");
        char *log = server_request_text(&server, "GET", PODS "/mounts-w-0/log", &code);
        fprintf(stderr, "# task log: %s\n", log ? log : "");
        free(log);
        json_decref(pod);
    }

    char *text = NULL;
    snprintf(path, sizeof path, "%s/written", host);
    CHECK(read_file(path, 64, &text, NULL) == 0);
    CHECK_STR(text, "back\n"); /* written through the read-write mount */
    free(text);
    snprintf(path, sizeof path, "%s/denied", host);
    CHECK(!exists(path)); /* the readOnly mount refused the write */
    snprintf(path, sizeof path, "%s/made", host);
    CHECK(exists(path)); /* DirectoryOrCreate made it */
    snprintf(path, sizeof path, "%s/inside", scratch);
    CHECK(!exists(path)); /* the emptyDir covered the node's directory in the task's namespace only */
    long code;
    json_t *pod = api_get(&server, PODS "/%s", "mounts-w-0", &code);
    CHECK_STR(jv_str(pod, "spec.volumes.2.name"), "scratch"); /* the template's, then the Job's */
    CHECK_STR(jv_str(pod, "spec.volumes.3.persistentVolumeClaim.claimName"), "joined");
    CHECK_STR(jv_str(pod, "spec.containers.0.volumeMounts.3.mountPath"), scratch);
    CHECK_STR(jv_str(pod, "spec.containers.0.volumeMounts.4.mountPath"), "/data/joined");
    json_decref(pod);
    json_t *job = job_get(&server, "mounts");
    snprintf(path, sizeof path, "%s/jobs/%s/pods/mounts-w-0/scratch/inside", server.data_dir,
             jv_str(job, "metadata.uid") ? jv_str(job, "metadata.uid") : "?");
    json_decref(job);
    text = NULL;
    CHECK(read_file(path, 64, &text, NULL) == 0);
    CHECK_STR(text, "mine\n");
    free(text);
    remove_tree(host);
    rmdir(scratch);
}

/* A symbolic link planted where the mountPath passes is not followed: the pod fails to start and
 * nothing is mounted or made where the link points. */
static void a_symlink_in_the_mount_path_is_not_followed(void)
{
    SKIP_IF(geteuid() != 0, "mount namespaces need root");
    REQUIRE(ensure_server());
    char host[] = "/tmp/caldera-hostpath-XXXXXX", elsewhere[] = "/tmp/caldera-elsewhere-XXXXXX";
    REQUIRE(mkdtemp(host) && mkdtemp(elsewhere));
    char link[600], volumes[512], mounts[512];
    snprintf(link, sizeof link, "%s/link", host);
    REQUIRE(symlink(elsewhere, link) == 0);
    snprintf(volumes, sizeof volumes, "        - {name: data, hostPath: {path: %s}}\n", host);
    snprintf(mounts, sizeof mounts, "          - {name: data, mountPath: %s/link/target}\n", host);
    REQUIRE(job_submit(&server, "planted", "", volume_task(volumes, "true", mounts)) == 201);
    long code;
    json_t *pod = NULL;
    for (int i = 0; i < 200; i++) {
        json_decref(pod);
        pod = api_get(&server, PODS "/%s", "planted-w-0", &code);
        if (jv_str(pod, "status.phase") && strcmp(jv_str(pod, "status.phase"), "Failed") == 0)
            break;
        usleep(50000);
    }
    CHECK_STR(jv_str(pod, "status.phase"), "Failed");
    const char *message = jv_str(pod, "status.containerStatuses.0.state.terminated.message");
    CHECK(message && strstr(message, "symbolic link"));
    json_decref(pod);
    char target[700];
    snprintf(target, sizeof target, "%s/target", elsewhere);
    CHECK(!exists(target)); /* nothing made through the link */
    remove_tree(host);
    remove_tree(elsewhere);
}

/* Without mount namespaces (not root) no pod volume is accepted: a 422 naming the mount. */
static void without_mount_namespaces_pod_volumes_are_refused(void)
{
    SKIP_IF(geteuid() == 0, "root can mount");
    REQUIRE(ensure_server());
    long code;
    json_t *st = server_request(&server, "POST", JOBS,
                                job_yaml("scratchy", "",
                                         volume_task("        - {name: s, emptyDir: {}}\n", "true",
                                                     "          - {name: s, mountPath: /tmp}\n")),
                                "application/yaml", &code);
    CHECK_INT(code, 422);
    CHECK_STR(jv_str(st, "details.causes.0.field"), "spec.tasks[0].template.spec.containers[0].volumeMounts[0]");
    CHECK(strstr(jv_str(st, "details.causes.0.message") ? jv_str(st, "details.causes.0.message") : "",
                 "mount namespace") != NULL);
    json_decref(st);
}

/* With --auth a user's token may not mount the node's files, but in a namespace the server's
 * --host-path-namespaces names it may. */
static void host_path_is_refused_for_a_user_token(void)
{
    struct test_server s;
    static const char *const args[] = {"--auth", "--host-path-namespaces", "granted", "--shutdown-grace", "2", NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);
    char path[400], *admin = NULL;
    snprintf(path, sizeof path, "%s/admin.token", s.data_dir);
    REQUIRE(read_file(path, 256, &admin, NULL) == 0);
    admin[strcspn(admin, "\n ")] = '\0';
    long code;
    json_t *made = server_request_as(
        &s, admin, "POST", TOKENS, "{\"user\": \"alice\", \"namespaces\": [\"default\"], \"uid\": 1000, \"gid\": 1000}",
        "application/json", &code);
    CHECK_INT(code, 201);
    const char *user = jv_str(made, "status.token");
    REQUIRE(user);
    json_t *st = server_request_as(
        &s, user, "POST", JOBS,
        job_yaml("peek", "",
                 volume_task("        - {name: root, hostPath: {path: /etc}}\n", "cat /etc/shadow",
                             "          - {name: root, mountPath: /mnt}\n")),
        "application/yaml", &code);
    if (geteuid() == 0) {
        CHECK_INT(code, 403);
        CHECK_STR(jv_str(st, "reason"), "Forbidden");
        CHECK_STR(jv_str(st, "details.causes.0.field"), "spec.tasks[0].template.spec.containers[0].volumeMounts[0]");
        CHECK(strstr(jv_str(st, "details.causes.0.message") ? jv_str(st, "details.causes.0.message") : "",
                     "hostPath") != NULL);
    } else {
        CHECK_INT(code, 422); /* no mount namespaces: refused before the privilege is asked */
    }
    json_decref(st);
    json_decref(made);
    made = server_request_as(&s, admin, "POST", TOKENS,
                             "{\"user\": \"bob\", \"namespaces\": [\"granted\"], \"uid\": 1001, \"gid\": 1001}",
                             "application/json", &code);
    CHECK_INT(code, 201);
    const char *granted = jv_str(made, "status.token");
    REQUIRE(granted);
    st = server_request_as(&s, granted, "POST", "/apis/batch.volcano.sh/v1alpha1/namespaces/granted/jobs",
                           job_yaml("peek", "",
                                    volume_task("        - {name: tmp, hostPath: {path: /tmp}}\n", "true",
                                                "          - {name: tmp, mountPath: /tmp, readOnly: true}\n")),
                           "application/yaml", &code);
    CHECK_INT(code, geteuid() == 0 ? 201 : 422);
    json_decref(st);
    json_decref(made);
    free(admin);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static void server_stops_cleanly(void)
{
    if (!up)
        return;
    CHECK_INT(server_stop(&server), 0);
    server_cleanup(&server);
}

TEST_MAIN(TEST_CASE(host_path_and_empty_dir_are_mounted), TEST_CASE(a_symlink_in_the_mount_path_is_not_followed),
          TEST_CASE(without_mount_namespaces_pod_volumes_are_refused), TEST_CASE(host_path_is_refused_for_a_user_token),
          TEST_CASE(server_stops_cleanly))
