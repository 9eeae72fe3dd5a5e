/* Volcano's job plugins seen from inside real tasks: each replica of a pytorch (with svc, ssh, env),
 * a tensorflow and an mpi job prints its environment, host lists, name resolution and ssh keys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define JOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
#define PODS "/api/v1/namespaces/default/pods"
#define WAIT_MS 20000
#define PORT_FIRST 20000 /* the server's default --job-ports */
#define PORT_LAST 59999

/* --- helpers ------------------------------------------------------------------------------------ */

static json_t *at(json_t *v, const char *path) { return server_json_at(v, path); }

static const char *str(json_t *v, const char *path) { return json_string_value(at(v, path)); }

/* One job's logs, by replica. */
struct replica_log {
    char pod[64];
    char *text;
};

/* The value on the log's line "<key><sep>..." (sep "=" for env, ": " for checks), copied into buf;
 * NULL when the log has no such line. */
static const char *line_value(const char *log, const char *key, const char *sep, char *buf, size_t len)
{
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%s%s", key, sep);
    size_t plen = strlen(prefix);
    for (const char *line = log; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        if (n >= plen && strncmp(line, prefix, plen) == 0) {
            snprintf(buf, len, "%.*s", (int)(n - plen), line + plen);
            return buf;
        }
        line = end ? end + 1 : NULL;
    }
    return NULL;
}

static const char *env_of(const char *log, const char *key, char *buf, size_t len)
{
    return line_value(log, key, "=", buf, len);
}

static const char *check_of(const char *log, const char *key, char *buf, size_t len)
{
    return line_value(log, key, ": ", buf, len);
}

#define CHECK_ENV(log, key, want)                         \
    do {                                                  \
        char v_[4096];                                    \
        CHECK_STR(env_of(log, key, v_, sizeof v_), want); \
    } while (0)

static long submit_fixture(const struct test_server *s, const char *name)
{
    char path[256], *yaml = NULL;
    snprintf(path, sizeof path, "tests/integration/data/%s", name);
    if (read_file(path, 1 << 20, &yaml, NULL) != 0)
        return -1;
    long code;
    json_t *r = server_request(s, "POST", JOBS, yaml, "application/yaml", &code);
    if (code != 201)
        fprintf(stderr, "submit %s: HTTP %ld: %s\n", name, code, json_string_value(json_object_get(r, "message")));
    json_decref(r);
    free(yaml);
    return code;
}

/* Waits for the job to complete, then reads the log of each pod named in pods (NULL-terminated). */
static bool read_logs(const struct test_server *s, const char *job, const char *const *pods, struct replica_log *out)
{
    char path[256];
    snprintf(path, sizeof path, JOBS "/%s", job);
    bool ok = server_wait_field(s, path, "status.state.phase", "Completed", WAIT_MS) == 0;
    for (int i = 0; pods[i]; i++) {
        long code;
        snprintf(out[i].pod, sizeof out[i].pod, "%s", pods[i]);
        snprintf(path, sizeof path, PODS "/%s/log", pods[i]);
        out[i].text = server_request_text(s, "GET", path, &code);
        if (code != 200 || !out[i].text)
            ok = false;
        else if (!ok)
            fprintf(stderr, "--- %s log:\n%s", pods[i], out[i].text);
    }
    return ok;
}

static void free_logs(struct replica_log *logs, int n)
{
    for (int i = 0; i < n; i++)
        free(logs[i].text);
}

static char *job_uid(const struct test_server *s, const char *name)
{
    char path[256];
    long code;
    snprintf(path, sizeof path, JOBS "/%s", name);
    json_t *job = server_request(s, "GET", path, NULL, NULL, &code);
    char *uid = str(job, "metadata.uid") ? strdup(str(job, "metadata.uid")) : NULL;
    json_decref(job);
    return uid;
}

/* "host:port" -> port, 0 when there is none. */
static long port_of(const char *hostport)
{
    const char *colon = hostport ? strrchr(hostport, ':') : NULL;
    return colon ? strtol(colon + 1, NULL, 10) : 0;
}

/* Whether the server binds the hosts file and ssh keys into tasks: it runs as root with
 * CAP_SYS_ADMIN, or says at start that it does not. */
