/* Integration tests of what one request may cost: the bound options checked, replicas and
 * tasks over the limits refused with a 422 cause on the field and its line (a Volcano Job, a
 * PyTorchJob, a scale up), stored jobs over lowered limits still loaded, lists (Pods, Jobs, Events)
 * in pages that a continue token resumes exactly whatever changes meanwhile, watches that would
 * start from more than a page refused with 410, and metadata and path namespaces within Kubernetes'
 * limits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define PODS "/api/v1/namespaces/default/pods"
#define PODGROUPS "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups/"
#define PYTORCHJOBS "/apis/kubeflow.org/v1/namespaces/default/pytorchjobs"
#define PAGE 7

static const char *const limits[] = {"--max-replicas-per-task",
                                     "50",
                                     "--max-replicas-per-job",
                                     "80",
                                     "--max-tasks-per-job",
                                     "3",
                                     "--max-list-page",
                                     "7",
                                     NULL};

/* A job whose pods exist (its PodGroup goes Inqueue) but never run: no node has the label. */
static const char *parked_job(const char *name, int tasks, int replicas, char *buf, size_t len)
{
    int at = snprintf(buf, len,
                      "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: %s\nspec:\n"
                      "  minAvailable: 1\n  tasks:\n",
                      name);
    for (int t = 0; t < tasks; t++)
        at += snprintf(buf + at, len - (size_t)at,
                       "  - name: t%d\n    replicas: %d\n    minAvailable: 0\n    template:\n      spec:\n"
                       "        nodeSelector: {caldera-test: nowhere}\n"
                       "        containers: [{name: c, command: [\"true\"]}]\n",
                       t, replicas);
    return buf;
}

static json_t *post_yaml(const struct test_server *s, const char *path, const char *yaml, long *code)
{
    return server_request(s, "POST", path, yaml, "application/yaml", code);
}

/* The cause on field, or NULL. */
static json_t *cause_on(json_t *status, const char *field)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(status, "details"), "causes"), i, c)
    {
        const char *f = json_string_value(json_object_get(c, "field"));
        if (f && strcmp(f, field) == 0)
            return c;
    }
    return NULL;
}

