/* Volcano's job plugins on jobs parsed from YAML: admission errors and default plugins, every plugin's
 * variables for several replicas, TF_CONFIG, the svc host files and hosts file, the ssh key pair, ports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters/dialects/volcano/job.h"
#include "common/fs.h"
#include "common/strv.h"
#include "scheduler/controller/job_plugins/job_plugins.h"
#include "tests/lib/causes.h"
#include "tests/lib/env_lookup.h"
#include "tests/lib/test.h"
#include "tests/lib/yaml_fixture.h"

/* --- helpers ------------------------------------------------------------------------------------ */

static struct job *parse(const char *yaml, struct api_status *st)
{
    return yaml_volcano_job(yaml, "team-a", false, st);
}

/* A Job named `name` with `plugins` (a YAML flow mapping) and tasks "<name>:<replicas>[:<container>]"
 * separated by spaces. Each container runs `sleep 1`. */
static char *job_yaml(const char *name, const char *plugins, const char *tasks)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    fprintf(f, "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: %s}\nspec:\n", name);
    if (plugins)
        fprintf(f, "  plugins: %s\n", plugins);
    fprintf(f, "  tasks:\n");
    char *copy = strdup(tasks), *save = NULL;
    for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        char task[64] = "", container[64] = "c";
        int replicas = 1;
        sscanf(t, "%63[^:]:%d:%63s", task, &replicas, container);
        fprintf(f,
                "  - name: %s\n    replicas: %d\n    template:\n      spec:\n        containers:\n"
                "        - {name: %s, image: busybox, command: [sleep], args: [\"1\"]}\n",
                task, replicas, container);
    }
    free(copy);
    fclose(f);
    return out;
}

static struct job *make_job(const char *name, const char *plugins, const char *tasks, struct api_status *st)
{
    char *yaml = job_yaml(name, plugins, tasks);
    struct job *job = parse(yaml, st);
    free(yaml);
    return job;
}

static char *read_text(const char *dir, const char *name)
{
    char path[1024], *data = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (read_file(path, 1 << 20, &data, NULL) != 0)
        return NULL;
    return data;
}

static int mode_of(const char *dir, const char *name)
{
    char path[1024];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &sb) == 0 ? (int)(sb.st_mode & 07777) : -1;
}

static char *make_tmpdir(void)
{
    char tmpl[] = "/tmp/caldera-plugins-XXXXXX";
    return mkdtemp(tmpl) ? strdup(tmpl) : NULL;
}

static void drop_tmpdir(char *dir)
{
    remove_tree(dir);
    free(dir);
}

/* The attempt of replica `index` of the task named `task`; REQUIREs success in the caller by returning -1. */
static int attempt_of(const struct job *job, const char *task, int index, const char *dir, struct plugin_attempt *pa)
{
    char why[256];
    for (int t = 0; t < job->ntasks; t++)
        if (strcmp(job->tasks[t].name, task) == 0)
            return job_plugins_attempt(job, t, index, dir, pa, why, sizeof why);
    return -1;
}

/* --- admission ---------------------------------------------------------------------------------------- */

/* make_job("j", plugins, tasks) is refused, the cause on field checked against want with check
 * (CHECK_STR or CHECK_CONTAINS). */
#define CHECK_REFUSED(plugins, tasks, check, field, want)       \
    do {                                                        \
        struct api_status st_;                                  \
        struct job *job_ = make_job("j", plugins, tasks, &st_); \
        CHECK(job_ == NULL);                                    \
        check(cause_message(&st_, field), want);                \
        job_free(job_);                                         \
    } while (0)

static void unknown_plugin_is_refused_with_the_supported_list(void)
{
    struct api_status st;
    struct job *job = make_job("j", "{foo: [], svc: []}", "a:1", &st);
    CHECK(job == NULL);
    CHECK_INT(st.code, 422);
    CHECK_STR(cause_message(&st, "spec.plugins[foo]"),
              "Unsupported value: \"foo\": supported plugins: env, svc, ssh, pytorch, tensorflow, mpi, ray");
    job_free(job);
}

static void bad_arguments_are_refused_with_their_path(void)
{
    CHECK_REFUSED("{pytorch: [\"--master=a\", \"--foo=1\"]}", "a:1", CHECK_STR, "spec.plugins[pytorch][1]",
                  "Unsupported value: \"--foo=1\": supported arguments: --master, --worker, --port");
    CHECK_REFUSED("{pytorch: [5]}", "master:1", CHECK_STR, "spec.plugins[pytorch][0]",
                  "Invalid value: a plugin argument must be a string");
    CHECK_REFUSED("{pytorch: [\"--port=abc\"]}", "master:1", CHECK_STR, "spec.plugins[pytorch][0]",
                  "Invalid value: \"--port=abc\": --port must be a port number between 1 and 65535");
    CHECK_REFUSED("{tensorflow: [\"--ps=a\", \"--port\"]}", "a:1", CHECK_STR, "spec.plugins[tensorflow][1]",
                  "Invalid value: \"--port\": flag needs an argument");
    CHECK_REFUSED("{svc: [\"--disable-network-policy=maybe\"]}", "a:1", CHECK_STR, "spec.plugins[svc][0]",
                  "Invalid value: \"--disable-network-policy=maybe\": invalid boolean value \"maybe\" for "
                  "--disable-network-policy");
    CHECK_REFUSED("{env: [\"x\"]}", "a:1", CHECK_STR, "spec.plugins[env][0]",
                  "Invalid value: \"x\": not a flag: plugin arguments are --name=value");
    CHECK_REFUSED("{env: [\"--x\"]}", "a:1", CHECK_STR, "spec.plugins[env][0]",
                  "Unsupported value: \"--x\": supported arguments: none");
    CHECK_REFUSED("{ssh: [\"--ssh-key-file-path=rel/dir\"]}", "a:1", CHECK_STR, "spec.plugins[ssh]",
                  "Invalid value: \"rel/dir\": --ssh-key-file-path must be an absolute path");
    CHECK_REFUSED("{svc: \"--disable-network-policy\"}", "a:1", CHECK_STR, "spec.plugins[svc]",
                  "Invalid value: must be a list of string arguments, not a string");
    CHECK_REFUSED("[svc]", "a:1", CHECK_STR, "spec.plugins",
                  "Invalid value: must be an object of plugin name to arguments, not a list");
}