static bool binds_files(const struct test_server *s)
{
    char *log = NULL;
    if (geteuid() != 0 || read_file(s->log_path, 1 << 20, &log, NULL) != 0)
        return false;
    bool bound = strstr(log, "hosts files and ssh keys are not bound") == NULL;
    free(log);
    return bound;
}

/* --- the shared server and its jobs ---------------------------------------------------------------------- */

static struct test_server shared;
static bool shared_up, shared_failed;

static struct test_server *plugins_server(void)
{
    if (shared_up || shared_failed)
        return shared_up ? &shared : NULL;
    if (server_start(&shared, NULL, NULL) != 0) {
        shared_failed = true;
        return NULL;
    }
    shared_up = true;
    CHECK_INT(submit_fixture(&shared, "plugins-pytorch.yaml"), 201);
    CHECK_INT(submit_fixture(&shared, "plugins-tensorflow.yaml"), 201);
    CHECK_INT(submit_fixture(&shared, "plugins-mpi.yaml"), 201);
    return &shared;
}

/* --- the cases --------------------------------------------------------------------------------- */

static const char *const torch_pods[] = {"torch-master-0", "torch-worker-0", "torch-worker-1", NULL};

/* env, svc and pytorch variables and the svc host lists, as every replica sees them. */
static void pytorch_svc_env_variables_inside_the_tasks(void)
{
    struct test_server *s = plugins_server();
    REQUIRE(s);
    struct replica_log logs[3] = {0};
    bool ok = read_logs(s, "torch", torch_pods, logs);
    char *uid = job_uid(s, "torch");
    CHECK(ok);
    CHECK(uid != NULL);
    if (!ok || !uid) {
        free_logs(logs, 3);
        free(uid);
        return;
    }
    char job_dir[512], v[4096], port[32] = "";
    snprintf(job_dir, sizeof job_dir, "%s/jobs/%s", s->data_dir, uid);
    for (int i = 0; i < 3; i++) {
        const char *log = logs[i].text;
        int index = i == 0 ? 0 : i - 1;
        char want[512];
        snprintf(want, sizeof want, "%d", index);
        CHECK_ENV(log, "VK_TASK_INDEX", want);
        CHECK_ENV(log, "VC_TASK_INDEX", want);
        CHECK_ENV(log, "HOSTNAME", logs[i].pod);
        snprintf(want, sizeof want, "%s/work", job_dir);
        CHECK_ENV(log, "HOME", want);
        CHECK_ENV(log, "VC_MASTER_HOSTS", "torch-master-0.torch");
        CHECK_ENV(log, "VC_WORKER_HOSTS", "torch-worker-0.torch,torch-worker-1.torch");
        CHECK_ENV(log, "VC_MASTER_NUM", "1");
        CHECK_ENV(log, "VC_WORKER_NUM", "2");
        snprintf(want, sizeof want, "%s/etc/volcano", job_dir);
        CHECK_ENV(log, "VC_CONFIG_DIR", want);
        CHECK_STR(check_of(log, "file master.host", v, sizeof v), "torch-master-0.torch");
        CHECK_STR(check_of(log, "file worker.host", v, sizeof v), "torch-worker-0.torch,torch-worker-1.torch");
        CHECK_ENV(log, "MASTER_ADDR", "torch-master-0.torch");
        CHECK_ENV(log, "WORLD_SIZE", "3");
        snprintf(want, sizeof want, "%d", i); /* 0 on the master, index + 1 on the workers */
        CHECK_ENV(log, "RANK", want);
        const char *p = env_of(log, "MASTER_PORT", v, sizeof v);
        CHECK(p && atol(p) >= PORT_FIRST && atol(p) <= PORT_LAST);
        if (i == 0 && p)
            snprintf(port, sizeof port, "%s", p);
        CHECK_ENV(log, "MASTER_PORT", port); /* one port for the whole job */
    }
    free_logs(logs, 3);
    free(uid);
}

/* The svc hosts file bound over /etc/hosts and the ssh keys bound over ~/.ssh, inside the task's own
 * mount namespace only; both need the server to run as root. */
