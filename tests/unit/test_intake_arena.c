/* Unit tests for the intake's document arenas: a big body's values outlive the intake while anything
 * holds them, may be freed on another thread, and give their memory back with the last of them; big
 * trees and jobs are freed on free_later's thread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/internal.h"
#include "common/free_batch.h"
#include "common/free_later.h"
#include "common/sbuf.h"
#include "model/job.h"
#include "tests/lib/test.h"

/* A YAML Job of n tasks (n = 2,000 is ~300 KiB: over the arena threshold). */
static char *tasks_yaml(int n, size_t *len)
{
    struct sbuf b = {0};
    sbuf_puts(&b, "kind: Job\nspec:\n  tasks:\n");
    for (int i = 0; i < n; i++)
        sbuf_printf(&b,
                    "  - name: task%d\n    replicas: 1\n    template:\n      spec:\n        containers:\n"
                    "        - name: c\n          image: img\n          args: [run, --index, '%d']\n",
                    i, i);
    *len = b.len;
    return sbuf_take(&b);
}

/* Parses a Job of n tasks (tasks_yaml) into in. Returns 0, or -1 when the intake refused it. */
static int parse_tasks(int n, struct intake *in)
{
    struct api_status st = {0};
    size_t len;
    char *yaml = tasks_yaml(n, &len);
    int rc = intake_parse(yaml, len, INTAKE_YAML, in, &st);
    free(yaml);
    return rc;
}

static json_t *task_at(const struct intake *in, size_t i)
{
    return json_array_get(json_object_get(json_object_get(in->docs[0].root, "spec"), "tasks"), i);
}

static void test_small_body_takes_no_arena(void)
{
    int before = doc_arena_count();
    struct intake in;
    REQUIRE(parse_tasks(3, &in) == 0);
    CHECK_INT(doc_arena_count(), before);
    intake_free(&in);
}

static void test_values_outlive_the_intake(void)
{
    int before = doc_arena_count();
    struct intake in;
    REQUIRE(parse_tasks(2000, &in) == 0);
    CHECK_INT(doc_arena_count(), before + 1);
    json_t *task = json_incref(task_at(&in, 1999));
    json_object_set_new(task, "added", json_string("after the parse")); /* malloc'd, inside */
    intake_free(&in); /* the document's last reference: its tree is walked on free_later's thread */
    free_later_flush();
    CHECK_INT(doc_arena_count(), before + 1); /* the task still holds it */
    CHECK_STR(json_string_value(json_object_get(task, "name")), "task1999");
    CHECK_STR(json_string_value(json_object_get(task, "added")), "after the parse");
    json_decref(task);
    CHECK_INT(doc_arena_count(), before);
}

static void *decref_there(void *v)
{
    json_decref(v);
    return NULL;
}

static void test_freed_on_another_thread(void)
{
    int before = doc_arena_count();
    struct intake in;
    struct api_status st = {0};
    char *json = NULL;
    REQUIRE(parse_tasks(2000, &in) == 0);
    json = json_dumps(in.docs[0].root, JSON_COMPACT); /* made outside the arena: plain free() */
    REQUIRE(json != NULL);
    json_t *root = json_incref(in.docs[0].root);
    intake_free(&in);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, decref_there, root) == 0);
    pthread_join(t, NULL);
    CHECK_INT(doc_arena_count(), before);

    /* The same body as JSON goes through Jansson's own parser into an arena too. */
    REQUIRE(intake_parse(json, strlen(json), INTAKE_JSON, &in, &st) == 0);
    CHECK_INT(doc_arena_count(), before + 1);
    CHECK_STR(json_string_value(json_object_get(task_at(&in, 7), "name")), "task7");
    intake_free(&in);
    free_later_flush();
    CHECK_INT(doc_arena_count(), before);
    free(json);
}

/* A batched walk (intake_free's) counts its frees and settles them at its end: two documents freed
 * in one batch, their values interleaved across arenas, give both arenas back when it ends, and not
 * before. */