static void volcano_argument_forms_are_accepted(void)
{
    struct api_status st;
    struct job *job = make_job("j",
                               "{pytorch: [\"--master=m\", \"--worker\", \"w\", \"-port=5000\"], "
                               "svc: [\"--publish-not-ready-addresses\", \"--disable-network-policy=false\", \"--\"], "
                               "ssh: [\"--ssh-key-file-path=/home/u/.ssh\"], env: []}",
                               "m:1 w:2", &st);
    CHECK_INT(st.code, 0);
    CHECK(job != NULL);
    job_free(job);

    job = make_job("j",
                   "{ray: [\"--head=h\", \"--headContainer=hc\", \"--worker=w\", \"--workerContainer=wc\", "
                   "\"--port=7000\", \"--dashboardPort=7001\", \"--clientPort=7002\"]}",
                   "h:1:hc w:2:wc", &st);
    CHECK_INT(st.code, 0);
    CHECK(job != NULL);
    job_free(job);
}

static void framework_tasks_must_exist(void)
{
    struct api_status st;
    CHECK_REFUSED("{pytorch: []}", "worker:2", CHECK_STR, "spec.plugins[pytorch]",
                  "Invalid value: \"master\": the pytorch master task is not a task of the job (name it with "
                  "--master=<task>)");
    CHECK_REFUSED(
        "{mpi: [\"--master=launcher\"]}", "launcher:1", CHECK_STR, "spec.plugins[mpi]",
        "Invalid value: \"worker\": the mpi worker task is not a task of the job (name it with --worker=<task>)");
    CHECK_REFUSED("{ray: []}", "worker:2", CHECK_CONTAINS, "spec.plugins[ray]", "\"head\": the ray head task");
    CHECK_REFUSED("{tensorflow: [\"--chief=boss\"]}", "worker:2", CHECK_CONTAINS, "spec.plugins[tensorflow]",
                  "\"boss\": the tensorflow chief task");

    /* Defaults that name no task are fine for tensorflow, and a master alone for pytorch. */
    struct job *job = make_job("j", "{tensorflow: [], pytorch: []}", "master:1 trainer:2", &st);
    CHECK_INT(st.code, 0);
    job_free(job);
}

static const json_t *plugins_of(const struct job *job)
{
    return json_object_get(json_object_get(job_manifest(job), "spec"), "plugins");
}

static void frameworks_get_their_default_plugins(void)
{
    struct api_status st;
    struct job *job = make_job("j", "{mpi: []}", "master:1 worker:2", &st);
    REQUIRE(job);
    const json_t *p = plugins_of(job);
    CHECK(json_is_array(json_object_get(p, "svc")) && json_array_size(json_object_get(p, "svc")) == 0);
    CHECK(json_is_array(json_object_get(p, "ssh")) && json_array_size(json_object_get(p, "ssh")) == 0);
    CHECK_INT(json_object_size(p), 3);
    job_free(job);

    const char *const frameworks[] = {"pytorch", "tensorflow", "ray"};
    for (size_t i = 0; i < 3; i++) {
        char plugins[64];
        snprintf(plugins, sizeof plugins, "{%s: []}", frameworks[i]);
        job = make_job("j", plugins, "master:1 head:1 worker:2", &st);
        REQUIRE(job);
        p = plugins_of(job);
        CHECK(json_object_get(p, "svc") != NULL);
        CHECK(json_object_get(p, "ssh") == NULL);
        job_free(job);
    }

    /* The user's own svc arguments stay; env alone adds nothing. */
    job = make_job("j", "{mpi: [], svc: [\"--disable-network-policy\"]}", "master:1 worker:1", &st);
    REQUIRE(job);
    const json_t *svc = json_object_get(plugins_of(job), "svc");
    CHECK_STR(json_string_value(json_array_get(svc, 0)), "--disable-network-policy");
    job_free(job);
    job = make_job("j", "{env: []}", "a:1", &st);
    REQUIRE(job);
    CHECK_INT(json_object_size(plugins_of(job)), 1);
    job_free(job);
}

/* --- env and svc ----------------------------------------------------------------------------------------- */