static void hosts_file_and_ssh_keys_inside_the_tasks(void)
{
    SKIP_IF(geteuid() != 0, "the server binds the hosts file and ssh keys only as root (uid %d here)", (int)geteuid());
    struct test_server *s = plugins_server();
    REQUIRE(s);
    SKIP_IF(!binds_files(s), "the server has no CAP_SYS_ADMIN: it binds no hosts file or ssh keys");
    struct replica_log logs[3] = {0};
    bool ok = read_logs(s, "torch", torch_pods, logs);
    char *uid = job_uid(s, "torch");
    CHECK(ok);
    if (!ok || !uid) {
        free_logs(logs, 3);
        free(uid);
        return;
    }
    char path[512], *job_public = NULL, v[4096];
    snprintf(path, sizeof path, "%s/jobs/%s/ssh/id_rsa.pub", s->data_dir, uid);
    CHECK(read_file(path, 1 << 16, &job_public, NULL) == 0);
    if (job_public && strchr(job_public, '\n'))
        *strchr(job_public, '\n') = '\0';
    for (int i = 0; i < 3; i++) {
        const char *log = logs[i].text;
        CHECK_STR(check_of(log, "uid", v, sizeof v), "0");
        const char *resolved = check_of(log, "resolve torch-worker-1.torch", v, sizeof v);
        CHECK(resolved && strncmp(resolved, "127.0.0.1 ", 10) == 0);
        CHECK_CONTAINS(resolved, "torch-worker-1.torch");
        resolved = check_of(log, "resolve torch-master-0", v, sizeof v);
        CHECK(resolved && strncmp(resolved, "127.0.0.1 ", 10) == 0);
        CHECK_STR(check_of(log, "ssh files", v, sizeof v), "authorized_keys:600 config:600 id_rsa:600 id_rsa.pub:600");
        CHECK_STR(check_of(log, "ssh public", v, sizeof v), job_public); /* the job's own key pair */
        CHECK_STR(check_of(log, "ssh authorized", v, sizeof v), job_public);
        CHECK(job_public && strncmp(job_public, "ssh-rsa ", 8) == 0);
        CHECK_STR(check_of(log, "ssh config", v, sizeof v), "Host torch-worker-1   HostName torch-worker-1.torch");
        CHECK_STR(check_of(log, "ssh key", v, sizeof v), "-----BEGIN RSA PRIVATE KEY-----");
    }
    /* The binds stayed in the tasks' namespaces: this process sees the machine's files. */
    char *hosts = NULL, *root_public = NULL;
    if (read_file("/etc/hosts", 1 << 20, &hosts, NULL) == 0)
        CHECK(strstr(hosts, "torch-worker-1") == NULL);
    if (read_file("/root/.ssh/id_rsa.pub", 1 << 16, &root_public, NULL) == 0 && job_public)
        CHECK(strstr(root_public, job_public) == NULL);
    free(hosts);
    free(root_public);
    free(job_public);
    free_logs(logs, 3);
    free(uid);
}

