/* Unit tests for adapters/fields: the field paths every cause names, joined and cut at FIELD_PATH_MAX
 * exactly as snprintf would, and the getters given a parent's path naming the member as the others do. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/intake/intake.h"
#include "common/strv.h"
#include "tests/lib/test.h"

static void paths_join_names_and_indexes(void)
{
    char p[FIELD_PATH_MAX];
    field_path(p, "spec", "tasks");
    CHECK_STR(p, "spec.tasks");
    field_path(p, "", "metadata");
    CHECK_STR(p, "metadata");
    field_path(p, NULL, "spec");
    CHECK_STR(p, "spec");
    field_path_index(p, "spec.tasks", 0);
    CHECK_STR(p, "spec.tasks[0]");
    field_path_index(p, "spec.tasks", 4999);
    CHECK_STR(p, "spec.tasks[4999]");
    field_path_index(p, "", 7);
    CHECK_STR(p, "[7]");
    field_path_index(p, "x", SIZE_MAX);
    char want[FIELD_PATH_MAX];
    snprintf(want, sizeof want, "x[%zu]", (size_t)SIZE_MAX);
    CHECK_STR(p, want);
}

/* Every length around the limit, for each part of the path. */
static void long_paths_are_cut_as_snprintf_cuts_them(void)
{
    char parent[FIELD_PATH_MAX + 40], key[FIELD_PATH_MAX + 40];
    for (size_t n = 0; n < sizeof parent; n++) {
        memset(parent, 'p', n);
        parent[n] = '\0';
        memset(key, 'k', 30);
        key[30] = '\0';
        char got[FIELD_PATH_MAX], want[FIELD_PATH_MAX];
        field_path(got, parent, key);
        if (n)
            snprintf(want, sizeof want, "%s.%s", parent, key);
        else
            snprintf(want, sizeof want, "%s", key);
        CHECK_STR(got, want);
        field_path(got, "spec", parent);
        snprintf(want, sizeof want, "spec.%s", parent);
        CHECK_STR(got, want);
        field_path_index(got, parent, 123456);
        snprintf(want, sizeof want, "%s[%zu]", parent, (size_t)123456);
        CHECK_STR(got, want);
    }
}

/* Reads every member of the document with both getters; the causes must be the same. */
static void read_all(struct fields *f, json_t *obj, bool in)
{
    const char *s;
    int64_t n;
    bool b;
    json_t *o;
    char **list;
    const char *parent = "spec.x";
    if (in) {
        field_string_in(f, obj, "str", parent, true, &s);
        field_string_in(f, obj, "missing", parent, true, &s);
        field_int_in(f, obj, "int", parent, false, 0, 10, &n);
        field_int_in(f, obj, "big", parent, false, 0, INT32_MAX, &n);
        field_bool_in(f, obj, "bool", parent, &b);
        field_object_in(f, obj, "obj", parent, false, &o);
        field_array_in(f, obj, "arr", parent, true, &o);
        field_string_list_in(f, obj, "list", parent, &list);
    } else {
        field_string(f, obj, "str", "spec.x.str", true, &s);
        field_string(f, obj, "missing", "spec.x.missing", true, &s);
        field_int(f, obj, "int", "spec.x.int", false, 0, 10, &n);
        field_int(f, obj, "big", "spec.x.big", false, 0, INT32_MAX, &n);
        field_bool(f, obj, "bool", "spec.x.bool", &b);
        field_object(f, obj, "obj", "spec.x.obj", false, &o);
        field_array(f, obj, "arr", "spec.x.arr", true, &o);
        field_string_list(f, obj, "list", "spec.x.list", &list);
    }
    strv_free(list);
}

static void getters_given_the_parent_name_the_member(void)
{
    static const char yaml[] =
        "str: 5\n"             /* 1 */
        "int: 11\n"            /* 2 */
        "big: -1\n"            /* 3 */
        "bool: \"yes\"\n"      /* 4 */
        "obj: [1]\n"           /* 5 */
        "arr: {a: 1}\n"        /* 6 */
        "list: [a, {b: c}]\n"; /* 7 */
    struct intake in;
    struct api_status by_path = {0}, by_parent = {0};
    REQUIRE(intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &by_path) == 0);
    struct fields f = {&in.docs[0], &by_path, false};
    read_all(&f, in.docs[0].root, false);
    f.st = &by_parent;
    read_all(&f, in.docs[0].root, true);
    CHECK_INT(by_path.ncauses, 8);
    CHECK_INT(by_parent.ncauses, by_path.ncauses);
    for (int i = 0; i < by_path.ncauses && i < by_parent.ncauses && i < API_MAX_CAUSES; i++) {
        const struct api_cause *a = &by_path.causes[i], *b = &by_parent.causes[i];
        CHECK_STR(b->field, a->field);
        CHECK_STR(b->reason, a->reason);
        CHECK_STR(b->message, a->message);
        CHECK_INT(b->line, a->line);
        CHECK_INT(b->column, a->column);
    }
    CHECK_STR(by_parent.causes[0].field, "spec.x.str");
    CHECK_STR(by_parent.causes[1].field, "spec.x.missing");
    CHECK_STR(by_parent.causes[7].field, "spec.x.list[1]");
    CHECK_INT(by_parent.causes[7].line, 7);
    intake_free(&in);
}

/* Each element of a list that must hold objects: the objects given back with their paths, the others
 * one cause each at their own line. */
static void each_object_names_the_elements_that_are_not(void)
{
    static const char yaml[] =
        "tasks:\n"       /* 1 */
        "- {name: a}\n"  /* 2 */
        "- 5\n"          /* 3 */
        "- [x]\n"        /* 4 */
        "- {name: b}\n"; /* 5 */
    struct intake in;
    struct api_status st = {0};
    REQUIRE(intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st) == 0);
    struct fields f = {&in.docs[0], &st, false};
    json_t *tasks = json_object_get(in.docs[0].root, "tasks");
    char p[FIELD_PATH_MAX];
    int objects = 0;
    for (size_t i = 0; i < json_array_size(tasks); i++) {
        json_t *task = field_each_object(&f, tasks, i, "spec.tasks", p, "a task must be an object");
        char want[FIELD_PATH_MAX];
        snprintf(want, sizeof want, "spec.tasks[%zu]", i);
        CHECK_STR(p, want);
        if (task) {
            CHECK(task == json_array_get(tasks, i));
            objects++;
        }
    }
    CHECK_INT(objects, 2);
    CHECK_INT(st.ncauses, 2);
    CHECK_STR(st.causes[0].field, "spec.tasks[1]");
    CHECK_STR(st.causes[0].reason, "FieldValueInvalid");
    CHECK_STR(st.causes[0].message, "Invalid value: a task must be an object");
    CHECK_INT(st.causes[0].line, 3);
    CHECK_STR(st.causes[1].field, "spec.tasks[2]");
    CHECK_INT(st.causes[1].line, 4);
    CHECK(field_each_object(&f, tasks, 9, "spec.tasks", p, "must be an object") == NULL);
    CHECK_STR(p, "spec.tasks[9]");
    CHECK_INT(st.ncauses, 3);
    CHECK_STR(st.causes[2].message, "Invalid value: must be an object");
    intake_free(&in);
}

TEST_MAIN(TEST_CASE(paths_join_names_and_indexes), TEST_CASE(long_paths_are_cut_as_snprintf_cuts_them),
          TEST_CASE(getters_given_the_parent_name_the_member), TEST_CASE(each_object_names_the_elements_that_are_not))