static void task_index_is_always_set(void)
{
    struct api_status st;
    struct job *job = make_job("j", NULL, "a:3", &st);
    REQUIRE(job);
    struct plugin_attempt pa;
    REQUIRE(attempt_of(job, "a", 2, "/data/jobs/x", &pa) == 0);
    REQUIRE(pa.env);
    CHECK_STR(pa.env[0], "VK_TASK_INDEX=2");
    CHECK_STR(pa.env[1], "VC_TASK_INDEX=2");
    CHECK(pa.env[2] == NULL);
    CHECK(pa.argv == NULL);
    CHECK_STR(pa.hosts_file, "");
    CHECK_STR(pa.ssh_dir, "");
    CHECK_INT(job_plugins_ports_needed(job), 0);
    plugin_attempt_free(&pa);

    char why[256];
    CHECK(job_plugins_attempt(job, 0, 3, "/d", &pa, why, sizeof why) == -1);
    CHECK_CONTAINS(why, "no replica 3");
    job_free(job);
}

static void svc_variables_name_every_task(void)
{
    struct api_status st;
    struct job *job = make_job("train", "{svc: []}", "ps-main:1 worker:3", &st);
    REQUIRE(job);
    struct plugin_attempt pa;
    REQUIRE(attempt_of(job, "worker", 1, "/data/jobs/u1", &pa) == 0);
    const char *const want[] = {
        "VK_TASK_INDEX=1",
        "VC_TASK_INDEX=1",
        "VC_PS_MAIN_HOSTS=train-ps-main-0.train",
        "VC_PS_MAIN_NUM=1",
        "VC_WORKER_HOSTS=train-worker-0.train,train-worker-1.train,train-worker-2.train",
        "VC_WORKER_NUM=3",
        "VC_CONFIG_DIR=/data/jobs/u1/etc/volcano",
    };
    size_t n = sizeof want / sizeof want[0];
    CHECK_INT(strv_len(pa.env), n);
    for (size_t i = 0; i < n && pa.env && pa.env[i]; i++)
        CHECK_STR(pa.env[i], want[i]);
    CHECK_STR(pa.hosts_file, "/data/jobs/u1/etc/hosts");
    CHECK_STR(pa.ssh_dir, "");
    plugin_attempt_free(&pa);
    job_free(job);
}

static void svc_files_list_the_hosts(void)
{
    struct api_status st;
    struct job *job = make_job("train", "{svc: []}", "ps-main:1 worker:3", &st);
    REQUIRE(job);
    char *dir = make_tmpdir(), why[256];
    REQUIRE(dir);
    CHECK(job_plugins_prepare(job, dir, why, sizeof why) == 0);
    char config[1100];
    snprintf(config, sizeof config, "%s/etc/volcano", dir);
    char *ps = read_text(config, "ps_main.host"), *worker = read_text(config, "worker.host");
    CHECK_STR(ps, "train-ps-main-0.train");
    CHECK_STR(worker, "train-worker-0.train\ntrain-worker-1.train\ntrain-worker-2.train");
    free(ps);
    free(worker);

    char *hosts = read_text(dir, "etc/hosts"), *system = NULL;
    size_t system_len = 0;
    REQUIRE(hosts);
    if (read_file("/etc/hosts", 1 << 20, &system, &system_len) != 0)
        system = strdup("");
    CHECK(strncmp(hosts, system, system_len) == 0);
    const char *ours = hosts + system_len;
    if (system_len > 0 && system[system_len - 1] != '\n')
        CHECK(*ours++ == '\n');
    CHECK_STR(ours,
              "127.0.0.1 train-ps-main-0.train train-ps-main-0\n"
              "127.0.0.1 train-worker-0.train train-worker-0\n"
              "127.0.0.1 train-worker-1.train train-worker-1\n"
              "127.0.0.1 train-worker-2.train train-worker-2\n");
    free(system);
    free(hosts);
    drop_tmpdir(dir);
    job_free(job);
}

/* Volcano's --inject-hosts-env (default true): false leaves VC_<TASK>_HOSTS and VC_<TASK>_NUM out of every
 * replica's environment, as a job of a thousand pods needs (their list would pass ARG_MAX); the host files,
 * VC_CONFIG_DIR and the hosts file stay. Each of Go's spellings of a boolean reads the same. */