/* TF_CONFIG: parsed by python3 in every replica (the job fails otherwise) and checked here. */
static void tensorflow_config_inside_the_tasks(void)
{
    struct test_server *s = plugins_server();
    REQUIRE(s);
    static const char *const pods[] = {"tf-ps-0", "tf-worker-0", "tf-worker-1", NULL};
    static const char *const types[] = {"ps", "worker", "worker"};
    static const int indexes[] = {0, 0, 1};
    struct replica_log logs[3] = {0};
    bool ok = read_logs(s, "tf", pods, logs);
    CHECK(ok);
    if (!ok) {
        free_logs(logs, 3);
        return;
    }
    char v[4096], want[64], cluster0[4096] = "";
    long ports[3] = {0};
    for (int i = 0; i < 3; i++) {
        const char *log = logs[i].text;
        snprintf(want, sizeof want, "%s %d", types[i], indexes[i]);
        CHECK_STR(check_of(log, "tf task", v, sizeof v), want);
        json_t *config = json_loads(env_of(log, "TF_CONFIG", v, sizeof v) ? v : "", 0, NULL);
        CHECK(config != NULL);
        CHECK_STR(str(config, "task.type"), types[i]);
        CHECK_INT(json_integer_value(at(config, "task.index")), indexes[i]);
        json_t *ps = at(config, "cluster.ps"), *workers = at(config, "cluster.worker");
        CHECK_INT(json_array_size(ps), 1);
        CHECK_INT(json_array_size(workers), 2);
        CHECK(at(config, "cluster.chief") == NULL);
        const char *hosts[3] = {json_string_value(json_array_get(ps, 0)), json_string_value(json_array_get(workers, 0)),
                                json_string_value(json_array_get(workers, 1))};
        static const char *const names[3] = {"tf-ps-0.tf:", "tf-worker-0.tf:", "tf-worker-1.tf:"};
        for (int h = 0; h < 3; h++) {
            CHECK(hosts[h] && strncmp(hosts[h], names[h], strlen(names[h])) == 0);
            long p = port_of(hosts[h]);
            CHECK(p >= PORT_FIRST && p <= PORT_LAST);
            if (i == 0)
                ports[h] = p;
        }
        char *cluster = json_dumps(at(config, "cluster"), JSON_SORT_KEYS | JSON_COMPACT);
        if (i == 0 && cluster)
            snprintf(cluster0, sizeof cluster0, "%s", cluster);
        CHECK_STR(cluster, cluster0); /* every replica sees the same cluster */
        free(cluster);
        json_decref(config);
        CHECK_ENV(log, "VC_PS_HOSTS", "tf-ps-0.tf"); /* svc comes with tensorflow */
        CHECK_ENV(log, "VC_WORKER_NUM", "2");
    }
    CHECK(ports[0] != ports[1] && ports[1] != ports[2] && ports[0] != ports[2]); /* a port per replica */
    /* the pytorch job's port is from a block of its own */
    struct replica_log torch[3] = {0};
    if (read_logs(s, "torch", torch_pods, torch)) {
        long master_port = env_of(torch[0].text, "MASTER_PORT", v, sizeof v) ? atol(v) : 0;
        CHECK(master_port != ports[0] && master_port != ports[1] && master_port != ports[2]);
    }
    free_logs(torch, 3);
    free_logs(logs, 3);
}

/* mpi: the master gets MPI_HOST, the workers' names; svc and ssh are added to the job by default. */
static void mpi_hosts_inside_the_master(void)
{
    struct test_server *s = plugins_server();
    REQUIRE(s);
    static const char *const pods[] = {"mpi-mpimaster-0", "mpi-mpiworker-0", "mpi-mpiworker-1", NULL};
    struct replica_log logs[3] = {0};
    bool ok = read_logs(s, "mpi", pods, logs);
    CHECK(ok);
    if (!ok) {
        free_logs(logs, 3);
        return;
    }
    char v[4096];
    CHECK_ENV(logs[0].text, "MPI_HOST", "mpi-mpiworker-0.mpi,mpi-mpiworker-1.mpi");
    for (int i = 0; i < 3; i++) {
        if (i > 0)
            CHECK(env_of(logs[i].text, "MPI_HOST", v, sizeof v) == NULL); /* the master's only */
        CHECK_ENV(logs[i].text, "VC_MPIWORKER_HOSTS", "mpi-mpiworker-0.mpi,mpi-mpiworker-1.mpi");
        CHECK_ENV(logs[i].text, "VC_MPIMASTER_NUM", "1");
        if (binds_files(s))
            CHECK_STR(check_of(logs[i].text, "ssh files", v, sizeof v), "authorized_keys config id_rsa id_rsa.pub");
    }
    long code;
    json_t *job = server_request(s, "GET", JOBS "/mpi", NULL, NULL, &code);
    CHECK(json_is_array(at(job, "spec.plugins.svc")));
    CHECK(json_is_array(at(job, "spec.plugins.ssh")));
    json_decref(job);
    free_logs(logs, 3);
}

static void shared_server_stops_cleanly(void)
{
    if (!shared_up)
        return;
    CHECK_INT(server_stop(&shared), 0);
    server_cleanup(&shared);
    shared_up = false;
}

TEST_MAIN(TEST_CASE(pytorch_svc_env_variables_inside_the_tasks), TEST_CASE(hosts_file_and_ssh_keys_inside_the_tasks),
          TEST_CASE(tensorflow_config_inside_the_tasks), TEST_CASE(mpi_hosts_inside_the_master),
          TEST_CASE(shared_server_stops_cleanly))
