/* Integration tests of Kubernetes watch on real servers: a watch lists then follows every change;
 * selectors narrow it; a resourceVersion resumes it exactly (from the hub) or, after a restart or
 * across changes nobody rendered, brings the client up to date (DELETED for what went away); old
 * resourceVersions get 410, future ones 504; bookmarks and timeoutSeconds; Events, dialects and
 * Commands are watched too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"
#include "tests/lib/watch_client.h"

#define PODS "/api/v1/namespaces/default/pods"
#define EVENTS "/api/v1/namespaces/default/events"
#define WAIT_MS 30000

static const char *const fast_args[] = {"--schedule-period", "100", NULL};

static const char *type_of(json_t *event) { return json_string_value(json_object_get(event, "type")); }
static const char *name_of(json_t *event) { return jv_str(event, "object.metadata.name"); }

static unsigned long long rv_of(json_t *event)
{
    const char *rv = jv_str(event, "object.metadata.resourceVersion");
    return rv ? strtoull(rv, NULL, 10) : 0;
}

/* The list's resourceVersion. */
static unsigned long long list_rv(const struct test_server *s, const char *path)
{
    json_t *list = server_request(s, "GET", path, NULL, NULL, NULL);
    const char *rv = jv_str(list, "metadata.resourceVersion");
    unsigned long long n = rv ? strtoull(rv, NULL, 10) : 0;
    json_decref(list);
    return n;
}

/* The last event about name in events, or NULL. */
static json_t *last_about(json_t *events, const char *name)
{
    json_t *found = NULL;
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        if (name_of(e) && strcmp(name_of(e), name) == 0)
            found = e;
    }
    return found;
}

static void a_watch_lists_then_follows_every_change(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, fast_args) == 0);
    CHECK_INT(job_submit(&s, "before", "", TASK("t", 1, "", "'sleep 30'", "")), 201);
    REQUIRE(job_wait(&s, "before", "status.state.phase", "Running", WAIT_MS) == 0);
    struct watch_client *jobs = watch_open(&s, JOBS "?watch=true", NULL);
    struct watch_client *pods = watch_open(&s, PODS "?watch=1", NULL);
    /* the list as it is: the running job and its pod, ADDED */
    CHECK(watch_wait_for(jobs, 0, "ADDED", "before", "status.state.phase", "Running", WAIT_MS) >= 0);
    CHECK(watch_wait_for(pods, 0, "ADDED", "before-t-0", "status.phase", "Running", WAIT_MS) >= 0);
    CHECK_INT(watch_status(jobs), 200);
    /* then every change */
    CHECK_INT(job_submit(&s, "live", "", TASK("t", 2, "", "'sleep 0.3'", "")), 201);
    CHECK(watch_wait_for(jobs, 0, "ADDED", "live", NULL, NULL, WAIT_MS) >= 0);
    CHECK(watch_wait_for(jobs, 0, "MODIFIED", "live", "status.state.phase", "Completed", WAIT_MS) >= 0);
    CHECK(watch_wait_for(pods, 0, NULL, "live-t-1", "status.phase", "Succeeded", WAIT_MS) >= 0);
    CHECK(watch_wait_for(pods, 0, NULL, "live-t-0", "status.phase", "Succeeded", WAIT_MS) >= 0);
    long code;
    json_decref(server_request(&s, "DELETE", JOBS "/live", NULL, NULL, &code));
    CHECK_INT(code, 200);
    CHECK(watch_wait_for(jobs, 0, "DELETED", "live", NULL, NULL, WAIT_MS) >= 0);
    CHECK(watch_wait_for(pods, 0, "DELETED", "live-t-0", NULL, NULL, WAIT_MS) >= 0);
    /* in order: resourceVersions never go back, and the first event about a pod adds it */
    json_t *events = watch_events(pods);
    unsigned long long last = 0;
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        CHECK(rv_of(e) >= last);
        last = rv_of(e);
    }
    CHECK_STR(type_of(json_array_get(events, (size_t)watch_wait_for(pods, 0, NULL, "live-t-0", NULL, NULL, 0))),
              "ADDED");
    json_decref(events);
    watch_close(jobs);
    watch_close(pods);
    server_cleanup(&s);
}