static void svc_inject_hosts_env_decides_the_host_variables(void)
{
    const char *const off[] = {"{svc: [\"--inject-hosts-env=false\"]}", "{svc: [\"-inject-hosts-env=0\"]}",
                               "{svc: [\"--inject-hosts-env=F\", \"--publish-not-ready-addresses\"]}",
                               "{pytorch: [], svc: [\"--inject-hosts-env=false\"]}"};
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
        struct api_status st;
        struct job *job = make_job("train", off[i], "master:1 worker:2", &st);
        REQUIRE(job);
        struct plugin_attempt pa;
        REQUIRE(attempt_of(job, "worker", 1, "/data/jobs/u1", &pa) == 0);
        CHECK(env_get(pa.env, "VC_WORKER_HOSTS") == NULL);
        CHECK(env_get(pa.env, "VC_WORKER_NUM") == NULL);
        CHECK(env_get(pa.env, "VC_MASTER_HOSTS") == NULL);
        CHECK_STR(env_get(pa.env, "VC_CONFIG_DIR"), "/data/jobs/u1/etc/volcano");
        CHECK_STR(env_get(pa.env, "VC_TASK_INDEX"), "1");
        CHECK_STR(pa.hosts_file, "/data/jobs/u1/etc/hosts");
        plugin_attempt_free(&pa);

        char *dir = make_tmpdir(), why[256];
        REQUIRE(dir);
        CHECK(job_plugins_prepare(job, dir, why, sizeof why) == 0);
        char config[1100];
        snprintf(config, sizeof config, "%s/etc/volcano", dir);
        char *worker = read_text(config, "worker.host");
        CHECK_STR(worker, "train-worker-0.train\ntrain-worker-1.train");
        free(worker);
        drop_tmpdir(dir);
        job_free(job);
    }

    const char *const on[] = {"{svc: []}", "{svc: [\"--inject-hosts-env\"]}", "{svc: [\"--inject-hosts-env=true\"]}",
                              "{svc: [\"--inject-hosts-env=false\", \"--inject-hosts-env=1\"]}"};
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
        struct api_status st;
        struct job *job = make_job("train", on[i], "master:1 worker:2", &st);
        REQUIRE(job);
        struct plugin_attempt pa;
        REQUIRE(attempt_of(job, "master", 0, "/data/jobs/u1", &pa) == 0);
        CHECK_STR(env_get(pa.env, "VC_WORKER_HOSTS"), "train-worker-0.train,train-worker-1.train");
        CHECK_STR(env_get(pa.env, "VC_WORKER_NUM"), "2");
        CHECK_STR(env_get(pa.env, "VC_MASTER_NUM"), "1");
        plugin_attempt_free(&pa);
        job_free(job);
    }

    /* A value Go's ParseBool refuses, or a value given as the next argument (Go reads a boolean alone). */
    CHECK_REFUSED("{svc: [\"--inject-hosts-env=no\"]}", "a:1", CHECK_STR, "spec.plugins[svc][0]",
                  "Invalid value: \"--inject-hosts-env=no\": invalid boolean value \"no\" for --inject-hosts-env");
    CHECK_REFUSED("{svc: [\"--inject-hosts-env\", \"false\"]}", "a:1", CHECK_STR, "spec.plugins[svc][1]",
                  "Invalid value: \"false\": not a flag: plugin arguments are --name=value");
    CHECK_REFUSED("{svc: [\"--inject-host-env=false\"]}", "a:1", CHECK_STR, "spec.plugins[svc][0]",
                  "Unsupported value: \"--inject-host-env=false\": supported arguments: --publish-not-ready-addresses, "
                  "--disable-network-policy, --inject-hosts-env");
}

/* --- ssh --------------------------------------------------------------------------------------------------- */

static char *run_ssh_keygen_public(const char *key_path)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ssh-keygen -y -f '%s' 2>&1", key_path);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    buf[n] = '\0';
    if (pclose(p) != 0)
        return NULL;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return strdup(buf);
}

static void ssh_key_pair_and_config_as_volcano_lays_them_out(void)
{
    struct api_status st;
    struct job *job = make_job("mpi-job", "{mpi: [\"--master=mpimaster\", \"--worker=mpiworker\"]}",
                               "mpimaster:1 mpiworker:2", &st);
    REQUIRE(job);
    char *dir = make_tmpdir(), why[256];
    REQUIRE(dir);
    REQUIRE(job_plugins_prepare(job, dir, why, sizeof why) == 0);
    char ssh[1100];
    snprintf(ssh, sizeof ssh, "%s/ssh", dir);
    CHECK_INT(mode_of(dir, "ssh"), 0700);
    const char *const files[] = {"id_rsa", "id_rsa.pub", "authorized_keys", "config"};
    for (size_t i = 0; i < 4; i++)
        CHECK_INT(mode_of(ssh, files[i]), 0600);

    char *priv = read_text(ssh, "id_rsa"), *pub = read_text(ssh, "id_rsa.pub");
    char *auth = read_text(ssh, "authorized_keys"), *config = read_text(ssh, "config");
    REQUIRE(priv && pub && auth && config);
    CHECK(strncmp(priv, "-----BEGIN RSA PRIVATE KEY-----\n", 32) == 0);
    CHECK(strncmp(pub, "ssh-rsa AAAAB3NzaC1yc2E", 23) == 0);
    CHECK(pub[strlen(pub) - 1] == '\n');
    CHECK_STR(auth, pub);
    CHECK_STR(config,
              "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n"
              "Host mpi-job-mpimaster-0\n  HostName mpi-job-mpimaster-0.mpi-job\n"
              "Host mpi-job-mpiworker-0\n  HostName mpi-job-mpiworker-0.mpi-job\n"
              "Host mpi-job-mpiworker-1\n  HostName mpi-job-mpiworker-1.mpi-job\n");

    char key_path[1200];
    snprintf(key_path, sizeof key_path, "%s/id_rsa", ssh);
    char *derived = run_ssh_keygen_public(key_path);
    REQUIRE(derived);
    size_t pub_len = strlen(pub);
    CHECK(strlen(derived) == pub_len - 1 && strncmp(derived, pub, pub_len - 1) == 0);
    free(derived);

    /* A second prepare (a restart of the job) keeps the key pair. */
    REQUIRE(job_plugins_prepare(job, dir, why, sizeof why) == 0);
    char *priv2 = read_text(ssh, "id_rsa"), *pub2 = read_text(ssh, "id_rsa.pub");
    CHECK_STR(priv2, priv);
    CHECK_STR(pub2, pub);
    free(priv2);
    free(pub2);

    /* Lost public files are written again from the kept private key. */
    char pub_path[1200];
    snprintf(pub_path, sizeof pub_path, "%s/id_rsa.pub", ssh);
    unlink(pub_path);
    REQUIRE(job_plugins_prepare(job, dir, why, sizeof why) == 0);
    pub2 = read_text(ssh, "id_rsa.pub");
    CHECK_STR(pub2, pub);
    free(pub2);

    struct plugin_attempt pa;
    REQUIRE(attempt_of(job, "mpiworker", 0, dir, &pa) == 0);
    CHECK_STR(pa.ssh_dir, ssh);
    plugin_attempt_free(&pa);

    free(priv);
    free(pub);
    free(auth);
    free(config);
    drop_tmpdir(dir);
    job_free(job);
}

