/* Real pinning on this machine's CPUs under --cpu-manager-policy static: a Guaranteed task asking one
 * CPU gets it to itself (its /proc/self/status says so, and its pod), a shared task is kept off it even
 * when it started first, the CPU comes back when the task ends, and a restart re-adopts it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define WAIT_MS 30000
#define PODS "/api/v1/namespaces/default/pods/"
#define JOB_PATH "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs/"
#define ONE_CPU "          resources: {requests: {cpu: \"1\", memory: 64Mi}, limits: {cpu: \"1\", memory: 64Mi}}\n"
#define SHARED "" /* best-effort: on two CPUs, the exclusive ones take all the count */
#define SHOW_CPUS "'while true; do grep -E \"^(Cpus|Mems)_allowed_list\" /proc/self/status; sleep 0.3; done'"

static const char *const args[] = {"--shutdown-grace",
                                   "2",
                                   "--cpu-manager-policy",
                                   "static",
                                   "--topology-manager-policy",
                                   "single-numa-node",
                                   "--scheduler-conf",
                                   "tests/integration/data/numa-aware.conf",
                                   NULL};

/* Why this machine cannot pin, or NULL. */
static const char *cannot_pin(void)
{
    if (geteuid() != 0)
        return "not root: cgroups are not writable";
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        return "one CPU: none left to give exclusively (the first is reserved)";
    if (access("/sys/fs/cgroup/cpuset/cgroup.procs", W_OK) != 0 &&
        system("grep -qw cpuset /sys/fs/cgroup/cgroup.controllers 2>/dev/null") != 0)
        return "no writable cpuset controller (cgroup v1 cpuset mount or v2 +cpuset)";
    return NULL;
}

/* Waits until the pod's log holds needle. */
static bool log_has(const struct test_server *s, const char *pod, const char *needle)
{
    char path[256];
    snprintf(path, sizeof path, PODS "%s/log", pod);
    for (int waited = 0; waited < WAIT_MS; waited += 100) {
        char *log = server_request_text(s, "GET", path, NULL);
        bool found = log && strstr(log, needle);
        free(log);
        if (found)
            return true;
        usleep(100000);
    }
    fprintf(stderr, "# %s's log never said \"%s\"\n", pod, needle);
    return false;
}

/* The node's (or a pod's) annotation, waiting until it equals want; the last value into got. */
static bool annotation_is(const struct test_server *s, const char *path, const char *key, const char *want, char *got,
                          size_t len)
{
    for (int waited = 0; waited < WAIT_MS; waited += 100) {
        long code;
        json_t *obj = server_request(s, "GET", path, NULL, NULL, &code);
        if (json_is_array(json_object_get(obj, "items"))) {
            json_t *first = json_array_get(json_object_get(obj, "items"), 0);
            json_incref(first);
            json_decref(obj);
            obj = first;
        }
        const char *v = json_string_value(json_object_get(jv_at(obj, "metadata.annotations"), key));
        snprintf(got, len, "%s", v ? v : "(none)");
        json_decref(obj);
        if (strcmp(got, want) == 0)
            return true;
        usleep(100000);
    }
    fprintf(stderr, "# %s %s is \"%s\", not \"%s\"\n", path, key, got, want);
    return false;
}

/* Waits until the job's status message holds needle. */
static bool message_has(const struct test_server *s, const char *job, const char *needle)
{
    char last[512] = "";
    for (int waited = 0; waited < WAIT_MS; waited += 100) {
        json_t *j = job_get(s, job);
        const char *m = jv_str(j, "status.state.message");
        snprintf(last, sizeof last, "%s", m ? m : "");
        json_decref(j);
        if (strstr(last, needle))
            return true;
        usleep(100000);
    }
    fprintf(stderr, "# %s's message is \"%s\"\n", job, last);
    return false;
}

