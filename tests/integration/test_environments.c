/* Software environments against a real server: an image named in the --images file runs with its
 * venv first on PATH (python3 is the venv's, sys.prefix its directory) and the pod says which
 * environment ran it; an unknown image is warned about (UnknownImage) or refused at submit (422 on
 * the container's image); a task run as a real user gets that user's HOME, USER and LOGNAME while it
 * starts in the job's working directory; `jobctl submit --export` carries the submitter's variables. */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define WAIT_MS 30000
#define PODS "/api/v1/namespaces/default/pods"

static char tmp[64];

static const char *tmp_dir(void)
{
    if (!tmp[0]) {
        snprintf(tmp, sizeof tmp, "/tmp/caldera-env-XXXXXX");
        if (!mkdtemp(tmp))
            tmp[0] = '\0';
        else
            chmod(tmp, 0755); /* tasks of other users pass through to the venv */
    }
    return tmp;
}

/* Writes text to dir/name; the path into out. */
static bool write_text(const char *dir, const char *name, const char *text, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", dir, name);
    FILE *f = fopen(out, "w");
    if (!f)
        return false;
    fputs(text, f);
    return fclose(f) == 0;
}

/* The pod's log (never NULL; caller frees). */
static char *pod_log(const struct test_server *s, const char *pod)
{
    char *log = server_pod_log(s, pod);
    return log ? log : strdup("");
}

/* The pod's annotation (a copy, "" when missing). */
static char *pod_annotation(const struct test_server *s, const char *pod, const char *key)
{
    long code;
    json_t *p = api_get(s, PODS "/%s", pod, &code);
    const char *v = json_string_value(json_object_get(jv_at(p, "metadata.annotations"), key));
    char *out = strdup(v ? v : "");
    json_decref(p);
    return out;
}

/* Whether an event of reason `reason`, type `type`, about the Job `job`, says `text`. */
static bool has_event(const struct test_server *s, const char *job, const char *reason, const char *type,
                      const char *text)
{
    json_t *list = server_request(s, "GET", "/api/v1/namespaces/default/events", NULL, NULL, NULL);
    json_t *items = json_object_get(list, "items"), *ev;
    size_t i;
    bool found = false;
    json_array_foreach(items, i, ev)
    {
        const char *r = jv_str(ev, "reason"), *t = jv_str(ev, "type"), *m = jv_str(ev, "message");
        const char *name = jv_str(ev, "involvedObject.name"), *kind = jv_str(ev, "involvedObject.kind");
        found = found || (r && strcmp(r, reason) == 0 && t && strcmp(t, type) == 0 && m && strstr(m, text) && name &&
                          strcmp(name, job) == 0 && kind && strcmp(kind, "Job") == 0);
    }
    json_decref(list);
    return found;
}

static bool make_venv(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "python3 -m venv --without-pip %s/venv >/dev/null 2>&1", dir);
    int rc = system(cmd);
    return rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
}

#define PY_TASK(image)                                                                                      \
    TASK("main", 1, "",                                                                                     \
         "'echo py=$(command -v python3); python3 -c \"import sys; print(\\\"prefix=\\\" + sys.prefix)\"; " \
         "echo ve=$VIRTUAL_ENV; echo mark=$ENV_MARK; echo cwd=$(pwd)'",                                     \
         "          image: " image "\n")

static void venv_environment_and_unknown_image_warned(void)
{
    const char *dir = tmp_dir();
    REQUIRE(dir[0]);
    SKIP_IF(!make_venv(dir), "python3 -m venv is not available");
    char images[4096], file[256];
    snprintf(images, sizeof images,
             "environments:\n"
             "  - name: pyenv\n"
             "    images: [\"example/py:*\"]\n"
             "    venv: %s/venv\n"
             "    env: {ENV_MARK: \"from-the-environment\"}\n"
             "    workingDir: %s\n",
             dir, dir);
    REQUIRE(write_text(dir, "images.yaml", images, file, sizeof file));
    struct test_server s;
    const char *const args[] = {"--images", file, NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);
    REQUIRE(job_submit(&s, "py", "", PY_TASK("example/py:3.11")) == 201);
    REQUIRE(job_submit(&s, "other", "", PY_TASK("busybox:1.36")) == 201);
    CHECK(job_wait(&s, "py", "status.state.phase", "Completed", WAIT_MS) == 0);
    CHECK(job_wait(&s, "other", "status.state.phase", "Completed", WAIT_MS) == 0);
    char want[512];
    char *log = pod_log(&s, "py-main-0");
    snprintf(want, sizeof want, "py=%s/venv/bin/python3\n", dir);
    CHECK_CONTAINS(log, want);
    snprintf(want, sizeof want, "prefix=%s/venv\n", dir);
    CHECK_CONTAINS(log, want);
    snprintf(want, sizeof want, "ve=%s/venv\n", dir);
    CHECK_CONTAINS(log, want);
    CHECK_CONTAINS(log, "mark=from-the-environment\n");
    snprintf(want, sizeof want, "cwd=%s\n", dir); /* the environment's workingDir */
    CHECK_CONTAINS(log, want);
    free(log);
    char *env = pod_annotation(&s, "py-main-0", "caldera.io/environment");
    CHECK_STR(env, "pyenv");
    free(env);
    /* the unknown image ran in the default environment, said so, and the job was warned */
    log = pod_log(&s, "other-main-0");
    CHECK(strstr(log, "/venv") == NULL);
    CHECK_CONTAINS(log, "mark=\n");
    CHECK_CONTAINS(log, "/work\n"); /* cwd: the job's working directory */
    free(log);
    env = pod_annotation(&s, "other-main-0", "caldera.io/environment");
    CHECK_STR(env, "default");
    free(env);
    CHECK(has_event(&s, "other", "UnknownImage", "Warning", "busybox:1.36"));
    CHECK(!has_event(&s, "py", "UnknownImage", "Warning", ""));
    server_stop(&s);
    server_cleanup(&s);
}