/* Tasks that all run as one user (the token's, under --auth) can read the keys bound over their ~/.ssh:
 * the files are theirs (0600), the directory stays the server's (0711), so none can be replaced. */
static void ssh_keys_are_the_tasks_user_to_read(void)
{
    SKIP_IF(geteuid() != 0, "needs root to give files to uid 1001");
    struct api_status st;
    struct job *job = make_job("j", "{ssh: []}", "a:1 b:1", &st);
    REQUIRE(job);
    for (int t = 0; t < job->ntasks; t++) {
        job->tasks[t].run_as_uid = 1001;
        job->tasks[t].run_as_gid = 1001;
    }
    char *dir = make_tmpdir(), why[256];
    REQUIRE(dir);
    REQUIRE(job_plugins_prepare(job, dir, why, sizeof why) == 0);
    char ssh[1100];
    snprintf(ssh, sizeof ssh, "%s/ssh", dir);
    struct stat sb;
    CHECK(stat(ssh, &sb) == 0 && sb.st_uid == 0 && (sb.st_mode & 07777) == 0711);
    const char *const files[] = {"id_rsa", "id_rsa.pub", "authorized_keys", "config"};
    for (size_t i = 0; i < 4; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", ssh, files[i]);
        CHECK(lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == 1001 && (sb.st_mode & 07777) == 0600);
    }
    /* tasks of two users: the server's, as before */
    job->tasks[1].run_as_uid = 1002;
    REQUIRE(job_plugins_prepare(job, dir, why, sizeof why) == 0);
    CHECK(stat(ssh, &sb) == 0 && (sb.st_mode & 07777) == 0700);
    drop_tmpdir(dir);
    job_free(job);
}

static void ssh_user_keys_are_written_as_given(void)
{
    struct api_status st;
    struct job *job = make_job("j", "{ssh: [\"--ssh-private-key=PRIVATE\", \"--ssh-public-key=ssh-rsa AAAA me\"]}",
                               "a:1", &st);
    REQUIRE(job);
    char *dir = make_tmpdir(), why[256];
    REQUIRE(dir);
    REQUIRE(job_plugins_prepare(job, dir, why, sizeof why) == 0);
    char ssh[1100];
    snprintf(ssh, sizeof ssh, "%s/ssh", dir);
    char *priv = read_text(ssh, "id_rsa"), *pub = read_text(ssh, "id_rsa.pub");
    char *auth = read_text(ssh, "authorized_keys");
    CHECK_STR(priv, "PRIVATE");
    CHECK_STR(pub, "ssh-rsa AAAA me");
    CHECK_STR(auth, "ssh-rsa AAAA me");
    free(priv);
    free(pub);
    free(auth);
    drop_tmpdir(dir);
    job_free(job);
}

static void prepare_is_idempotent(void)
{
    struct api_status st;
    struct job *job = make_job("j", "{svc: []}", "a:2 b:1", &st);
    REQUIRE(job);
    char *dir = make_tmpdir(), why[256];
    REQUIRE(dir);
    REQUIRE(job_plugins_prepare(job, dir, why, sizeof why) == 0);
    char *hosts = read_text(dir, "etc/hosts"), *a = read_text(dir, "etc/volcano/a.host");
    REQUIRE(job_plugins_prepare(job, dir, why, sizeof why) == 0);
    char *hosts2 = read_text(dir, "etc/hosts"), *a2 = read_text(dir, "etc/volcano/a.host");
    CHECK_STR(hosts2, hosts);
    CHECK_STR(a2, a);
    CHECK_STR(a, "j-a-0.j\nj-a-1.j");
    free(hosts);
    free(hosts2);
    free(a);
    free(a2);
    drop_tmpdir(dir);
    job_free(job);

    /* Without plugins there is nothing to write. */
    job = make_job("j", NULL, "a:1", &st);
    REQUIRE(job);
    dir = make_tmpdir();
    REQUIRE(dir);
    CHECK(job_plugins_prepare(job, dir, why, sizeof why) == 0);
    CHECK_INT(mode_of(dir, "etc"), -1);
    drop_tmpdir(dir);
    job_free(job);
}