static void selectors_narrow_a_watch(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, fast_args) == 0);
    struct watch_client *a = watch_open(&s, PODS "?watch=true&labelSelector=volcano.sh/job-name%3Dsela", NULL);
    struct watch_client *done = watch_open(&s, PODS "?watch=true&fieldSelector=status.phase%3DSucceeded", NULL);
    struct watch_client *not_b = watch_open(&s, JOBS "?watch=true&fieldSelector=metadata.name!%3Dselb", NULL);
    struct watch_client *bad = watch_open(&s, PODS "?watch=true&labelSelector=a%20in%20(b", NULL);
    usleep(200 * 1000);
    CHECK_INT(job_submit(&s, "sela", "", TASK("t", 1, "", "'sleep 0.2'", "")), 201);
    CHECK_INT(job_submit(&s, "selb", "", TASK("t", 1, "", "'sleep 0.2'", "")), 201);
    REQUIRE(job_wait(&s, "sela", "status.state.phase", "Completed", WAIT_MS) == 0);
    REQUIRE(job_wait(&s, "selb", "status.state.phase", "Completed", WAIT_MS) == 0);
    CHECK(watch_wait_for(a, 0, NULL, "sela-t-0", "status.phase", "Succeeded", WAIT_MS) >= 0);
    CHECK(watch_wait_for(done, 0, NULL, "selb-t-0", NULL, NULL, WAIT_MS) >= 0);
    CHECK(watch_wait_for(done, 0, NULL, "sela-t-0", NULL, NULL, WAIT_MS) >= 0);
    CHECK(watch_wait_for(not_b, 0, "MODIFIED", "sela", "status.state.phase", "Completed", WAIT_MS) >= 0);
    json_t *events = watch_events(a);
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        json_t *labels = jv_at(e, "object.metadata.labels");
        CHECK_STR(json_string_value(json_object_get(labels, "volcano.sh/job-name")), "sela");
    }
    json_decref(events);
    events = watch_events(done);
    json_array_foreach(events, i, e) CHECK_STR(jv_str(e, "object.status.phase"), "Succeeded");
    json_decref(events);
    events = watch_events(not_b);
    json_array_foreach(events, i, e) CHECK(strcmp(name_of(e), "selb") != 0);
    json_decref(events);
    CHECK(watch_wait_end(bad, WAIT_MS));
    CHECK_INT(watch_status(bad), 400);
    char *body = watch_body(bad);
    CHECK_CONTAINS(body, "labelSelector");
    free(body);
    watch_close(a);
    watch_close(done);
    watch_close(not_b);
    watch_close(bad);
    server_cleanup(&s);
}

/* A watch from a resourceVersion the hub holds gets exactly what a watch open since then saw. */
static void a_resource_version_resumes_exactly(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, fast_args) == 0);
    struct watch_client *all = watch_open(&s, PODS "?watch=true", NULL);
    usleep(200 * 1000);
    CHECK_INT(job_submit(&s, "exact", "", TASK("t", 3, "", "'sleep 0.2'", "")), 201);
    REQUIRE(job_wait(&s, "exact", "status.state.phase", "Completed", WAIT_MS) == 0);
    /* every pod's last event, whichever pod ended last: the resumed watch must get them all */
    REQUIRE(watch_wait_for(all, 0, NULL, "exact-t-0", "status.phase", "Succeeded", WAIT_MS) >= 0);
    REQUIRE(watch_wait_for(all, 0, NULL, "exact-t-1", "status.phase", "Succeeded", WAIT_MS) >= 0);
    REQUIRE(watch_wait_for(all, 0, NULL, "exact-t-2", "status.phase", "Succeeded", WAIT_MS) >= 0);
    json_t *seen = watch_events(all);
    REQUIRE(json_array_size(seen) >= 4);
    unsigned long long from = rv_of(json_array_get(seen, 1));
    size_t expected = 0;
    for (size_t i = 0; i < json_array_size(seen); i++)
        expected += rv_of(json_array_get(seen, i)) > from;
    char path[256];
    snprintf(path, sizeof path, PODS "?watch=true&resourceVersion=%llu", from);
    struct watch_client *resumed = watch_open(&s, path, NULL);
    CHECK_INT(watch_wait_count(resumed, (int)expected, WAIT_MS), (int)expected);
    json_t *got = watch_events(resumed);
    for (size_t i = 0, k = 0; i < json_array_size(seen); i++) {
        json_t *want = json_array_get(seen, i);
        if (rv_of(want) <= from)
            continue;
        json_t *have = json_array_get(got, k++);
        CHECK(json_equal(want, have));
    }
    json_decref(seen);
    json_decref(got);
    watch_close(all);
    watch_close(resumed);
    server_cleanup(&s);
}