static void exclusive_cpu_shared_pool_release_and_adoption(void)
{
    const char *why = cannot_pin();
    SKIP_IF(why, "%s", why);
    struct test_server s;
    char got[256], highest[16], shared[32];
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    REQUIRE(server_start(&s, NULL, args) == 0);
    REQUIRE(annotation_is(&s, "/api/v1/nodes", "caldera.io/cpu-manager-policy", "static", got, sizeof got));
    CHECK(annotation_is(&s, "/api/v1/nodes", "caldera.io/cpus-reserved", "0", got, sizeof got));
    /* a shared task first: it may use every CPU */
    snprintf(shared, sizeof shared, "Cpus_allowed_list:\t0-%ld\n", n - 1);
    CHECK_INT(job_submit(&s, "early", "", TASK("t", 1, "", SHOW_CPUS, SHARED)), 201);
    CHECK(log_has(&s, "early-t-0", shared));
    /* the exclusive one gets the lowest unreserved CPU, and its memory node */
    CHECK_INT(job_submit(&s, "pinned", "", TASK("t", 1, "    topologyPolicy: single-numa-node\n", SHOW_CPUS, ONE_CPU)),
              201);
    CHECK(log_has(&s, "pinned-t-0", "Cpus_allowed_list:\t1\n"));
    CHECK(log_has(&s, "pinned-t-0", "Mems_allowed_list:\t0"));
    CHECK(annotation_is(&s, PODS "pinned-t-0", "caldera.io/cpuset", "1", got, sizeof got));
    CHECK(annotation_is(&s, PODS "pinned-t-0", "volcano.sh/numa-topology-policy", "single-numa-node", got, sizeof got));
    CHECK(annotation_is(&s, "/api/v1/nodes", "caldera.io/cpus-exclusive", "1", got, sizeof got));
    /* the shared task that started first is moved off it, and a new one starts off it */
    snprintf(shared, sizeof shared, "Cpus_allowed_list:\t%s\n", n == 2 ? "0" : "0,2-");
    CHECK(log_has(&s, "early-t-0", shared));
    CHECK_INT(job_submit(&s, "late", "", TASK("t", 1, "", SHOW_CPUS, SHARED)), 201);
    CHECK(log_has(&s, "late-t-0", shared));
    /* a second exclusive CPU: on two CPUs there is none, and the job waits saying why */
    CHECK_INT(job_submit(&s, "second", "", TASK("t", 1, "    topologyPolicy: single-numa-node\n", SHOW_CPUS, ONE_CPU)),
              201);
    if (n == 2)
        CHECK(message_has(&s, "second", "couldn't give 1 exclusive CPUs under topology policy single-numa-node"));
    /* a restart re-adopts the pinned task with its CPU */
    server_kill9(&s);
    REQUIRE(server_start(&s, s.data_dir, args) == 0);
    CHECK(annotation_is(&s, PODS "pinned-t-0", "caldera.io/cpuset", "1", got, sizeof got));
    CHECK(annotation_is(&s, "/api/v1/nodes", "caldera.io/cpus-exclusive", "1", got, sizeof got));
    /* its end gives the CPU back: the waiting job gets it, the shared ones get the rest */
    long code;
    json_decref(server_request(&s, "DELETE", JOB_PATH "pinned", NULL, NULL, &code));
    if (n == 2) {
        CHECK(log_has(&s, "second-t-0", "Cpus_allowed_list:\t1\n"));
        CHECK(annotation_is(&s, PODS "second-t-0", "caldera.io/cpuset", "1", got, sizeof got));
        json_decref(server_request(&s, "DELETE", JOB_PATH "second", NULL, NULL, &code));
    }
    CHECK(annotation_is(&s, "/api/v1/nodes", "caldera.io/cpus-exclusive", "", got, sizeof got));
    snprintf(highest, sizeof highest, "0-%ld\n", n - 1);
    snprintf(shared, sizeof shared, "Cpus_allowed_list:\t%s", highest);
    CHECK(log_has(&s, "late-t-0", shared));
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* A bad value of the three flags stops the start (exit 2), naming the flag and what it takes. */
static void bad_cpu_manager_flags_are_refused(void)
{
    static const struct {
        const char *flag, *value, *says;
    } cases[] = {
        {"--cpu-manager-policy", "dynamic", "--cpu-manager-policy is none or static, not \"dynamic\""},
        {"--topology-manager-policy", "single",
         "--topology-manager-policy is none, best-effort, restricted or "
         "single-numa-node, not \"single\""},
        {"--reserved-cpus", "0-x", "--reserved-cpus takes a CPU list such as 0-1,4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[] = "/tmp/caldera-numa-flags-XXXXXX";
        REQUIRE(mkdtemp(dir) != NULL);
        const char *const a[] = {cases[i].flag, cases[i].value, NULL};
        char *err = NULL;
        CHECK_INT(server_run_to_exit(dir, a, 10000, NULL, &err, NULL), 2);
        CHECK_CONTAINS(err ? err : "", cases[i].says);
        free(err);
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        CHECK_INT(system(cmd), 0);
    }
}

TEST_MAIN(TEST_CASE(bad_cpu_manager_flags_are_refused), TEST_CASE(exclusive_cpu_shared_pool_release_and_adoption))