/* --- frameworks ---------------------------------------------------------------------------------------- */

static void pytorch_variables_per_replica(void)
{
    struct api_status st;
    struct job *job = make_job("pt", "{pytorch: []}", "master:1 worker:2", &st);
    REQUIRE(job);
    CHECK_INT(job_plugins_ports_needed(job), 1);
    job->port_base = 30000;
    struct plugin_attempt pa;
    REQUIRE(attempt_of(job, "master", 0, "/d", &pa) == 0);
    CHECK_STR(env_get(pa.env, "MASTER_ADDR"), "pt-master-0.pt");
    CHECK_STR(env_get(pa.env, "MASTER_PORT"), "30000");
    CHECK_STR(env_get(pa.env, "WORLD_SIZE"), "3");
    CHECK_STR(env_get(pa.env, "RANK"), "0");
    CHECK_STR(env_get(pa.env, "VC_WORKER_NUM"), "2"); /* svc came with pytorch */
    plugin_attempt_free(&pa);
    for (int i = 0; i < 2; i++) {
        REQUIRE(attempt_of(job, "worker", i, "/d", &pa) == 0);
        char rank[8];
        snprintf(rank, sizeof rank, "%d", i + 1);
        CHECK_STR(env_get(pa.env, "MASTER_ADDR"), "pt-master-0.pt");
        CHECK_STR(env_get(pa.env, "MASTER_PORT"), "30000");
        CHECK_STR(env_get(pa.env, "WORLD_SIZE"), "3");
        CHECK_STR(env_get(pa.env, "RANK"), rank);
        plugin_attempt_free(&pa);
    }
    job_free(job);

    /* --port wins and needs no block; WORLD_SIZE counts every task, RANK only master and workers. */
    job = make_job("pt", "{pytorch: [\"--port=5000\", \"--master=chief\"]}", "chief:1 worker:2 extra:1", &st);
    REQUIRE(job);
    CHECK_INT(job_plugins_ports_needed(job), 0);
    job->port_base = 30000;
    REQUIRE(attempt_of(job, "extra", 0, "/d", &pa) == 0);
    CHECK_STR(env_get(pa.env, "MASTER_ADDR"), "pt-chief-0.pt");
    CHECK_STR(env_get(pa.env, "MASTER_PORT"), "5000");
    CHECK_STR(env_get(pa.env, "WORLD_SIZE"), "4");
    CHECK(env_get(pa.env, "RANK") == NULL);
    plugin_attempt_free(&pa);
    job_free(job);
}

static json_t *tf_config_of(const struct job *job, const char *task, int index)
{
    struct plugin_attempt pa;
    if (attempt_of(job, task, index, "/d", &pa) != 0)
        return NULL;
    const char *text = env_get(pa.env, "TF_CONFIG");
    json_t *doc = text ? json_loads(text, 0, NULL) : NULL;
    plugin_attempt_free(&pa);
    return doc;
}

static void tensorflow_config_per_replica(void)
{
    struct api_status st;
    struct job *job = make_job("tf", "{tensorflow: []}", "ps:1 worker:2 chief:1", &st);
    REQUIRE(job);
    CHECK_INT(job_plugins_ports_needed(job), 4);
    job->port_base = 40000;

    struct plugin_attempt pa;
    REQUIRE(attempt_of(job, "worker", 1, "/d", &pa) == 0);
    CHECK_STR(env_get(pa.env, "TF_CONFIG"),
              "{\"cluster\":{\"ps\":[\"tf-ps-0.tf:40000\"],\"worker\":[\"tf-worker-0.tf:40001\","
              "\"tf-worker-1.tf:40002\"],\"chief\":[\"tf-chief-0.tf:40003\"]},\"task\":{\"type\":\"worker\","
              "\"index\":1}}");
    plugin_attempt_free(&pa);

    /* Parsed back: each replica finds itself, at a port no other replica has. */
    const char *const tasks[] = {"ps", "worker", "worker", "chief"};
    const int indexes[] = {0, 0, 1, 0};
    int ports[4];
    for (int r = 0; r < 4; r++) {
        json_t *doc = tf_config_of(job, tasks[r], indexes[r]);
        REQUIRE(doc);
        json_t *self = json_object_get(doc, "task");
        CHECK_STR(json_string_value(json_object_get(self, "type")), tasks[r]);
        CHECK_INT(json_integer_value(json_object_get(self, "index")), indexes[r]);
        json_t *cluster = json_object_get(doc, "cluster");
        CHECK_INT(json_object_size(cluster), 3);
        CHECK(json_object_get(cluster, "evaluator") == NULL);
        const char *me = json_string_value(json_array_get(json_object_get(cluster, tasks[r]), (size_t)indexes[r]));
        char want[64];
        snprintf(want, sizeof want, "tf-%s-%d.tf:", tasks[r], indexes[r]);
        REQUIRE(me && strncmp(me, want, strlen(want)) == 0);
        ports[r] = atoi(me + strlen(want));
        CHECK(ports[r] >= 40000 && ports[r] < 40004);
        for (int q = 0; q < r; q++)
            CHECK(ports[q] != ports[r]);
        json_decref(doc);
    }
    job_free(job);

    /* A role named by an argument; a task of no role reports its own name as its type. */
    job = make_job("tf", "{tensorflow: [\"--port=2222\", \"--ps=params\"]}", "params:1 trainer:1", &st);
    REQUIRE(job);
    CHECK_INT(job_plugins_ports_needed(job), 0);
    json_t *doc = tf_config_of(job, "trainer", 0);
    REQUIRE(doc);
    char *text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    CHECK_STR(text, "{\"cluster\":{\"ps\":[\"tf-params-0.tf:2222\"]},\"task\":{\"type\":\"trainer\",\"index\":0}}");
    free(text);
    json_decref(doc);
    job_free(job);

    /* A stand-alone job gets no TF_CONFIG and needs no port. */
    job = make_job("tf", "{tensorflow: []}", "worker:1", &st);
    REQUIRE(job);
    CHECK_INT(job_plugins_ports_needed(job), 0);
    REQUIRE(attempt_of(job, "worker", 0, "/d", &pa) == 0);
    CHECK(env_get(pa.env, "TF_CONFIG") == NULL);
    plugin_attempt_free(&pa);
    job_free(job);
}