/* Changes made while nobody watched objects were not rendered: a watch from before them gets each
 * object as it is now instead. */
static void changes_nobody_watched_are_caught_up(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, fast_args) == 0);
    unsigned long long from = list_rv(&s, PODS);
    CHECK_INT(job_submit(&s, "quiet", "", TASK("t", 2, "", "'sleep 0.1'", "")), 201);
    REQUIRE(job_wait(&s, "quiet", "status.state.phase", "Completed", WAIT_MS) == 0);
    char path[256];
    snprintf(path, sizeof path, PODS "?watch=true&resourceVersion=%llu", from);
    struct watch_client *w = watch_open(&s, path, NULL);
    CHECK(watch_wait_for(w, 0, "MODIFIED", "quiet-t-0", "status.phase", "Succeeded", WAIT_MS) >= 0);
    CHECK(watch_wait_for(w, 0, "MODIFIED", "quiet-t-1", "status.phase", "Succeeded", WAIT_MS) >= 0);
    CHECK_INT(watch_wait_count(w, 3, 1000), 2); /* once each */
    watch_close(w);
    server_cleanup(&s);
}

/* After a restart the hub starts empty: a watch from a resourceVersion of the last run is brought up
 * to date from the database: what changed since as it is now, what was deleted as DELETED. */
static void a_watch_resumes_across_a_restart(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, fast_args) == 0);
    CHECK_INT(job_submit(&s, "stays", "", TASK("t", 1, "", "'sleep 1'", "")), 201);
    CHECK_INT(job_submit(&s, "goes", "", TASK("t", 2, "", "'sleep 60'", "")), 201);
    REQUIRE(job_wait(&s, "goes", "status.state.phase", "Running", WAIT_MS) == 0);
    REQUIRE(job_wait(&s, "stays", "status.state.phase", "Running", WAIT_MS) == 0);
    unsigned long long jobs_rv = list_rv(&s, JOBS), pods_rv = list_rv(&s, PODS);
    server_kill9(&s);
    REQUIRE(server_start(&s, s.data_dir, fast_args) == 0);
    long code;
    json_decref(server_request(&s, "DELETE", JOBS "/goes", NULL, NULL, &code));
    CHECK_INT(code, 200);
    REQUIRE(job_wait(&s, "stays", "status.state.phase", "Completed", WAIT_MS) == 0);
    char path[256];
    snprintf(path, sizeof path, JOBS "?watch=true&resourceVersion=%llu", jobs_rv);
    struct watch_client *jobs = watch_open(&s, path, NULL);
    snprintf(path, sizeof path, PODS "?watch=true&resourceVersion=%llu", pods_rv);
    struct watch_client *pods = watch_open(&s, path, NULL);
    CHECK(watch_wait_for(jobs, 0, "DELETED", "goes", NULL, NULL, WAIT_MS) >= 0);
    CHECK(watch_wait_for(jobs, 0, "MODIFIED", "stays", "status.state.phase", "Completed", WAIT_MS) >= 0);
    CHECK(watch_wait_for(pods, 0, "DELETED", "goes-t-0", NULL, NULL, WAIT_MS) >= 0);
    CHECK(watch_wait_for(pods, 0, "DELETED", "goes-t-1", NULL, NULL, WAIT_MS) >= 0);
    CHECK(watch_wait_for(pods, 0, "MODIFIED", "stays-t-0", "status.phase", "Succeeded", WAIT_MS) >= 0);
    /* and it goes on live */
    CHECK_INT(job_submit(&s, "after", "", TASK("t", 1, "", "'true'", "")), 201);
    CHECK(watch_wait_for(jobs, 0, "ADDED", "after", NULL, NULL, WAIT_MS) >= 0);
    json_t *events = watch_events(jobs);
    CHECK(last_about(events, "goes") != NULL && strcmp(type_of(last_about(events, "goes")), "DELETED") == 0);
    json_decref(events);
    watch_close(jobs);
    watch_close(pods);
    server_cleanup(&s);
}