#define CHECK_CAUSE_LINE(status, field, text, line)                                         \
    do {                                                                                    \
        json_t *c_ = cause_on(status, field);                                               \
        if (!c_) {                                                                          \
            char *d_ = json_dumps(status, JSON_COMPACT);                                    \
            test_fail(__FILE__, __LINE__, "no cause on %s in %.600s", field, d_ ? d_ : ""); \
            free(d_);                                                                       \
            break;                                                                          \
        }                                                                                   \
        CHECK_CONTAINS(json_string_value(json_object_get(c_, "message")), text);            \
        CHECK_CONTAINS(json_string_value(json_object_get(c_, "message")), "line " #line);   \
    } while (0)

static void replicas_over_the_limits_are_422_on_the_field(void)
{
    struct test_server s;
    if (server_start(&s, NULL, limits) != 0)
        return test_fail(__FILE__, __LINE__, "server did not start");
    char yaml[4096];
    long code;
    json_t *st = post_yaml(&s, JOBS, parked_job("wide", 1, 51, yaml, sizeof yaml), &code);
    CHECK_INT(code, 422);
    CHECK_CAUSE_LINE(st, "spec.tasks[0].replicas", "must be less than or equal to 50", 9);
    CHECK_CONTAINS(json_string_value(json_object_get(st, "message")), "--max-replicas-per-task");
    json_decref(st);

    st = post_yaml(&s, JOBS, parked_job("many", 2, 41, yaml, sizeof yaml), &code);
    CHECK_INT(code, 422);
    CHECK_CAUSE_LINE(st, "spec.tasks", "Too many: 82: must have at most 80 replicas", 8);
    json_decref(st);

    st = post_yaml(&s, JOBS, parked_job("tasks", 4, 1, yaml, sizeof yaml), &code);
    CHECK_INT(code, 422);
    CHECK_CAUSE_LINE(st, "spec.tasks", "Too many: 4: must have at most 3 items", 8);
    json_decref(st);

    /* The dialect's own path, through the translation's path map. */
    st = post_yaml(&s, PYTORCHJOBS,
                   "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: pt}\nspec:\n"
                   "  pytorchReplicaSpecs:\n    Master:\n      replicas: 1\n      template:\n        spec:\n"
                   "          containers: [{name: pytorch, command: [\"true\"]}]\n"
                   "    Worker:\n      replicas: 60\n      template:\n        spec:\n"
                   "          containers: [{name: pytorch, command: [\"true\"]}]\n",
                   &code);
    CHECK_INT(code, 422);
    CHECK_CAUSE_LINE(st, "spec.pytorchReplicaSpecs.Worker.replicas", "must be less than or equal to 50", 12);
    json_decref(st);

    /* A scale up past the limit is refused like a submit; within it, taken. */
    json_decref(post_yaml(&s, JOBS, parked_job("scaled", 1, 10, yaml, sizeof yaml), &code));
    CHECK_INT(code, 201);
    json_t *job = job_get(&s, "scaled");
    json_object_set_new(json_array_get(jv_at(job, "spec.tasks"), 0), "replicas", json_integer(60));
    char *body = json_dumps(job, JSON_COMPACT);
    st = server_request(&s, "PUT", JOBS "/scaled", body, NULL, &code);
    CHECK_INT(code, 422);
    CHECK(cause_on(st, "spec.tasks[0].replicas") != NULL);
    json_decref(st);
    free(body);
    json_object_set_new(json_array_get(jv_at(job, "spec.tasks"), 0), "replicas", json_integer(20));
    body = json_dumps(job, JSON_COMPACT);
    json_decref(server_request(&s, "PUT", JOBS "/scaled", body, NULL, &code));
    CHECK_INT(code, 200);
    free(body);
    json_decref(job);

    /* Lowered limits refuse new jobs, never the stored ones. */
    CHECK_INT(server_stop(&s), 0);
    static const char *const lower[] = {"--max-replicas-per-task", "5", "--max-replicas-per-job", "5", NULL};
    if (server_start(&s, s.data_dir, lower) != 0) {
        server_cleanup(&s);
        return test_fail(__FILE__, __LINE__, "server did not restart");
    }
    job = job_get(&s, "scaled");
    CHECK_INT(jv_num(job, "spec.tasks.0.replicas"), 20);
    json_decref(job);
    json_decref(post_yaml(&s, JOBS, parked_job("again", 1, 6, yaml, sizeof yaml), &code));
    CHECK_INT(code, 422);
    server_cleanup(&s);
}

/* Every pod name of every page from path on (following metadata.continue), into names (at most
 * max); returns how many pages it took, -1 on an answer that is not a page. between runs after each
 * page but the last. */
static int list_pages(const struct test_server *s, const char *path, char names[][64], int max, int *n,
                      void (*between)(const struct test_server *, int page))
{
    char url[1024], token[512] = "";
    int pages = 0;
    *n = 0;
    do {
        snprintf(url, sizeof url, "%s%s%s", path, *token ? (strchr(path, '?') ? "&continue=" : "?continue=") : "",
                 token);
        long code;
        json_t *list = server_request(s, "GET", url, NULL, NULL, &code);
        if (code != 200)
            return -1;
        size_t i;
        json_t *item;
        json_array_foreach(json_object_get(list, "items"), i, item) if (*n < max)
            snprintf(names[(*n)++], 64, "%s", jv_str(item, "metadata.name"));
        const char *next = jv_str(list, "metadata.continue");
        snprintf(token, sizeof token, "%s", next ? next : "");
        if (next && !*next)
            pages = -1000; /* an empty token is not a token */
        pages++;
        json_decref(list);
        if (*token && between)
            between(s, pages);
    } while (*token && pages < 100);
    return pages;
}

static int count_named(char names[][64], int n, const char *name)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += strcmp(names[i], name) == 0;
    return c;
}