static void mpi_host_on_the_master_only(void)
{
    struct api_status st;
    struct job *job = make_job("mj", "{mpi: []}", "master:1 worker:3", &st);
    REQUIRE(job);
    CHECK_INT(job_plugins_ports_needed(job), 3); /* one machine: a port per worker's sshd */
    struct plugin_attempt pa;
    REQUIRE(attempt_of(job, "master", 0, "/data/jobs/u", &pa) == 0);
    CHECK_STR(env_get(pa.env, "MPI_HOST"), "mj-worker-0.mj,mj-worker-1.mj,mj-worker-2.mj");
    CHECK_STR(env_get(pa.env, "OMPI_MCA_orte_default_hostfile"), "/data/jobs/u/etc/mpi/hostfile");
    CHECK_STR(env_get(pa.env, "OMPI_MCA_orte_keep_fqdn_hostnames"), "true");
    CHECK_STR(env_get(pa.env, "OMPI_MCA_if_base_do_not_resolve"), "true");
    CHECK(env_get(pa.env, "MPI_SSH_PORT") == NULL);
    CHECK_STR(pa.ssh_dir, "/data/jobs/u/ssh");
    CHECK_STR(pa.hosts_file, "/data/jobs/u/etc/hosts");
    plugin_attempt_free(&pa);
    for (int i = 0; i < 3; i++) {
        REQUIRE(attempt_of(job, "worker", i, "/data/jobs/u", &pa) == 0);
        CHECK(env_get(pa.env, "MPI_HOST") == NULL);
        CHECK(env_get(pa.env, "OMPI_MCA_orte_default_hostfile") == NULL);
        CHECK_STR(env_get(pa.env, "MPI_SSH_PORT"), "22"); /* no block allocated: Volcano's port */
        CHECK_STR(pa.ssh_dir, "/data/jobs/u/ssh");
        plugin_attempt_free(&pa);
    }
    job_free(job);
}

/* On one machine each worker's sshd gets a port of its own from the job's block (after the plugins
 * before mpi in registry order), the ssh config names it for both of the worker's names, and the
 * launcher's hostfile lists every worker with one slot. --port gives every worker that port. */
static void mpi_workers_get_ports_hostfile_and_ssh_config(void)
{
    struct api_status st;
    struct job *job = make_job("mj", "{mpi: [\"--master=launcher\"]}", "launcher:1 worker:2", &st);
    REQUIRE(job);
    job->port_base = 41000;
    char *dir = make_tmpdir(), why[256];
    REQUIRE(dir);
    REQUIRE(job_plugins_prepare(job, dir, why, sizeof why) == 0);
    char ssh[1100], mpi[1100];
    snprintf(ssh, sizeof ssh, "%s/ssh", dir);
    snprintf(mpi, sizeof mpi, "%s/etc/mpi", dir);
    char *config = read_text(ssh, "config"), *hostfile = read_text(mpi, "hostfile");
    CHECK_STR(config,
              "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n"
              "Host mj-launcher-0\n  HostName mj-launcher-0.mj\n"
              "Host mj-worker-0 mj-worker-0.mj\n  HostName mj-worker-0.mj\n  Port 41000\n"
              "Host mj-worker-1 mj-worker-1.mj\n  HostName mj-worker-1.mj\n  Port 41001\n");
    CHECK_STR(hostfile, "mj-worker-0.mj slots=1\nmj-worker-1.mj slots=1\n");
    free(config);
    free(hostfile);
    struct plugin_attempt pa;
    for (int i = 0; i < 2; i++) {
        REQUIRE(attempt_of(job, "worker", i, dir, &pa) == 0);
        char want[16];
        snprintf(want, sizeof want, "%d", 41000 + i);
        CHECK_STR(env_get(pa.env, "MPI_SSH_PORT"), want);
        plugin_attempt_free(&pa);
    }
    drop_tmpdir(dir);
    job_free(job);

    job = make_job("mj", "{mpi: [\"--port=2022\"]}", "master:1 worker:2", &st);
    REQUIRE(job);
    CHECK_INT(job_plugins_ports_needed(job), 0);
    REQUIRE(attempt_of(job, "worker", 1, "/data/jobs/u", &pa) == 0);
    CHECK_STR(env_get(pa.env, "MPI_SSH_PORT"), "2022");
    plugin_attempt_free(&pa);
    job_free(job);
}

