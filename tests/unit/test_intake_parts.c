/* Unit tests for reading a big body in parts (adapters/intake/yaml_cut.c, yaml_parts.c, json_parts.c):
 * whatever the body, YAML or JSON, read in parts it gives the documents, offsets, positions and errors
 * of a whole reading, and the bodies a Job is made of (a long sequence of tasks) are read in parts. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/internal.h"
#include "common/parallel.h"
#include "common/sbuf.h"
#include "tests/lib/test.h"

#define NEVER SIZE_MAX

static void check_positions(const struct intake_doc *w, const json_t *wv, const struct intake_doc *s, const json_t *sv,
                            const char *where);

/* The same position, or none, both ways. */
static void check_pos(bool wf, struct intake_pos wp, bool sf, struct intake_pos sp, const char *where)
{
    if (wf != sf || (wf && (wp.line != sp.line || wp.column != sp.column)))
        test_fail(__FILE__, __LINE__, "%s: whole %s %d:%d, in parts %s %d:%d", where, wf ? "at" : "none", wp.line,
                  wp.column, sf ? "at" : "none", sp.line, sp.column);
}

static void check_positions(const struct intake_doc *w, const json_t *wv, const struct intake_doc *s, const json_t *sv,
                            const char *where)
{
    struct intake_pos wp = {0}, sp = {0};
    if (json_is_object(wv) || json_is_array(wv)) {
        bool wf = intake_node_pos(w, wv, &wp), sf = intake_node_pos(s, sv, &sp);
        check_pos(wf, wp, sf, sp, where);
    }
    char sub[512];
    if (json_is_object(wv)) {
        const char *key;
        json_t *value;
        json_object_foreach((json_t *)wv, key, value)
        {
            snprintf(sub, sizeof sub, "%.300s.%.100s", where, key);
            bool wf = intake_member_pos(w, wv, key, &wp), sf = intake_member_pos(s, sv, key, &sp);
            check_pos(wf, wp, sf, sp, sub);
            wf = intake_key_pos(w, wv, key, &wp);
            sf = intake_key_pos(s, sv, key, &sp);
            check_pos(wf, wp, sf, sp, sub);
            check_positions(w, value, s, json_object_get(sv, key), sub);
        }
    } else if (json_is_array(wv)) {
        for (size_t i = 0; i < json_array_size(wv); i++) {
            snprintf(sub, sizeof sub, "%.300s[%zu]", where, i);
            bool wf = intake_index_pos(w, wv, i, &wp), sf = intake_index_pos(s, sv, i, &sp);
            check_pos(wf, wp, sf, sp, sub);
            check_positions(w, json_array_get(wv, i), s, json_array_get(sv, i), sub);
        }
    }
}

/* Reads body (YAML or JSON) whole and in `parts` parts and checks that both readings agree; returns
 * whether the second one was in fact read in parts. */
static bool same_in_parts_as(enum intake_format fmt, const char *name, const char *body, size_t len, int parts)
{
    struct intake whole, split;
    struct api_status st_whole = {0}, st_split = {0};
    intake_parts_set(NEVER, 0);
    int rc_whole = intake_parse(body, len, fmt, &whole, &st_whole);
    unsigned long before = intake_parts_joined();
    intake_parts_set(0, parts);
    int rc_split = intake_parse(body, len, fmt, &split, &st_split);
    bool joined = intake_parts_joined() > before;
    intake_parts_set(NEVER, 0);
    if (rc_whole != rc_split) {
        test_fail(__FILE__, __LINE__, "%s (%d parts): whole %s, in parts %s", name, parts,
                  rc_whole ? st_whole.message : "read", rc_split ? st_split.message : "read");
    } else if (rc_whole != 0) {
        if (strcmp(st_whole.message, st_split.message) != 0 || st_whole.code != st_split.code)
            test_fail(__FILE__, __LINE__, "%s (%d parts): whole says %s, in parts %s", name, parts, st_whole.message,
                      st_split.message);
    } else if (whole.ndocs != split.ndocs) {
        test_fail(__FILE__, __LINE__, "%s (%d parts): %d documents whole, %d in parts", name, parts, whole.ndocs,
                  split.ndocs);
    } else {
        for (int i = 0; i < whole.ndocs; i++) {
            const struct intake_doc *w = &whole.docs[i], *s = &split.docs[i];
            if (!json_equal(w->root, s->root) || w->first_line != s->first_line || w->start_offset != s->start_offset ||
                w->end_offset != s->end_offset) {
                char *a = json_dumps(w->root, JSON_COMPACT), *b = json_dumps(s->root, JSON_COMPACT);
                test_fail(__FILE__, __LINE__,
                          "%s (%d parts): document %d differs:\n whole %.400s (line %d, %zu-%zu)\n parts %.400s (line "
                          "%d, %zu-%zu)",
                          name, parts, i, a, w->first_line, w->start_offset, w->end_offset, b, s->first_line,
                          s->start_offset, s->end_offset);
                free(a);
                free(b);
                continue;
            }
            check_positions(w, w->root, s, s->root, name);
        }
    }
    if (rc_whole == 0)
        intake_free(&whole);
    if (rc_split == 0)
        intake_free(&split);
    return joined;
}