/* Between pages: a job made after the list began (its pods come after every earlier one) and the
 * deletion of one whose pods were still to come. */
static void change_jobs(const struct test_server *s, int page)
{
    char yaml[4096];
    long code;
    if (page == 1) {
        json_decref(post_yaml(s, JOBS, parked_job("late", 1, 3, yaml, sizeof yaml), &code));
        CHECK_INT(code, 201);
        json_decref(server_request(s, "DELETE", JOBS "/gone", NULL, NULL, &code));
        CHECK_INT(code, 200);
        CHECK_INT(server_wait_field(s, PODGROUPS "late", "status.phase", "Inqueue", 30000), 0);
    }
}

static void lists_come_in_pages_resumed_exactly(void)
{
    struct test_server s;
    if (server_start(&s, NULL, limits) != 0)
        return test_fail(__FILE__, __LINE__, "server did not start");
    char yaml[4096];
    long code;
    const char *jobs[] = {"first", "gone", "third"};
    for (int j = 0; j < 3; j++) {
        json_decref(post_yaml(&s, JOBS, parked_job(jobs[j], 2, 5, yaml, sizeof yaml), &code));
        CHECK_INT(code, 201);
        char pg[128];
        snprintf(pg, sizeof pg, PODGROUPS "%s", jobs[j]);
        CHECK_INT(server_wait_field(&s, pg, "status.phase", "Inqueue", 30000), 0);
    }
    /* No limit: the server's page, and a token; 30 pods in pages of 7. */
    json_t *list = server_request(&s, "GET", PODS, NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_INT((int)json_array_size(json_object_get(list, "items")), PAGE);
    CHECK(jv_str(list, "metadata.continue") != NULL);
    json_decref(list);
    static char names[200][64];
    int n;
    CHECK_INT(list_pages(&s, PODS, names, 200, &n, NULL), 5);
    CHECK_INT(n, 30);
    for (int i = 0; i < n; i++)
        CHECK_INT(count_named(names, n, names[i]), 1);
    CHECK_STR(names[0], "first-t0-0");
    CHECK_STR(names[29], "third-t1-4");
    /* A watch starts from a list no longer than a page: beyond that, 410, and a client lists in pages. */
    json_t *w = server_request(&s, "GET", PODS "?watch=true&timeoutSeconds=1", NULL, NULL, &code);
    CHECK_INT(code, 410);
    CHECK_CONTAINS(jv_str(w, "message"), "list them in pages");
    json_decref(w);
    char *stream = server_request_text(&s, "GET", JOBS "?watch=true&timeoutSeconds=1", &code);
    CHECK_INT(code, 200);
    CHECK_CONTAINS(stream, "\"ADDED\"");
    free(stream);
    /* One object by name is found by the core itself: one pod, however far the list goes. */
    stream = server_request_text(&s, "GET",
                                 PODS "?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dthird-t1-4", &code);
    CHECK_INT(code, 200);
    CHECK_CONTAINS(stream, "third-t1-4");
    free(stream);
    list = server_request(&s, "GET", PODS "?limit=1&fieldSelector=metadata.name%3Dthird-t1-4", NULL, NULL, &code);
    CHECK_INT((int)json_array_size(json_object_get(list, "items")), 1);
    CHECK_STR(jv_str(list, "items.0.metadata.name"), "third-t1-4");
    CHECK(jv_str(list, "metadata.continue") == NULL);
    json_decref(list);
    list = server_request(&s, "GET", JOBS "?fieldSelector=metadata.name%3Dthird", NULL, NULL, &code);
    CHECK_INT((int)json_array_size(json_object_get(list, "items")), 1);
    json_decref(list);
    /* jobctl shows a page and the token of the next, which --continue follows. */
    char *out = NULL, *err = NULL;
    CHECK_INT(server_jobctl(&s, (const char *const[]){"pods", "--limit", "3", NULL}, &out, &err), 0);
    CHECK_CONTAINS(out, "first-t0-2");
    CHECK(out && !strstr(out, "first-t0-3"));
    const char *hint = err ? strstr(err, "add --continue ") : NULL;
    CHECK(hint != NULL);
    if (hint) {
        char token[512];
        snprintf(token, sizeof token, "%s", hint + strlen("add --continue "));
        token[strcspn(token, "\n")] = '\0';
        free(out);
        free(err);
        out = err = NULL;
        CHECK_INT(
            server_jobctl(&s, (const char *const[]){"pods", "--limit", "3", "--continue", token, NULL}, &out, &err), 0);
        CHECK_CONTAINS(out, "first-t0-3");
        CHECK(out && !strstr(out, "first-t0-2"));
    }
    free(out);
    free(err);
    /* A smaller limit is taken; a larger one is the server's page. */
    CHECK_INT(list_pages(&s, PODS "?limit=3", names, 200, &n, NULL), 10);
    list = server_request(&s, "GET", PODS "?limit=100000", NULL, NULL, &code);
    CHECK_INT((int)json_array_size(json_object_get(list, "items")), PAGE);
    json_decref(list);

    /* Changes between pages: every pod of the jobs that stay is listed once, the deleted job's
     * pods not yet shown never are, the new job's come at the end. */
    int pages = list_pages(&s, PODS "?limit=4", names, 200, &n, change_jobs);
    CHECK(pages > 0);
    for (int i = 0; i < n; i++)
        CHECK_INT(count_named(names, n, names[i]), 1);
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < 5; i++) {
            char first[64], third[64];
            snprintf(first, sizeof first, "first-t%d-%d", t, i);
            snprintf(third, sizeof third, "third-t%d-%d", t, i);
            CHECK_INT(count_named(names, n, first), 1);
            CHECK_INT(count_named(names, n, third), 1);
        }
    for (int i = 0; i < n; i++) /* deleted before any of its pods was shown */
        CHECK(strncmp(names[i], "gone-", 5) != 0);
    CHECK_STR(names[n - 1], "late-t0-2");

    /* Jobs page the same way. */
    CHECK_INT(list_pages(&s, JOBS "?limit=1", names, 200, &n, NULL), 3);
    CHECK_INT(n, 3);
    CHECK_STR(names[2], "late");

    /* Events and histories, which paged when asked, page without a limit too. */
    list = server_request(&s, "GET", "/api/v1/namespaces/default/events", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_INT((int)json_array_size(json_object_get(list, "items")), PAGE);
    CHECK(jv_str(list, "metadata.continue") != NULL);
    json_decref(list);
    list = server_request(&s, "GET", "/api/v1/namespaces/default/events?watch=true&timeoutSeconds=1", NULL, NULL,
                          &code);
    CHECK_INT(code, 410); /* replaying every event since the start would hold more than a page */
    json_decref(list);
    list = server_request(&s, "GET", "/apis/caldera.io/v1/namespaces/default/jobhistories?limit=100", NULL, NULL,
                          &code);
    CHECK_INT(code, 200);
    CHECK_INT((int)json_array_size(json_object_get(list, "items")), 4); /* first, gone, third, late */
    json_decref(list);

    /* A token this server did not give, or one of another list, is 400. */
    list = server_request(&s, "GET", PODS "?continue=not-a-token", NULL, NULL, &code);
    CHECK_INT(code, 400);
    CHECK_CONTAINS(jv_str(list, "message"), "invalid continue token");
    json_decref(list);
    list = server_request(&s, "GET", JOBS "?limit=1", NULL, NULL, &code);
    char url[700];
    snprintf(url, sizeof url, PODS "?continue=%s", jv_str(list, "metadata.continue"));
    json_decref(list);
    list = server_request(&s, "GET", url, NULL, NULL, &code);
    CHECK_INT(code, 400);
    json_decref(list);
    list = server_request(&s, "GET", PODS "?limit=-1", NULL, NULL, &code);
    CHECK_INT(code, 400);
    json_decref(list);
    server_cleanup(&s);
}

static void metadata_and_namespaces_within_kubernetes_limits(void)
{
    struct test_server s;
    if (server_start(&s, NULL, NULL) != 0)
        return test_fail(__FILE__, __LINE__, "server did not start");
    size_t big = 7u << 20;
    char *yaml = malloc(big + 4096);
    int at = snprintf(yaml, big + 4096,
                      "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: j\n"
                      "  labels:\n    team: ");
    memset(yaml + at, 'x', big);
    snprintf(yaml + at + big, 4096,
             "\nspec:\n  tasks:\n  - replicas: 1\n    template:\n      spec:\n"
             "        containers: [{name: c, command: [\"true\"]}]\n");
    long code;
    char *answer = NULL;
    json_t *st = post_yaml(&s, JOBS, yaml, &code);
    CHECK_INT(code, 422);
    CHECK_CAUSE_LINE(st, "metadata.labels", "must be no more than 63 characters", 6);
    answer = json_dumps(st, JSON_COMPACT);
    CHECK(answer && strlen(answer) < 8192); /* the value is not echoed back */
    free(answer);
    json_decref(st);
    free(yaml);

    /* The issue's own request under the default limits: 3 tasks of 100,000 replicas, a few hundred bytes. */
    char small[4096];
    st = post_yaml(&s, JOBS, parked_job("huge", 3, 100000, small, sizeof small), &code);
    CHECK_INT(code, 422);
    CHECK_CAUSE_LINE(st, "spec.tasks", "Too many: 300000: must have at most 100000 replicas", 8);
    json_decref(st);

    st = server_request(&s, "GET", "/api/v1/namespaces/Bad_NS/pods", NULL, NULL, &code);
    CHECK_INT(code, 400);
    CHECK_CONTAINS(jv_str(st, "message"), "a lowercase RFC 1123 label");
    json_decref(st);
    char path[2200];
    int n = snprintf(path, sizeof path, "%s", "/apis/batch.volcano.sh/v1alpha1/namespaces/");
    memset(path + n, 'a', 1500);
    snprintf(path + n + 1500, sizeof path - (size_t)n - 1500, "/jobs");
    st = server_request(&s, "POST", path, "{}", NULL, &code);
    CHECK_INT(code, 400);
    CHECK_CONTAINS(jv_str(st, "message"), "must be no more than 63 characters");
    json_decref(st);
    char *long_path = malloc(11 * 1024);
    n = snprintf(long_path, 11 * 1024, "%s", "/api/v1/namespaces/");
    memset(long_path + n, 'a', 10 * 1024);
    snprintf(long_path + n + 10 * 1024, 11 * 1024 - (size_t)n - 10 * 1024, "/pods");
    json_decref(server_request(&s, "GET", long_path, NULL, NULL, &code));
    CHECK(code == 414 || code == 400); /* refused before any handler: longer than any path */
    free(long_path);
    char *text = server_request_text(&s, "GET", "/healthz", &code);
    CHECK_INT(code, 200);
    free(text);
    server_cleanup(&s);
}

static void bad_bound_flags_are_refused(void)
{
    static const char *const cases[][2] = {{"--max-replicas-per-task", "0"},
                                           {"--max-replicas-per-job", "lots"},
                                           {"--max-tasks-per-job", "-1"},
                                           {"--max-list-page", "0"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[] = "/tmp/caldera-bounds-XXXXXX";
        REQUIRE(mkdtemp(dir));
        const char *args[] = {cases[i][0], cases[i][1], NULL};
        char *err = NULL;
        int rc = server_run_to_exit(dir, args, 10000, NULL, &err, NULL);
        if (rc != 2)
            test_fail(__FILE__, __LINE__, "%s %s: exit %d, expected 2", cases[i][0], cases[i][1], rc);
        CHECK_CONTAINS(err, cases[i][0]);
        free(err);
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        CHECK_INT(system(cmd), 0);
    }
}

TEST_MAIN(TEST_CASE(bad_bound_flags_are_refused), TEST_CASE(replicas_over_the_limits_are_422_on_the_field),
          TEST_CASE(lists_come_in_pages_resumed_exactly), TEST_CASE(metadata_and_namespaces_within_kubernetes_limits))