static void ray_commands_for_head_and_workers(void)
{
    struct api_status st;
    struct job *job = make_job("rc", "{ray: []}", "head:1:head worker:2:worker", &st);
    REQUIRE(job);
    CHECK_INT(job_plugins_ports_needed(job), 3);
    job->port_base = 50000;
    struct plugin_attempt pa;
    REQUIRE(attempt_of(job, "head", 0, "/d", &pa) == 0);
    REQUIRE(pa.argv);
    CHECK_INT(strv_len(pa.argv), 4);
    CHECK_STR(pa.argv[0], "sh");
    CHECK_STR(pa.argv[1], "-c");
    CHECK_STR(pa.argv[2],
              "ray start --head --block --dashboard-host=0.0.0.0 --port=50000 --dashboard-port=50001 "
              "--ray-client-server-port=50002");
    CHECK_STR(pa.argv[3], "1"); /* the container's args follow Volcano's command */
    plugin_attempt_free(&pa);
    for (int i = 0; i < 2; i++) {
        REQUIRE(attempt_of(job, "worker", i, "/d", &pa) == 0);
        REQUIRE(pa.argv);
        CHECK_STR(pa.argv[2], "ray start --block --address=rc-head-0.rc:50000");
        plugin_attempt_free(&pa);
    }
    job_free(job);

    /* Given ports win; the rest come from the block in order. */
    job = make_job("rc", "{ray: [\"--port=6379\"]}", "head:1:head worker:1:worker", &st);
    REQUIRE(job);
    CHECK_INT(job_plugins_ports_needed(job), 2);
    job->port_base = 50000;
    REQUIRE(attempt_of(job, "head", 0, "/d", &pa) == 0);
    REQUIRE(pa.argv);
    CHECK_STR(pa.argv[2],
              "ray start --head --block --dashboard-host=0.0.0.0 --port=6379 --dashboard-port=50000 "
              "--ray-client-server-port=50001");
    plugin_attempt_free(&pa);
    job_free(job);

    /* Without a block: Volcano's ports. A container of another name keeps its own command. */
    job = make_job("rc", "{ray: []}", "head:1:main worker:1:worker", &st);
    REQUIRE(job);
    REQUIRE(attempt_of(job, "head", 0, "/d", &pa) == 0);
    CHECK(pa.argv == NULL);
    plugin_attempt_free(&pa);
    REQUIRE(attempt_of(job, "worker", 0, "/d", &pa) == 0);
    REQUIRE(pa.argv);
    CHECK_STR(pa.argv[2], "ray start --block --address=rc-head-0.rc:6379");
    plugin_attempt_free(&pa);
    job_free(job);
}

static void frameworks_share_the_block_without_overlap(void)
{
    struct api_status st;
    struct job *job = make_job("mix", "{pytorch: [], tensorflow: [], ray: []}", "master:1 worker:2 head:1:head", &st);
    REQUIRE(job);
    /* pytorch 1, tensorflow one per replica (4, by flat index: master 60001 .. head 60004), ray 3 */
    CHECK_INT(job_plugins_ports_needed(job), 8);
    job->port_base = 60000;
    struct plugin_attempt pa;
    REQUIRE(attempt_of(job, "head", 0, "/d", &pa) == 0);
    CHECK_STR(env_get(pa.env, "MASTER_PORT"), "60000");
    CHECK_CONTAINS(env_get(pa.env, "TF_CONFIG"), "\"mix-worker-0.mix:60002\"");
    CHECK_CONTAINS(env_get(pa.env, "TF_CONFIG"), "\"mix-worker-1.mix:60003\"");
    REQUIRE(pa.argv);
    CHECK_CONTAINS(pa.argv[2], "--port=60005 --dashboard-port=60006 --ray-client-server-port=60007");
    plugin_attempt_free(&pa);
    job_free(job);
}

TEST_MAIN(TEST_CASE(unknown_plugin_is_refused_with_the_supported_list), TEST_CASE(ssh_keys_are_the_tasks_user_to_read),
          TEST_CASE(bad_arguments_are_refused_with_their_path), TEST_CASE(volcano_argument_forms_are_accepted),
          TEST_CASE(framework_tasks_must_exist), TEST_CASE(frameworks_get_their_default_plugins),
          TEST_CASE(task_index_is_always_set), TEST_CASE(svc_variables_name_every_task),
          TEST_CASE(svc_files_list_the_hosts), TEST_CASE(svc_inject_hosts_env_decides_the_host_variables),
          TEST_CASE(ssh_key_pair_and_config_as_volcano_lays_them_out), TEST_CASE(ssh_user_keys_are_written_as_given),
          TEST_CASE(prepare_is_idempotent), TEST_CASE(pytorch_variables_per_replica),
          TEST_CASE(tensorflow_config_per_replica), TEST_CASE(mpi_host_on_the_master_only),
          TEST_CASE(mpi_workers_get_ports_hostfile_and_ssh_config), TEST_CASE(ray_commands_for_head_and_workers),
          TEST_CASE(frameworks_share_the_block_without_overlap))