static bool same_in_parts(const char *name, const char *body, size_t len, int parts)
{
    return same_in_parts_as(INTAKE_YAML, name, body, len, parts);
}

/* The same for JSON, whose documents have no positions. */
static bool json_same_in_parts(const char *name, const char *body, size_t len, int parts)
{
    return same_in_parts_as(INTAKE_JSON, name, body, len, parts);
}

/* A Volcano Job of n tasks as seed 000's file writes them (four-space indentation, tasks indentless
 * under their key), with `after` following the tasks. */
static char *job(int n, const char *after, size_t *len)
{
    struct sbuf b = {0};
    sbuf_puts(&b,
              "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n    name: big\nspec:\n"
              "    minAvailable: 1\n    tasks:\n");
    for (int i = 0; i < n; i++)
        sbuf_printf(&b,
                    "    - name: t%d\n      replicas: 1\n      template:\n          spec:\n"
                    "              containers:\n              - name: worker\n                image: img\n"
                    "                args:\n                - bash\n                - |-\n"
                    "                    python run.py --index %d\n",
                    i, i);
    sbuf_puts(&b, after);
    *len = b.len;
    return sbuf_take(&b);
}

static void check_job(const char *name, const char *after, bool must_join)
{
    size_t len;
    char *body = job(200, after, &len);
    for (int parts = 2; parts <= 5; parts++) {
        bool joined = same_in_parts(name, body, len, parts);
        if (must_join && !joined)
            test_fail(__FILE__, __LINE__, "%s: not read in %d parts", name, parts);
    }
    free(body);
}

static void test_a_job_is_read_in_parts(void) { check_job("job", "", true); }

static void test_text_after_the_tasks(void)
{
    check_job("trailer at the tasks' column", "    queue: default\n    policies:\n    - event: PodEvicted\n", true);
    check_job("trailer less indented", "status:\n  phase: Pending\n", true);
    check_job("comments and blank lines after", "\n# the end\n\n    # more\n", true);
    check_job("a second document after", "---\nkind: Queue\nitems:\n- a\n- b\n", true);
}

/* The same job with CRLF line ends, a byte order mark, and characters of several bytes before a cut. */
static void test_line_ends_and_characters(void)
{
    size_t len;
    char *body = job(200, "", &len);
    struct sbuf crlf = {0};
    for (size_t i = 0; i < len; i++) {
        if (body[i] == '\n')
            sbuf_append(&crlf, "\r", 1);
        sbuf_append(&crlf, body + i, 1);
    }
    CHECK(same_in_parts("crlf", crlf.data, crlf.len, 3));
    struct sbuf bom = {0};
    sbuf_puts(&bom, "\xEF\xBB\xBF# caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x9A\x80\n");
    sbuf_append(&bom, body, len);
    CHECK(same_in_parts("bom and utf-8", bom.data, bom.len, 4));
    /* a lone CR is a line break to libyaml: such bodies are read whole */
    char *entry = strstr(body + len / 2, "\n    - name");
    REQUIRE(entry != NULL);
    *entry = '\r';
    CHECK(!same_in_parts("lone cr", body, len, 3));
    sbuf_free(&crlf);
    sbuf_free(&bom);
    free(body);
}

/* Text that looks like entries where a cut could fall but is not: the reading in parts must notice. */
static void test_false_entries_are_not_cut(void)
{
    struct sbuf b = {0};
    sbuf_puts(&b, "items:\n");
    for (int i = 0; i < 300; i++)
        sbuf_printf(&b, "- a: \"x%d\n- b: y\"\n", i); /* a quoted scalar running over an entry-like line */
    same_in_parts("quoted scalars over lines", b.data, b.len, 3);
    sbuf_free(&b);
    sbuf_puts(&b, "script: |\n");
    for (int i = 0; i < 300; i++)
        sbuf_printf(&b, " - not an entry %d\n", i); /* a block scalar's lines */
    sbuf_puts(&b, "items:\n- a\n- b\n");
    same_in_parts("block scalar of entry-like lines", b.data, b.len, 3);
    sbuf_free(&b);
    sbuf_puts(&b, "items: [\n");
    for (int i = 0; i < 300; i++)
        sbuf_printf(&b, "- %d,\n", i); /* flow context */
    sbuf_puts(&b, "]\n");
    same_in_parts("flow sequence", b.data, b.len, 3);
    sbuf_free(&b);
    for (int i = 0; i < 300; i++)
        sbuf_printf(&b, "- a%d\n%s", i, i == 150 ? "---\n" : ""); /* a document ends among the entries */
    same_in_parts("document marker among entries", b.data, b.len, 3);
    sbuf_free(&b);
    for (int i = 0; i < 300; i++)
        sbuf_printf(&b, "- a%d\n%s", i, i == 150 ? "b: c\n" : ""); /* not an entry at the entries' column */
    same_in_parts("a key among entries", b.data, b.len, 3);
    sbuf_free(&b);
}