static void unknown_image_refused_at_submit(void)
{
    char file[256];
    REQUIRE(tmp_dir()[0]);
    REQUIRE(write_text(tmp_dir(), "refuse.yaml",
                       "unknownImages: refuse\n"
                       "environments:\n"
                       "  - {name: torch, images: [\"pytorch/pytorch:*\"], path: [/opt/torch/bin]}\n",
                       file, sizeof file));
    struct test_server s;
    const char *const args[] = {"--images", file, NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);
    long code;
    json_t *r = server_request(&s, "POST", JOBS, job_yaml("refused", "", PY_TASK("ubuntu:22.04")), "application/yaml",
                               &code);
    CHECK_INT(code, 422);
    const char *field = jv_str(r, "details.causes.0.field");
    CHECK_STR(field, "spec.tasks[0].template.spec.containers[0].image");
    CHECK_CONTAINS(jv_str(r, "details.causes.0.message"), "ubuntu:22.04");
    json_decref(r);
    /* another dialect: the cause names the field of its own document */
    r = server_request(
        &s, "POST", "/apis/kubeflow.org/v1/namespaces/default/pytorchjobs",
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: pt}\nspec:\n"
        "  pytorchReplicaSpecs:\n    Master:\n      replicas: 1\n      template:\n        spec:\n"
        "          containers:\n          - {name: pytorch, image: \"ubuntu:22.04\", command: [\"true\"]}\n",
        "application/yaml", &code);
    CHECK_INT(code, 422);
    CHECK_STR(jv_str(r, "details.causes.0.field"), "spec.pytorchReplicaSpecs.Master.template.spec.containers[0].image");
    json_decref(r);
    REQUIRE(job_submit(&s, "torch", "", PY_TASK("pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime")) == 201);
    CHECK(job_wait(&s, "torch", "status.state.phase", "Completed", WAIT_MS) == 0);
    char *env = pod_annotation(&s, "torch-main-0", "caldera.io/environment");
    CHECK_STR(env, "torch");
    free(env);
    server_stop(&s);
    server_cleanup(&s);
}

static void bad_images_file_stops_the_server(void)
{
    char file[256], data[128];
    REQUIRE(tmp_dir()[0]);
    REQUIRE(write_text(tmp_dir(), "bad.yaml",
                       "unknownImages: warn\n"
                       "environments:\n"
                       "  - name: py\n"
                       "    images: [\"python:*\"]\n"
                       "    venv: venvs/py\n",
                       file, sizeof file));
    snprintf(data, sizeof data, "%s/bad-data", tmp_dir());
    const char *const args[] = {"--images", file, NULL};
    char *err = NULL;
    CHECK_INT(server_run_to_exit(data, args, 20000, NULL, &err, NULL), 2);
    CHECK_CONTAINS(err, "environments[0].venv");
    CHECK_CONTAINS(err, "line 5");
    free(err);
}

#define USER_NAME "caldera-envtest"
#define USER_UID 47011
#define NO_PASSWD_UID 47013