static void old_and_future_resource_versions_are_refused(void)
{
    struct test_server s;
    const char *const args[] = {"--schedule-period", "100", "--watch-window", "1s", NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);
    CHECK_INT(job_submit(&s, "old", "", TASK("t", 1, "", "'true'", "")), 201);
    REQUIRE(job_wait(&s, "old", "status.state.phase", "Completed", WAIT_MS) == 0);
    server_stop(&s); /* the hub starts anew: resourceVersion 1 can only come from the database */
    sleep(2);
    REQUIRE(server_start(&s, s.data_dir, args) == 0);
    long code;
    json_t *st = server_request(&s, "GET", JOBS "?watch=true&resourceVersion=1", NULL, NULL, &code);
    CHECK_INT(code, 410);
    CHECK_STR(jv_str(st, "reason"), "Expired");
    CHECK_CONTAINS(jv_str(st, "message"), "too old resource version");
    json_decref(st);
    st = server_request(&s, "GET", JOBS "?watch=true&resourceVersion=99999999", NULL, NULL, &code);
    CHECK_INT(code, 504);
    CHECK_CONTAINS(jv_str(st, "message"), "Too large resource version");
    json_decref(st);
    st = server_request(&s, "GET", JOBS "?watch=true&resourceVersion=abc", NULL, NULL, &code);
    CHECK_INT(code, 400);
    json_decref(st);
    server_cleanup(&s);
}

static void bookmarks_initial_events_end_and_timeouts(void)
{
    struct test_server s;
    const char *const args[] = {"--watch-bookmark-interval", "200ms", NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);
    struct watch_client *w = watch_open(
        &s, "/api/v1/nodes?watch=true&allowWatchBookmarks=true&sendInitialEvents=true&timeoutSeconds=2", NULL);
    CHECK(watch_wait_for(w, 0, "ADDED", NULL, "kind", "Node", WAIT_MS) == 0);
    int first = watch_wait_for(w, 0, "BOOKMARK", NULL, NULL, NULL, WAIT_MS);
    CHECK(first >= 1); /* after the list */
    CHECK(watch_wait_for(w, first + 1, "BOOKMARK", NULL, NULL, NULL, WAIT_MS) > first);
    json_t *events = watch_events(w);
    json_t *mark = json_array_get(events, (size_t)first);
    json_t *annotations = jv_at(mark, "object.metadata.annotations");
    CHECK_STR(json_string_value(json_object_get(annotations, "k8s.io/initial-events-end")), "true");
    CHECK(rv_of(mark) > 0);
    CHECK(jv_at(json_array_get(events, (size_t)first + 1), "object.metadata.annotations") == NULL);
    json_decref(events);
    CHECK(watch_wait_end(w, 10000)); /* timeoutSeconds=2 */
    watch_close(w);
    server_cleanup(&s);
}