/* Anchors, aliases and merge keys across pieces; deep nesting; refused bodies. */
static void test_anchors_depth_and_errors(void)
{
    struct sbuf b = {0};
    sbuf_puts(&b, "base: &base {cpu: 1}\nitems:\n");
    for (int i = 0; i < 300; i++)
        sbuf_printf(&b, i == 10 ? "- &first {n: %d}\n" : i == 250 ? "- *first\n" : "- {<<: *base, n: %d}\n", i);
    same_in_parts("aliases", b.data, b.len, 3);
    sbuf_free(&b);
    sbuf_puts(&b, "items:\n");
    for (int i = 0; i < 300; i++)
        sbuf_printf(&b, i == 200 ? "- &late {n: %d}\n" : "- n: %d\n", i);
    sbuf_puts(&b, "again: *late\n");
    same_in_parts("anchor in a piece used after", b.data, b.len, 3);
    sbuf_free(&b);
    for (int levels = 55; levels <= 56; levels++) { /* the entries nest past the limit only in the body */
        struct sbuf deep = {0};
        for (int d = 0; d < levels; d++)
            sbuf_printf(&deep, "%*sk:\n", d, "");
        for (int i = 0; i < 400; i++)
            sbuf_printf(&deep, "%*s- %s\n", levels, "", i % 50 == 0 ? "[[[[[[[[1]]]]]]]]" : "x");
        bool joined = same_in_parts("nesting", deep.data, deep.len, 3);
        CHECK(joined == (levels == 55));
        sbuf_free(&deep);
    }
    size_t len;
    char *body = job(200, "", &len);
    char *dup = strstr(body + len * 3 / 4, "replicas: 1\n");
    REQUIRE(dup != NULL);
    memcpy(dup, "name:  x  \n", 11); /* a key twice, in the last piece */
    same_in_parts("duplicate key", body, len, 3);
    free(body);
}

/* The YAML job as JSON, compact or indented. */
static char *job_json(int n, size_t flags, size_t *len)
{
    size_t ylen;
    char *yaml = job(n, "", &ylen);
    struct intake in;
    struct api_status st = {0};
    char *json = intake_parse(yaml, ylen, INTAKE_YAML, &in, &st) == 0 ? json_dumps(in.docs[0].root, flags) : NULL;
    if (json)
        intake_free(&in);
    free(yaml);
    *len = json ? strlen(json) : 0;
    return json;
}

static void test_a_json_job_is_read_in_parts(void)
{
    size_t flags[] = {JSON_COMPACT, JSON_INDENT(2)};
    for (size_t f = 0; f < 2; f++) {
        size_t len;
        char *body = job_json(200, flags[f], &len);
        REQUIRE(body != NULL);
        for (int parts = 2; parts <= 5; parts++)
            CHECK(json_same_in_parts("json job", body, len, parts));
        char *with_bom = malloc(len + 3);
        REQUIRE(with_bom != NULL);
        memcpy(with_bom, "\xEF\xBB\xBF", 3);
        memcpy(with_bom + 3, body, len);
        CHECK(json_same_in_parts("json job after a byte order mark", with_bom, len + 3, 3));
        free(with_bom);
        free(body);
    }
}

/* Strings full of the marks that end strings and cut arrays, a path through an array and through
 * escaped names, bodies Jansson refuses in a piece or around. */