static void test_batched_free_settles_every_arena_at_its_end(void)
{
    int before = doc_arena_count();
    struct intake a, b;
    REQUIRE(parse_tasks(2000, &a) == 0);
    REQUIRE(parse_tasks(2000, &b) == 0);
    CHECK_INT(doc_arena_count(), before + 2);
    json_t *from_a = json_incref(task_at(&a, 7)), *from_b = json_incref(task_at(&b, 9));
    free_batch_begin();
    intake_free(&a); /* nested batch */
    intake_free(&b);
    json_decref(from_a);                      /* a's last value, after b's: back to a's arena */
    CHECK_INT(doc_arena_count(), before + 2); /* nothing settled inside the batch */
    free_batch_end();
    CHECK_INT(doc_arena_count(), before + 1); /* b's task is still held */
    CHECK_STR(json_string_value(json_object_get(from_b, "name")), "task9");
    json_decref(from_b);
    CHECK_INT(doc_arena_count(), before);
}

/* A job that holds its manifest's last reference hands the tree to free_later's thread in job_free:
 * the arena goes back once that thread has walked it. */
static void test_job_free_gives_the_arena_back(void)
{
    int before = doc_arena_count();
    struct intake in;
    REQUIRE(parse_tasks(2000, &in) == 0);
    struct job *job = calloc(1, sizeof *job);
    REQUIRE(job != NULL);
    job->manifest_tree = json_incref(in.docs[0].root);
    intake_free(&in);
    CHECK_INT(doc_arena_count(), before + 1);
    job_free(job);
    free_later_flush();
    CHECK_INT(doc_arena_count(), before);
}

static void note_thread(void *arg) { *(pthread_t *)arg = pthread_self(); }

/* What is handed over is dropped on another thread, and a flush waits for it. */
static void test_handed_over_things_are_dropped_on_another_thread(void)
{
    pthread_t there = pthread_self();
    if (!free_later(note_thread, &there))
        note_thread(&there); /* no thread could start: then it is the caller's */
    free_later_flush();
    CHECK(!pthread_equal(there, pthread_self()));
}

/* A job of thousands of tasks is freed on free_later's thread as a whole, with its manifest. */
static void test_big_job_is_freed_later(void)
{
    int before = doc_arena_count();
    struct intake in;
    REQUIRE(parse_tasks(2000, &in) == 0);
    struct job *job = job_new(2000);
    REQUIRE(job != NULL);
    for (int t = 0; t < job->ntasks; t++)
        job->tasks[t].template_tree = json_incref(json_object_get(task_at(&in, (size_t)t), "template"));
    job->manifest_tree = json_incref(in.docs[0].root);
    intake_free(&in);
    job_free(job);
    free_later_flush();
    CHECK_INT(doc_arena_count(), before);
}

static void test_refused_body_gives_its_arena_back(void)
{
    int before = doc_arena_count();
    struct intake in;
    struct api_status st = {0};
    size_t len;
    char *yaml = tasks_yaml(2000, &len);
    char *bad = malloc(len + 32);
    REQUIRE(bad != NULL);
    memcpy(bad, yaml, len);
    strcpy(bad + len, "  - [unclosed\n"); /* fails at the very end, after every value was made */
    CHECK(intake_parse(bad, strlen(bad), INTAKE_YAML, &in, &st) != 0);
    CHECK_INT(st.code, 400);
    free_later_flush();
    CHECK_INT(doc_arena_count(), before);
    free(bad);
    free(yaml);
}

TEST_MAIN(TEST_CASE(test_small_body_takes_no_arena), TEST_CASE(test_values_outlive_the_intake),
          TEST_CASE(test_freed_on_another_thread), TEST_CASE(test_refused_body_gives_its_arena_back),
          TEST_CASE(test_batched_free_settles_every_arena_at_its_end), TEST_CASE(test_job_free_gives_the_arena_back),
          TEST_CASE(test_handed_over_things_are_dropped_on_another_thread), TEST_CASE(test_big_job_is_freed_later))