#define ID_TASK(uid)                                                                                  \
    TASK("main", 1, "", "'echo home=$HOME; echo user=$USER; echo logname=$LOGNAME; echo cwd=$(pwd)'", \
         "          securityContext: {runAsUser: " #uid ", runAsGroup: " #uid "}\n")

static void home_of_a_real_user(void)
{
    SKIP_IF(geteuid() != 0, "needs root to add a user and run tasks as it");
    SKIP_IF(access("/usr/sbin/useradd", X_OK) != 0, "no useradd");
    SKIP_IF(getpwuid(USER_UID) || getpwuid(NO_PASSWD_UID), "the test's uids are taken on this machine");
    char cmd[256];
    snprintf(cmd, sizeof cmd, "useradd -M -d /nonexistent/caldera-envtest -u %d -U " USER_NAME " 2>&1", USER_UID);
    REQUIRE(system(cmd) == 0);
    struct test_server s;
    bool up = server_start(&s, NULL, NULL) == 0;
    if (up) {
        CHECK(job_submit(&s, "real", "", ID_TASK(47011)) == 201);
        CHECK(job_submit(&s, "anon", "", ID_TASK(47013)) == 201);
        CHECK(job_wait(&s, "real", "status.state.phase", "Completed", WAIT_MS) == 0);
        CHECK(job_wait(&s, "anon", "status.state.phase", "Completed", WAIT_MS) == 0);
        char *log = pod_log(&s, "real-main-0");
        CHECK_CONTAINS(log, "home=/nonexistent/caldera-envtest\n"); /* from the passwd database, never made */
        CHECK_CONTAINS(log, "user=" USER_NAME "\n");
        CHECK_CONTAINS(log, "logname=" USER_NAME "\n");
        CHECK_CONTAINS(log, "/work\n"); /* it starts in the job's working directory */
        free(log);
        CHECK(access("/nonexistent/caldera-envtest", F_OK) != 0);
        log = pod_log(&s, "anon-main-0");
        CHECK(strstr(log, "home=/tmp/") != NULL && strstr(log, "/work\nuser=\n") != NULL); /* HOME: the work dir */
        free(log);
        server_stop(&s);
        server_cleanup(&s);
    }
    CHECK(system("userdel " USER_NAME " >/dev/null 2>&1") == 0);
    CHECK(up);
}

static void submit_export_carries_variables(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, NULL) == 0);
    char file[256];
    REQUIRE(tmp_dir()[0]);
    REQUIRE(write_text(tmp_dir(), "export.yaml",
                       job_yaml("exported", "",
                                TASK("main", 1, "",
                                     "'echo foo=$CALDERA_ENV_FOO; echo bar=$CALDERA_ENV_BAR; "
                                     "echo pwd=$PWD; echo shlvl=$SHLVL'",
                                     "          env: [{name: CALDERA_ENV_BAR, value: the-job-s}]\n")),
                       file, sizeof file));
    setenv("CALDERA_ENV_FOO", "carried over", 1);
    setenv("CALDERA_ENV_BAR", "the-submitter-s", 1);
    char *out = NULL, *err = NULL;
    CHECK_INT(server_jobctl(&s, (const char *const[]){"submit", file, "--export=CALDERA_ENV_FOO,CALDERA_ENV_BAR", NULL},
                            &out, &err),
              0);
    free(out);
    free(err);
    CHECK(job_wait(&s, "exported", "status.state.phase", "Completed", WAIT_MS) == 0);
    char *log = pod_log(&s, "exported-main-0");
    CHECK_CONTAINS(log, "foo=carried over\n");
    CHECK_CONTAINS(log, "bar=the-job-s\n"); /* the job's own value wins */
    free(log);
    /* --export (ALL): the shell's own variables stay behind; NONE carries nothing */
    setenv("PWD", "/somewhere/of/the/submitter", 1);
    json_decref(server_request(&s, "DELETE", JOBS "/exported", NULL, NULL, NULL));
    CHECK(server_wait_field(&s, JOBS "/exported", "code", "404", WAIT_MS) == 0);
    CHECK_INT(server_jobctl(&s, (const char *const[]){"submit", "--export", file, NULL}, NULL, NULL), 0);
    CHECK(job_wait(&s, "exported", "status.state.phase", "Completed", WAIT_MS) == 0);
    log = pod_log(&s, "exported-main-0");
    CHECK_CONTAINS(log, "foo=carried over\n");
    CHECK(strstr(log, "/somewhere/of/the/submitter") == NULL);
    free(log);
    json_t *job = job_get(&s, "exported");
    char *text = json_dumps(job, JSON_COMPACT);
    CHECK(text && !strstr(text, "\"SHLVL\"") && !strstr(text, "\"CALDERA_TOKEN\""));
    free(text);
    json_decref(job);
    json_decref(server_request(&s, "DELETE", JOBS "/exported", NULL, NULL, NULL));
    CHECK(server_wait_field(&s, JOBS "/exported", "code", "404", WAIT_MS) == 0);
    CHECK_INT(server_jobctl(&s, (const char *const[]){"submit", "--export=NONE", file, NULL}, NULL, NULL), 0);
    CHECK(job_wait(&s, "exported", "status.state.phase", "Completed", WAIT_MS) == 0);
    log = pod_log(&s, "exported-main-0");
    CHECK_CONTAINS(log, "foo=\n");
    free(log);
    server_stop(&s);
    server_cleanup(&s);
}

static void cleanup(void)
{
    if (tmp[0])
        CHECK(remove_tree(tmp) == 0);
}

TEST_MAIN(TEST_CASE(venv_environment_and_unknown_image_warned), TEST_CASE(unknown_image_refused_at_submit),
          TEST_CASE(bad_images_file_stops_the_server), TEST_CASE(home_of_a_real_user),
          TEST_CASE(submit_export_carries_variables), TEST_CASE(cleanup))