static void test_json_strings_paths_and_errors(void)
{
    struct sbuf b = {0};
    sbuf_puts(&b, "{\"a\": [");
    for (int i = 0; i < 400; i++)
        sbuf_printf(&b, "%s\"x\\\",[{]}\\\\\", %d, \"\\\\\"", i ? "," : "", i); /* "x\",[{]}\\", 7, "\\" */
    sbuf_puts(&b, "], \"b\": \"],[\"}");
    CHECK(json_same_in_parts("quotes, commas and brackets in strings", b.data, b.len, 3));
    sbuf_free(&b);
    sbuf_puts(&b, "[1, {\"k\": [");
    for (int i = 0; i < 400; i++)
        sbuf_printf(&b, "%s{\"n\": %d}", i ? "," : "", i);
    sbuf_puts(&b, "]}, 2]");
    CHECK(json_same_in_parts("an array inside an array", b.data, b.len, 4));
    sbuf_free(&b);
    sbuf_puts(&b, "{\"k\\u0041\": [");
    for (int i = 0; i < 400; i++)
        sbuf_printf(&b, "%s%d", i ? "," : "", i);
    sbuf_puts(&b, "]}");
    CHECK(!json_same_in_parts("a name with an escape on the path", b.data, b.len, 3));
    sbuf_free(&b);
    const char *bad[] = {"{\"n\": 1, \"n\": 2}", "[1 2]", "\"\\q\"", "{\"open\": [", "1,", " ", ""};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        for (int where = 0; where < 3; where++) {
            sbuf_puts(&b, "{\"items\": [");
            for (int i = 0; i < 400; i++)
                sbuf_printf(&b, "%s%s", i ? "," : "", i == 100 + 130 * where ? bad[k] : "{\"n\": 0}");
            sbuf_puts(&b, "]}");
            json_same_in_parts("refused", b.data, b.len, 3);
            sbuf_free(&b);
        }
    }
    /* a cut at a comma with no element after it, or before it: `[]` around nothing parses */
    char big[20000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    sbuf_printf(&b, "[1, 2, \"%s\", ]", big);
    json_same_in_parts("a trailing comma", b.data, b.len, 2);
    sbuf_free(&b);
    sbuf_printf(&b, "{\"pad\": \"%s\", \"a\": [ , 1, 2]}", big);
    json_same_in_parts("a leading comma", b.data, b.len, 2);
    sbuf_free(&b);
    sbuf_puts(&b, "[");
    for (int i = 0; i < 70; i++)
        sbuf_puts(&b, "[");
    for (int i = 0; i < 70; i++)
        sbuf_puts(&b, "1,");
    for (int i = 0; i < 70; i++)
        sbuf_puts(&b, "]");
    sbuf_puts(&b, "]");
    json_same_in_parts("deeper than the scan", b.data, b.len, 3);
    sbuf_free(&b);
}

/* As the server reads them: a body of 512 KiB or more is read in parts when there is another CPU,
 * in no more parts than 128 KiB pieces make. */
static void test_parts_follow_the_cpus_and_the_size(void)
{
    CHECK_INT(parallel_parts(100, INTAKE_PART_MIN_BYTES), 1);
    CHECK(parallel_parts(3 * INTAKE_PART_MIN_BYTES, INTAKE_PART_MIN_BYTES) <= 3);
    CHECK_INT(parallel_parts(SIZE_MAX, 1), parallel_helpers() + 1);
    size_t len;
    char *body = job(2600, "", &len); /* ~650 KiB */
    REQUIRE(body != NULL);
    REQUIRE(len >= INTAKE_PARTS_MIN_BODY);
    struct intake in;
    struct api_status st = {0};
    intake_parts_set(INTAKE_PARTS_MIN_BODY, 0);
    unsigned long before = intake_parts_joined();
    REQUIRE(intake_parse(body, len, INTAKE_YAML, &in, &st) == 0);
    CHECK((intake_parts_joined() > before) == (parallel_helpers() > 0));
    CHECK_INT((int)json_array_size(json_object_get(json_object_get(in.docs[0].root, "spec"), "tasks")), 2600);
    intake_free(&in);
    free(body);
}

static const char *const corpus_roots[] = {"examples", "tests/unit/corpus", "tests/unit/data", "tests/integration/data",
                                           "tests/fuzz/corpus/intake_yaml"};
static int corpus_files;

static int check_corpus_file(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)ftw;
    size_t n = strlen(path);
    if (type != FTW_F || sb->st_size > (4 << 20) ||
        !(n > 5 && (strcmp(path + n - 5, ".yaml") == 0 || strcmp(path + n - 4, ".yml") == 0)))
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char *data = malloc((size_t)sb->st_size + 1);
    size_t len = data ? fread(data, 1, (size_t)sb->st_size, f) : 0;
    fclose(f);
    for (int parts = 2; data && parts <= 4; parts++)
        same_in_parts(path, data, len, parts);
    free(data);
    corpus_files++;
    return 0;
}

static void test_every_yaml_file_of_the_project(void)
{
    for (size_t i = 0; i < sizeof corpus_roots / sizeof *corpus_roots; i++)
        nftw(corpus_roots[i], check_corpus_file, 16, FTW_PHYS);
    CHECK(corpus_files > 50);
}

TEST_MAIN(TEST_CASE(test_a_job_is_read_in_parts), TEST_CASE(test_text_after_the_tasks),
          TEST_CASE(test_line_ends_and_characters), TEST_CASE(test_false_entries_are_not_cut),
          TEST_CASE(test_anchors_depth_and_errors), TEST_CASE(test_every_yaml_file_of_the_project),
          TEST_CASE(test_a_json_job_is_read_in_parts), TEST_CASE(test_json_strings_paths_and_errors),
          TEST_CASE(test_parts_follow_the_cpus_and_the_size))