static void events_are_listed_paged_and_watched(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, fast_args) == 0);
    struct watch_client *w = watch_open(&s, EVENTS "?watch=true&fieldSelector=involvedObject.kind%3DPod", NULL);
    CHECK_INT(job_submit(&s, "ev", "", TASK("t", 1, "", "'exit 3'", "")), 201);
    REQUIRE(job_wait(&s, "ev", "status.state.phase", "Failed", WAIT_MS) == 0);
    CHECK(watch_wait_for(w, 0, "ADDED", NULL, "reason", "Error", WAIT_MS) >= 0);
    json_t *events = watch_events(w);
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) CHECK_STR(jv_str(e, "object.involvedObject.kind"), "Pod");
    int failed = watch_wait_for(w, 0, "ADDED", NULL, "reason", "Error", 0);
    CHECK_STR(jv_str(json_array_get(events, (size_t)failed), "object.type"), "Warning");
    CHECK_STR(jv_str(json_array_get(events, (size_t)failed), "object.involvedObject.name"), "ev-t-0");
    json_decref(events);
    long code;
    json_t *list = server_request(&s, "GET", EVENTS "?fieldSelector=involvedObject.name%3Dev", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(jv_str(list, "kind"), "EventList");
    CHECK_STR(jv_str(list, "items.0.reason"), "Created");
    CHECK_STR(jv_str(list, "items.0.involvedObject.kind"), "Job");
    json_decref(list);
    list = server_request(&s, "GET", EVENTS "?limit=2", NULL, NULL, &code);
    CHECK_INT(json_array_size(jv_at(list, "items")), 2);
    const char *next = jv_str(list, "metadata.continue");
    REQUIRE(next != NULL);
    char path[256];
    snprintf(path, sizeof path, EVENTS "?limit=2&continue=%s", next);
    json_t *page = server_request(&s, "GET", path, NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK(strtoull(jv_str(page, "items.0.metadata.resourceVersion"), NULL, 10) >
          strtoull(jv_str(list, "items.1.metadata.resourceVersion"), NULL, 10));
    json_decref(page);
    json_decref(list);
    watch_close(w);
    server_cleanup(&s);
}

static void dialects_and_commands_are_watched(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, fast_args) == 0);
    struct watch_client *pt = watch_open(&s, "/apis/kubeflow.org/v1/namespaces/default/pytorchjobs?watch=true", NULL);
    struct watch_client *cmds = watch_open(&s, "/apis/bus.volcano.sh/v1alpha1/namespaces/default/commands?watch=true",
                                           NULL);
    usleep(200 * 1000);
    char *yaml = NULL;
    FILE *f = fopen("examples/pytorch-hello.yaml", "r");
    REQUIRE(f != NULL);
    size_t cap = 0;
    ssize_t n = getdelim(&yaml, &cap, '\0', f);
    fclose(f);
    REQUIRE(n > 0);
    long code;
    json_decref(server_request(&s, "POST", "/apis/kubeflow.org/v1/namespaces/default/pytorchjobs", yaml,
                               "application/yaml", &code));
    free(yaml);
    CHECK_INT(code, 201);
    int added = watch_wait_for(pt, 0, "ADDED", "hello", "kind", "PyTorchJob", WAIT_MS);
    CHECK(added >= 0);
    json_decref(
        server_request(&s, "POST", "/apis/caldera.io/v1/namespaces/default/jobs/hello/suspend", NULL, NULL, &code));
    CHECK_INT(code, 200);
    CHECK(watch_wait_for(cmds, 0, "ADDED", NULL, "action", "AbortJob", WAIT_MS) >= 0);
    CHECK(watch_wait_for(pt, 0, "MODIFIED", "hello", "kind", "PyTorchJob", WAIT_MS) >= 0);
    watch_close(pt);
    watch_close(cmds);
    server_cleanup(&s);
}

/* JobHistories live in the database: a watch shows each job's summary as its history changes, and
 * from an older resourceVersion the jobs that changed since. */
static void job_histories_are_watched(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, fast_args) == 0);
    unsigned long long from = list_rv(&s, JOBS);
    struct watch_client *w = watch_open(&s, "/apis/caldera.io/v1/namespaces/default/jobhistories?watch=true", NULL);
    usleep(200 * 1000);
    CHECK_INT(job_submit(&s, "hist", "", TASK("t", 2, "", "'sleep 0.2'", "")), 201);
    CHECK(watch_wait_for(w, 0, "ADDED", "hist", "kind", "JobHistory", WAIT_MS) >= 0);
    CHECK(watch_wait_for(w, 0, "MODIFIED", "hist", "phase", "Completed", WAIT_MS) >= 0);
    char path[256];
    snprintf(path, sizeof path, "/apis/caldera.io/v1/jobhistories?watch=true&resourceVersion=%llu", from);
    struct watch_client *since = watch_open(&s, path, NULL);
    CHECK(watch_wait_for(since, 0, "ADDED", "hist", "phase", "Completed", WAIT_MS) >= 0);
    watch_close(w);
    watch_close(since);
    server_cleanup(&s);
}

/* jobctl's synchronous submit: it follows the jobs through the watch and says how they
 * ended in its exit status. */
static void jobctl_waits_for_jobs(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, fast_args) == 0);
    char dir[] = "/tmp/caldera-wait-XXXXXX", ok_file[300], bad_file[300];
    REQUIRE(mkdtemp(dir) != NULL);
    snprintf(ok_file, sizeof ok_file, "%s/ok.yaml", dir);
    snprintf(bad_file, sizeof bad_file, "%s/bad.yaml", dir);
    FILE *f = fopen(ok_file, "w");
    REQUIRE(f != NULL);
    fputs(job_yaml("waited", "", TASK("t", 2, "", "'sleep 0.5'", "")), f);
    fclose(f);
    f = fopen(bad_file, "w");
    REQUIRE(f != NULL);
    fputs(job_yaml("doomed", "  maxRetry: 1\n", TASK("t", 1, "", "'exit 4'", "")), f);
    fclose(f);
    char *out = NULL, *err = NULL;
    const char *submit_ok[] = {"submit", "--wait", ok_file, NULL};
    CHECK_INT(server_jobctl(&s, submit_ok, &out, &err), 0);
    CHECK_CONTAINS(out, "job.batch.volcano.sh/waited created");
    CHECK_CONTAINS(out, "job.batch.volcano.sh/waited Completed");
    free(out);
    free(err);
    const char *submit_bad[] = {"submit", "-w", bad_file, NULL};
    CHECK_INT(server_jobctl(&s, submit_bad, &out, &err), 1);
    CHECK_CONTAINS(out, "job.batch.volcano.sh/doomed Failed");
    CHECK_CONTAINS(err, "job doomed ended Failed");
    free(out);
    free(err);
    const char *wait_done[] = {"wait", "waited", NULL};
    CHECK_INT(server_jobctl(&s, wait_done, &out, &err), 0);
    free(out);
    free(err);
    CHECK_INT(job_submit(&s, "long", "", TASK("t", 1, "", "'sleep 60'", "")), 201);
    const char *wait_long[] = {"wait", "long", "--timeout", "2s", NULL};
    CHECK_INT(server_jobctl(&s, wait_long, &out, &err), 1);
    CHECK_CONTAINS(err, "after the --timeout");
    free(out);
    free(err);
    remove(ok_file);
    remove(bad_file);
    rmdir(dir);
    server_cleanup(&s);
}

TEST_MAIN(TEST_CASE(a_watch_lists_then_follows_every_change), TEST_CASE(selectors_narrow_a_watch),
          TEST_CASE(a_resource_version_resumes_exactly), TEST_CASE(changes_nobody_watched_are_caught_up),
          TEST_CASE(a_watch_resumes_across_a_restart), TEST_CASE(old_and_future_resource_versions_are_refused),
          TEST_CASE(bookmarks_initial_events_end_and_timeouts), TEST_CASE(events_are_listed_paged_and_watched),
          TEST_CASE(dialects_and_commands_are_watched), TEST_CASE(job_histories_are_watched),
          TEST_CASE(jobctl_waits_for_jobs))
