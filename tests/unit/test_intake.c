/* Unit tests for adapters/intake: YAML 1.1 scalar resolution as Kubernetes does it, positions,
 * multi-document offsets, anchors and merge keys, the error messages users see, and JSON intake. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "common/sbuf.h"
#include "tests/lib/test.h"

/* Parses text and keeps the outcome for the checks that follow. */
struct parsed {
    struct intake in;
    struct api_status st;
    int rc;
};

static void parse_as(struct parsed *p, const char *text, enum intake_format fmt)
{
    memset(p, 0, sizeof *p);
    p->rc = intake_parse(text, strlen(text), fmt, &p->in, &p->st);
}

static void check_error(const char *text, enum intake_format fmt, const char *needle, int line)
{
    struct parsed p;
    parse_as(&p, text, fmt);
    if (p.rc == 0) {
        test_fail(__FILE__, line, "no error for %.200s", text);
        intake_free(&p.in);
        return;
    }
    if (p.st.code != 400 || strcmp(p.st.reason, "BadRequest") != 0 || !strstr(p.st.message, needle))
        test_fail(__FILE__, line, "error %d %s \"%s\" lacks \"%s\"", p.st.code, p.st.reason, p.st.message, needle);
    if (p.in.ndocs != 0 || p.in.docs != NULL)
        test_fail(__FILE__, line, "documents left after an error");
}
#define CHECK_ERROR(text, fmt, needle) check_error(text, fmt, needle, __LINE__)

static bool same_json(const json_t *a, const char *expected)
{
    json_error_t jerr;
    json_t *want = json_loads(expected, JSON_DECODE_ANY, &jerr);
    bool same = want && json_equal(a, want);
    json_decref(want);
    return same;
}

static char *dump(const json_t *v) { return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER); }

/* --- scalar resolution ------------------------------------------------------------------------------ */

/* clang-format off */
static const struct {
    const char *yaml; /* the value of key v */
    const char *json; /* what Kubernetes reads */
} scalar_cases[] = {
    {"~", "null"}, {"null", "null"}, {"Null", "null"}, {"NULL", "null"}, {"", "null"}, {"nUll", "\"nUll\""},
    {"true", "true"}, {"True", "true"}, {"TRUE", "true"}, {"false", "false"}, {"False", "false"}, {"FALSE", "false"},
    {"yes", "true"}, {"Yes", "true"}, {"YES", "true"}, {"no", "false"}, {"No", "false"}, {"NO", "false"},
    {"on", "true"}, {"On", "true"}, {"ON", "true"}, {"off", "false"}, {"Off", "false"}, {"OFF", "false"},
    {"y", "true"}, {"Y", "true"}, {"n", "false"}, {"N", "false"}, {"tRUE", "\"tRUE\""}, {"yES", "\"yES\""},
    /* integers */
    {"42", "42"}, {"-17", "-17"}, {"+5", "5"}, {"0", "0"}, {"-0", "0"}, {"0x1F", "31"}, {"0X1f", "31"},
    {"-0x10", "-16"}, {"0b101", "5"}, {"-0b11", "-3"}, {"0755", "493"}, {"0o17", "15"}, {"1_000", "1000"},
    {"0x_ff", "255"}, {"9223372036854775807", "9223372036854775807"},
    {"-9223372036854775808", "-9223372036854775808"},
    {"9223372036854775808", "9.2233720368547758e18"}, {"0xFFFFFFFFFFFFFFFF", "1.8446744073709552e19"},
    {"-9223372036854775809", "-9.2233720368547758e18"}, {"99999999999999999999", "1e20"},
    {"0xFFFFFFFFFFFFFFFFF", "\"0xFFFFFFFFFFFFFFFFF\""}, {"0x", "\"0x\""}, {"0b2", "\"0b2\""}, {"_1", "\"_1\""},
    /* floats */
    {"1.5", "1.5"}, {".5", "0.5"}, {"-1.5e3", "-1500.0"}, {"1e3", "1000.0"}, {"1E+3", "1000.0"}, {"1.", "1.0"},
    {"+.25", "0.25"}, {"08", "8.0"}, {"1_0.5", "10.5"}, {"1e400", "\"1e400\""}, {"1e-400", "0.0"},
    {"1.2.3", "\"1.2.3\""}, {".", "\".\""}, {"+", "\"+\""}, {"-a", "\"-a\""}, {"1e", "\"1e\""}, {"0x1p3", "\"0x1p3\""},
    /* strings */
    {"hello", "\"hello\""}, {"\"42\"", "\"42\""}, {"'1.5'", "\"1.5\""}, {"\"true\"", "\"true\""}, {"'~'", "\"~\""},
    {"\"\"", "\"\""}, {"12:30", "\"12:30\""}, {"2001-12-14", "\"2001-12-14\""}, {"500m", "\"500m\""},
    {"1.5Gi", "\"1.5Gi\""}, {"\"a\\u00e9\\n\"", "\"a\\u00e9\\n\""}, {"a b  c", "\"a b  c\""},
    {"|\n  42\n  x", "\"42\\nx\\n\""}, {">-\n  a\n  b", "\"a b\""}, {"<<", "\"<<\""},
    /* explicit tags */
    {"!!str 42", "\"42\""}, {"!!str true", "\"true\""}, {"!!str", "\"\""}, {"!!int \"42\"", "42"},
    {"!!int 0x10", "16"}, {"!!float 1", "1.0"}, {"!!float '2.5'", "2.5"}, {"!!bool \"yes\"", "true"},
    {"!!null ''", "null"}, {"!!null ~", "null"}, {"!!binary aGVsbG8=", "\"aGVsbG8=\""}, {"! 42", "\"42\""},
    {"!<tag:yaml.org,2002:int> '7'", "7"}, {"!<tag:yaml.org,2002:str> 7", "\"7\""},
    {"!!int 18446744073709551615", "1.8446744073709552e19"},
};
/* clang-format on */

static void test_scalar_resolution(void)
{
    for (size_t i = 0; i < sizeof scalar_cases / sizeof scalar_cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "v: %s\n", scalar_cases[i].yaml);
        struct parsed p;
        parse_as(&p, text, INTAKE_YAML);
        if (p.rc != 0) {
            test_fail(__FILE__, __LINE__, "v: %s -> %s", scalar_cases[i].yaml, p.st.message);
            continue;
        }
        json_t *v = json_object_get(p.in.docs[0].root, "v");
        if (!v || !same_json(v, scalar_cases[i].json)) {
            char *got = v ? dump(v) : NULL;
            test_fail(__FILE__, __LINE__, "v: %s -> %s, expected %s", scalar_cases[i].yaml, got ? got : "(none)",
                      scalar_cases[i].json);
            free(got);
        }
        intake_free(&p.in);
    }
}

static void test_scalar_errors(void)
{
    CHECK_ERROR("a: 1\nv: .inf\n", INTAKE_YAML, "yaml: line 2, column 4: .inf is not a valid JSON number");
    CHECK_ERROR("v: -.Inf\n", INTAKE_YAML, "-.Inf is not a valid JSON number");
    CHECK_ERROR("v: [.nan]\n", INTAKE_YAML, "line 1, column 5: .nan is not a valid JSON number");
    CHECK_ERROR("v: !!float .inf\n", INTAKE_YAML, "is not a valid JSON number");
    CHECK_ERROR("v: !!int abc\n", INTAKE_YAML, "line 1, column 4: \"abc\" is not a valid !!int");
    CHECK_ERROR("v: !!int 1.5\n", INTAKE_YAML, "\"1.5\" is not a valid !!int");
    CHECK_ERROR("v: !!bool 3\n", INTAKE_YAML, "\"3\" is not a valid !!bool");
    CHECK_ERROR("v: !!float x\n", INTAKE_YAML, "\"x\" is not a valid !!float");
    CHECK_ERROR("v: !!null 0\n", INTAKE_YAML, "\"0\" is not a valid !!null");
    CHECK_ERROR("v: !!map x\n", INTAKE_YAML, "tag !!map cannot be used on a scalar");
    static const char *const nonfinite[] = {".inf",  ".Inf",  ".INF",  "+.inf", "+.Inf", "+.INF",
                                            "-.inf", "-.Inf", "-.INF", ".nan",  ".NaN",  ".NAN"};
    for (size_t i = 0; i < sizeof nonfinite / sizeof *nonfinite; i++) {
        char body[32], want[64];
        snprintf(body, sizeof body, "v: %s\n", nonfinite[i]);
        snprintf(want, sizeof want, "%s is not a valid JSON number", nonfinite[i]);
        CHECK_ERROR(body, INTAKE_YAML, want);
    }
    CHECK_ERROR("v: !!float +.Inf\n", INTAKE_YAML, "is not a valid JSON number");
}

static void test_unknown_tags(void)
{
    CHECK_ERROR("v: !foo bar\n", INTAKE_YAML, "yaml: line 1, column 4: unknown tag !foo");
    CHECK_ERROR("v: !!timestamp 2001-12-14\n", INTAKE_YAML, "unknown tag !!timestamp");
    CHECK_ERROR("v: !!set {a: null}\n", INTAKE_YAML, "unknown tag !!set");
    CHECK_ERROR("v: !<tag:example.com,2000:thing> x\n", INTAKE_YAML, "unknown tag tag:example.com,2000:thing");
    CHECK_ERROR("v: !!str {a: 1}\n", INTAKE_YAML, "tag !!str cannot be used on a mapping");
    CHECK_ERROR("v: !!map [1]\n", INTAKE_YAML, "tag !!map cannot be used on a sequence");
    CHECK_ERROR("%TAG !e! tag:example.com,2000:\n---\nv: !e!x 1\n", INTAKE_YAML, "unknown tag tag:example.com,2000:x");

    struct parsed p;
    parse_as(&p, "v: !!map {a: !!seq [1]}\nw: ! {b: 2}\n", INTAKE_YAML);
    REQUIRE(p.rc == 0);
    CHECK(same_json(p.in.docs[0].root, "{\"v\": {\"a\": [1]}, \"w\": {\"b\": 2}}"));
    intake_free(&p.in);
}

static void test_keys(void)
{
    struct parsed p;
    parse_as(&p, "1: a\ntrue: b\n0x10: c\n1.5: d\n\"q\": e\n'<<': g\n? long key\n: h\n", INTAKE_YAML);
    REQUIRE(p.rc == 0);
    CHECK(same_json(p.in.docs[0].root,
                    "{\"1\": \"a\", \"true\": \"b\", \"16\": \"c\", \"1.5\": \"d\", \"q\": \"e\","
                    " \"<<\": \"g\", \"long key\": \"h\"}"));
    intake_free(&p.in);

    CHECK_ERROR("true: a\nyes: b\n", INTAKE_YAML, "line 2, column 1: mapping key \"true\" already defined at line 1");
    CHECK_ERROR("1: a\n\"1\": b\n", INTAKE_YAML, "mapping key \"1\" already defined at line 1");
    CHECK_ERROR("~: a\n", INTAKE_YAML, "line 1, column 1: a mapping key must not be null");
    CHECK_ERROR("? [a]\n: 1\n", INTAKE_YAML, "line 1, column 3: a mapping key must be a scalar, not a sequence");
    CHECK_ERROR("{{a: 1}: 2}\n", INTAKE_YAML, "a mapping key must be a scalar, not a mapping");
    CHECK_ERROR("a: &m {x: 1}\n*m : 2\n", INTAKE_YAML,
                "line 2, column 1: a mapping key must be a scalar, not a mapping");
    CHECK_ERROR("\"a\\0b\": 1\n", INTAKE_YAML, "mapping keys must not contain NUL characters");
}

static void test_duplicate_keys(void)
{
    CHECK_ERROR("x: 1\ny: 2\nx: 3\n", INTAKE_YAML,
                "yaml: line 3, column 1: mapping key \"x\" already defined at line 1");
    CHECK_ERROR("a:\n  b: 1\n  c: 2\n  b: 3\n", INTAKE_YAML,
                "line 4, column 3: mapping key \"b\" already defined at line 2");
    CHECK_ERROR("{a: 1, a: 2}\n", INTAKE_YAML, "mapping key \"a\" already defined at line 1");
    /* the same key in different mappings is fine */
    struct parsed p;
    parse_as(&p, "a: {x: 1}\nb: {x: 2}\n", INTAKE_YAML);
    CHECK_INT(p.rc, 0);
    intake_free(&p.in);
}

/* --- positions -------------------------------------------------------------------------------------- */

static const char manifest[] =
    "apiVersion: batch.volcano.sh/v1alpha1\n" /* 1 */
    "kind: Job\n"                             /* 2 */
    "metadata:\n"                             /* 3 */
    "  name: demo\n"                          /* 4 */
    "spec:\n"                                 /* 5 */
    "  minAvailable: 2\n"                     /* 6 */
    "  tasks:\n"                              /* 7 */
    "  - name: ps\n"                          /* 8 */
    "    replicas: 1\n"                       /* 9 */
    "  -   name: worker\n"                    /* 10 */
    "      replicas: 4\n"                     /* 11 */
    "  plugins: {ssh: [], env: [a, \"b\"]}\n" /* 12 */
    "  flags:\n"                              /* 13 */
    "  - true\n"                              /* 14 */
    "  -\n"                                   /* 15 */
    "  - null\n";                             /* 16 */

static void check_pos(bool found, struct intake_pos pos, int line, int column, int src_line)
{
    if (!found)
        test_fail(__FILE__, src_line, "no position, expected %d:%d", line, column);
    else if (pos.line != line || pos.column != column)
        test_fail(__FILE__, src_line, "position %d:%d, expected %d:%d", pos.line, pos.column, line, column);
}
#define CHECK_POS(found, pos, line, column) check_pos(found, pos, line, column, __LINE__)

static void test_positions(void)
{
    struct parsed p;
    parse_as(&p, manifest, INTAKE_YAML);
    REQUIRE(p.rc == 0 && p.in.ndocs == 1);
    const struct intake_doc *doc = &p.in.docs[0];
    json_t *root = doc->root, *metadata = json_object_get(root, "metadata"), *spec = json_object_get(root, "spec");
    json_t *tasks = json_object_get(spec, "tasks"), *plugins = json_object_get(spec, "plugins");
    json_t *flags = json_object_get(spec, "flags");
    REQUIRE(metadata && spec && json_array_size(tasks) == 2 && plugins && json_array_size(flags) == 3);
    struct intake_pos pos = {0, 0};

    CHECK_POS(intake_node_pos(doc, root, &pos), pos, 1, 1);
    CHECK_POS(intake_member_pos(doc, root, "kind", &pos), pos, 2, 7);
    CHECK_POS(intake_key_pos(doc, root, "kind", &pos), pos, 2, 1);
    CHECK_POS(intake_member_pos(doc, root, "metadata", &pos), pos, 4, 3);
    CHECK_POS(intake_key_pos(doc, root, "metadata", &pos), pos, 3, 1);
    CHECK_POS(intake_node_pos(doc, metadata, &pos), pos, 4, 3);
    CHECK_POS(intake_member_pos(doc, metadata, "name", &pos), pos, 4, 9);
    CHECK_POS(intake_member_pos(doc, spec, "minAvailable", &pos), pos, 6, 17);
    CHECK_POS(intake_member_pos(doc, spec, "tasks", &pos), pos, 8, 3);
    CHECK_POS(intake_index_pos(doc, tasks, 0, &pos), pos, 8, 5);
    CHECK_POS(intake_index_pos(doc, tasks, 1, &pos), pos, 10, 7);
    json_t *worker = json_array_get(tasks, 1);
    CHECK_POS(intake_member_pos(doc, worker, "name", &pos), pos, 10, 13);
    CHECK_POS(intake_member_pos(doc, worker, "replicas", &pos), pos, 11, 17);
    CHECK_POS(intake_key_pos(doc, worker, "replicas", &pos), pos, 11, 7);
    CHECK_POS(intake_member_pos(doc, json_array_get(tasks, 0), "replicas", &pos), pos, 9, 15);
    CHECK_POS(intake_member_pos(doc, spec, "plugins", &pos), pos, 12, 12);
    CHECK_POS(intake_member_pos(doc, plugins, "ssh", &pos), pos, 12, 18);
    CHECK_POS(intake_node_pos(doc, json_object_get(plugins, "ssh"), &pos), pos, 12, 18);
    CHECK_POS(intake_index_pos(doc, json_object_get(plugins, "env"), 1, &pos), pos, 12, 31);
    /* true and null are shared singletons: only their place in the parent tells them apart */
    CHECK_POS(intake_index_pos(doc, flags, 0, &pos), pos, 14, 5);
    CHECK_POS(intake_index_pos(doc, flags, 1, &pos), pos, 15, 4);
    CHECK_POS(intake_index_pos(doc, flags, 2, &pos), pos, 16, 5);

    CHECK(!intake_member_pos(doc, root, "nope", &pos));
    CHECK(!intake_index_pos(doc, tasks, 2, &pos));
    CHECK(!intake_node_pos(doc, json_object_get(metadata, "name"), &pos)); /* only containers */
    json_t *later = json_object();
    CHECK(!intake_node_pos(doc, later, &pos));
    CHECK(!intake_member_pos(doc, later, "kind", &pos));
    json_decref(later);
    intake_free(&p.in);

    parse_as(&p, "{\"kind\": \"Job\"}", INTAKE_JSON);
    REQUIRE(p.rc == 0);
    CHECK(!intake_member_pos(&p.in.docs[0], p.in.docs[0].root, "kind", &pos));
    CHECK(!intake_node_pos(&p.in.docs[0], p.in.docs[0].root, &pos));
    intake_free(&p.in);
}

/* Columns count characters, as editors do, not bytes. */
static void test_positions_count_characters(void)
{
    struct parsed p;
    parse_as(&p, "é: \"ü€\"\nx: [ü, 2]\n", INTAKE_YAML);
    REQUIRE(p.rc == 0);
    struct intake_pos pos = {0, 0};
    json_t *root = p.in.docs[0].root;
    CHECK_POS(intake_member_pos(&p.in.docs[0], root, "é", &pos), pos, 1, 4);
    CHECK_POS(intake_index_pos(&p.in.docs[0], json_object_get(root, "x"), 1, &pos), pos, 2, 8);
    intake_free(&p.in);
}

/* --- documents and offsets -------------------------------------------------------------------------- */

static void check_slices_reparse(const char *text, const struct intake *in)
{
    for (int i = 0; i < in->ndocs; i++) {
        const struct intake_doc *d = &in->docs[i];
        REQUIRE(d->start_offset < d->end_offset && d->end_offset <= strlen(text));
        struct intake one;
        struct api_status st = {0};
        int rc = intake_parse(text + d->start_offset, d->end_offset - d->start_offset, INTAKE_YAML, &one, &st);
        if (rc != 0) {
            test_fail(__FILE__, __LINE__, "slice %d [%zu, %zu) fails: %s", i, d->start_offset, d->end_offset,
                      st.message);
            continue;
        }
        CHECK_INT(one.ndocs, 1);
        if (one.ndocs == 1 && !json_equal(one.docs[0].root, d->root)) {
            char *a = dump(one.docs[0].root), *b = dump(d->root);
            test_fail(__FILE__, __LINE__, "slice %d reads %s, the whole body %s", i, a, b);
            free(a);
            free(b);
        }
        intake_free(&one);
    }
}

static void test_multi_document(void)
{
    static const char body[] =
        "# leading comment\n"     /* 1 */
        "a: 1\n"                  /* 2 */
        "---\n"                   /* 3 */
        "---\n"                   /* 4: empty, skipped */
        "# about b\n"             /* 5 */
        "b: [x, z]\n"             /* 6 */
        "...\n"                   /* 7 */
        "--- ~\n"                 /* 8: null, skipped */
        "...\n"                   /* 9 */
        "%YAML 1.1\n"             /* 10 */
        "---\n"                   /* 11 */
        "c: \"é\"\n"              /* 12 */
        "---\n"                   /* 13 */
        "  - indented\n"          /* 14 */
        "  - list\n"              /* 15 */
        "--- {f: &v 1, g: *v}\n"; /* 16 */
    struct parsed p;
    parse_as(&p, body, INTAKE_YAML);
    REQUIRE(p.rc == 0);
    REQUIRE(p.in.ndocs == 5);
    CHECK(same_json(p.in.docs[0].root, "{\"a\": 1}"));
    CHECK(same_json(p.in.docs[1].root, "{\"b\": [\"x\", \"z\"]}"));
    CHECK(same_json(p.in.docs[2].root, "{\"c\": \"\\u00e9\"}"));
    CHECK(same_json(p.in.docs[3].root, "[\"indented\", \"list\"]"));
    CHECK(same_json(p.in.docs[4].root, "{\"f\": 1, \"g\": 1}"));
    CHECK_INT(p.in.docs[0].first_line, 2);
    CHECK_INT(p.in.docs[1].first_line, 4);
    CHECK_INT(p.in.docs[2].first_line, 10);
    CHECK_INT(p.in.docs[3].first_line, 13);
    CHECK_INT(p.in.docs[4].first_line, 16);
    CHECK_INT(p.in.docs[0].start_offset, strlen("# leading comment\n"));
    CHECK_INT(p.in.docs[0].end_offset, strstr(body, "---\n---") - body);
    CHECK_INT(p.in.docs[1].end_offset, strstr(body, "...\n") + 3 - body);
    CHECK_INT(p.in.docs[2].start_offset, strstr(body, "%YAML") - body);
    CHECK_INT(p.in.docs[4].end_offset, strlen(body));
    /* positions stay per document and count lines of the whole body */
    struct intake_pos pos = {0, 0};
    CHECK_POS(intake_index_pos(&p.in.docs[1], json_object_get(p.in.docs[1].root, "b"), 1, &pos), pos, 6, 8);
    CHECK(!intake_index_pos(&p.in.docs[0], json_object_get(p.in.docs[1].root, "b"), 1, &pos));
    check_slices_reparse(body, &p.in);
    intake_free(&p.in);

    CHECK_ERROR("a: &x 1\n---\nb: *x\n", INTAKE_YAML, "line 3, column 4: unknown anchor \"x\" referenced");
    CHECK_ERROR("a: 1\n---\nhello\n", INTAKE_YAML, "yaml: the document must be a mapping");
}

static void test_offsets_with_bom_and_crlf(void)
{
    static const char body[] =
        "\xEF\xBB\xBF"
        "a: \xC3\xA9\r\n"
        "---\r\n"
        "b: 2\r\n";
    struct parsed p;
    parse_as(&p, body, INTAKE_SNIFF);
    REQUIRE(p.rc == 0 && p.in.ndocs == 2);
    CHECK_INT(p.in.docs[0].start_offset, 3);
    CHECK_INT(p.in.docs[0].end_offset, strstr(body, "---") - body);
    CHECK_INT(p.in.docs[1].start_offset, strstr(body, "---") - body);
    CHECK_INT(p.in.docs[1].end_offset, strlen(body));
    check_slices_reparse(body, &p.in);
    intake_free(&p.in);

    /* UTF-16 with a byte order mark is read (and offsets count its bytes) */
    static const char utf16[] =
        "\xFF\xFE"
        "a\0:\0 \0"
        "1\0\n\0";
    struct intake in;
    struct api_status st = {0};
    REQUIRE(intake_parse(utf16, sizeof utf16 - 1, INTAKE_YAML, &in, &st) == 0);
    CHECK(same_json(in.docs[0].root, "{\"a\": 1}"));
    CHECK_INT(in.docs[0].start_offset, 2);
    CHECK_INT(in.docs[0].end_offset, sizeof utf16 - 1);
    intake_free(&in);
}

/* Long ASCII runs between multi-byte characters (2, 3 and 4 bytes, as in Chinese
 * comments): offsets are bytes wherever the documents start and end. */
/* libyaml would skip a byte order mark at the start of a later line but count it as a column, so the
 * document would nest otherwise once cut out on its own: refused, with its line. */
static void test_inner_bom_refused(void)
{
    static const char body[] =
        "# net\n\xEF\xBB\xBF"
        "adata:\n ab: 1\n";
    struct intake in;
    struct api_status st = {0};
    CHECK_INT(intake_parse(body, sizeof body - 1, INTAKE_YAML, &in, &st), -1);
    CHECK_INT(st.code, 400);
    CHECK_CONTAINS(st.message, "line 2");
    CHECK_CONTAINS(st.message, "byte order mark");
    /* Other characters whose UTF-8 starts with the mark's first byte (U+FF01, U+FEFE) are text. */
    static const char lookalikes[] = "a: \xEF\xBC\x81\nb: \xEF\xBB\xBE\n# \xEF\xBB\xBF\n";
    struct api_status st_like = {0};
    CHECK_INT(intake_parse(lookalikes, sizeof lookalikes - 1, INTAKE_YAML, &in, &st_like), -1);
    CHECK_CONTAINS(st_like.message, "line 3, byte 3: a byte order mark");
    REQUIRE(intake_parse(lookalikes, sizeof lookalikes - 6, INTAKE_YAML, &in, &st_like) == 0);
    CHECK_STR(json_string_value(json_object_get(in.docs[0].root, "a")), "\xEF\xBC\x81");
    intake_free(&in);
    static const char utf16[] =
        "\xFF\xFE"
        "a\0:\0 \0"
        "1\0\n\0"
        "\xFF\xFE"
        "b\0:\0 \0"
        "2\0\n\0";
    struct api_status st16 = {0};
    CHECK_INT(intake_parse(utf16, sizeof utf16 - 1, INTAKE_YAML, &in, &st16), -1);
    CHECK_CONTAINS(st16.message, "line 2");
}

static void test_offsets_across_long_lines(void)
{
    static const char body[] =
        "# \xE9\x94\x90\xE5\xA4\xA9 offline computing, a long comment line\n"
        "name: simulation-with-a-rather-long-name-\xC3\xA9\xC3\xA9-and-more-text\n"
        "---\n"
        "emoji: \"\xF0\x9F\x9A\x80 python run.py --pickle-file /data/simulation/1.pickle\"\n"
        "\xE6\xB3\xA8: \xE9\x87\x8A\n"
        "...\n"
        "# \xE4\xB8\x89 abcdefghijklmnopqrstuvwxyz0123456789\n"
        "---\n"
        "x: 1\n"
        "# a line of plain ASCII longer than 64 bytes, so that the offsets cross it in long steps, then \xC3\xA9\n"
        "---\n"
        "y: \xE2\x82\xAC\n";
    struct parsed p;
    parse_as(&p, body, INTAKE_YAML);
    REQUIRE(p.rc == 0 && p.in.ndocs == 4);
    CHECK_INT(p.in.docs[0].start_offset, strstr(body, "name:") - body); /* the comment before is left out */
    CHECK_INT(p.in.docs[0].end_offset, strstr(body, "---\nemoji") - body);
    CHECK_INT(p.in.docs[1].start_offset, strstr(body, "---\nemoji") - body);
    CHECK_INT(p.in.docs[1].end_offset, strstr(body, "...\n") + 3 - body);
    CHECK_INT(p.in.docs[2].start_offset, strstr(body, "---\nx:") - body);
    CHECK_INT(p.in.docs[2].end_offset, strstr(body, "---\ny:") - body);
    CHECK_INT(p.in.docs[3].start_offset, strstr(body, "---\ny:") - body);
    CHECK_INT(p.in.docs[3].end_offset, strlen(body));
    check_slices_reparse(body, &p.in);
    intake_free(&p.in);
}

/* The intake gives Jansson libyaml's text unchecked, so what reaches it must be UTF-8: malformed
 * bodies are refused, and escapes become well-formed text that serializes. */
static void test_text_is_utf8(void)
{
    CHECK_ERROR("a: \xC0\xAF\n", INTAKE_YAML, "invalid length of a UTF-8 sequence"); /* an overlong "/" */
    CHECK_ERROR("a: \xED\xA0\x80\n", INTAKE_YAML, "invalid Unicode character");      /* a surrogate */
    CHECK_ERROR("a: \xF8\x88\x80\x80\x80\n", INTAKE_YAML, "invalid leading UTF-8 octet");
    CHECK_ERROR("a: \xE9\x94\n", INTAKE_YAML, "invalid trailing UTF-8 octet");
    CHECK_ERROR("a: b\xE9", INTAKE_YAML, "incomplete UTF-8 octet sequence");
    CHECK_ERROR("\xC3\xA9\xFF: 1\n", INTAKE_YAML, "invalid leading UTF-8 octet"); /* in a key */
    CHECK_ERROR("a: \"\\ud800\"\n", INTAKE_YAML, "invalid Unicode character escape code");
    static const char utf16[] =
        "\xFF\xFE"
        "a\0:\0 \0"
        "\x00\xD8\n\0"; /* an unpaired surrogate */
    struct intake in;
    struct api_status st = {0};
    CHECK(intake_parse(utf16, sizeof utf16 - 1, INTAKE_YAML, &in, &st) != 0);
    struct parsed p;
    parse_as(&p, "\"k\\xE9\": \"\\x80 \\u00e9 \\U0001F680 \\N \\0 \\x41\"\n", INTAKE_YAML);
    REQUIRE(p.rc == 0);
    static const char want[] = "\xC2\x80 \xC3\xA9 \xF0\x9F\x9A\x80 \xC2\x85 \0 A";
    const json_t *v = json_object_get(p.in.docs[0].root, "k\xC3\xA9");
    REQUIRE(json_is_string(v));
    CHECK_INT(json_string_length(v), sizeof want - 1);
    CHECK(memcmp(json_string_value(v), want, sizeof want - 1) == 0);
    char *dumped = json_dumps(p.in.docs[0].root, JSON_COMPACT);
    CHECK(dumped != NULL);
    free(dumped);
    intake_free(&p.in);
}

static void test_root_must_be_container(void)
{
    CHECK_ERROR("hello\n", INTAKE_YAML, "yaml: the document must be a mapping");
    CHECK_ERROR("42", INTAKE_SNIFF, "yaml: the document must be a mapping");
    CHECK_ERROR("\"quoted\"\n", INTAKE_YAML, "yaml: the document must be a mapping");
    struct parsed p;
    parse_as(&p, "- a\n- b\n", INTAKE_YAML);
    CHECK_INT(p.rc, 0);
    intake_free(&p.in);
}

static void test_empty_body(void)
{
    CHECK_ERROR("", INTAKE_SNIFF, "the request body is empty");
    CHECK_ERROR(" \n\t\r\n", INTAKE_SNIFF, "the request body is empty");
    CHECK_ERROR("", INTAKE_JSON, "the request body is empty");
    CHECK_ERROR("  \n", INTAKE_JSON, "the request body is empty");
    CHECK_ERROR("# only\n   # comments\n", INTAKE_YAML, "the request body is empty");
    CHECK_ERROR("# only\n   # comments\n", INTAKE_SNIFF, "the request body is empty");
    CHECK_ERROR("---\n---\n...\n", INTAKE_YAML, "the request body is empty");
    CHECK_ERROR("--- ~\n--- null\n", INTAKE_YAML, "the request body is empty");
    CHECK_ERROR("\xEF\xBB\xBF\n", INTAKE_SNIFF, "the request body is empty");
    struct intake in;
    struct api_status st = {0};
    CHECK_INT(intake_parse(NULL, 0, INTAKE_SNIFF, &in, &st), -1);
    CHECK_STR(st.message, "the request body is empty");
    CHECK_INT(in.ndocs, 0);
    intake_free(&in);
}

/* --- anchors, aliases, merge keys -------------------------------------------------------------------- */

static void test_anchors_and_aliases(void)
{
    static const char body[] =
        "base: &tmpl\n"          /* 1 */
        "  image: busybox\n"     /* 2 */
        "  ports: [80, 443]\n"   /* 3 */
        "copy: *tmpl\n"          /* 4 */
        "name: &n worker\n"      /* 5 */
        "names: [*n, *n]\n"      /* 6 */
        "list: &l [1, {a: b}]\n" /* 7 */
        "again: *l\n"            /* 8 */
        "*n : keyed by alias\n"; /* 9 */
    struct parsed p;
    parse_as(&p, body, INTAKE_YAML);
    REQUIRE(p.rc == 0);
    const struct intake_doc *doc = &p.in.docs[0];
    json_t *root = doc->root;
    CHECK(same_json(root,
                    "{\"base\": {\"image\": \"busybox\", \"ports\": [80, 443]},"
                    " \"copy\": {\"image\": \"busybox\", \"ports\": [80, 443]},"
                    " \"name\": \"worker\", \"names\": [\"worker\", \"worker\"],"
                    " \"list\": [1, {\"a\": \"b\"}], \"again\": [1, {\"a\": \"b\"}],"
                    " \"worker\": \"keyed by alias\"}"));
    json_t *base = json_object_get(root, "base"), *copy = json_object_get(root, "copy");
    REQUIRE(base && copy);
    /* a deep copy: changing one use leaves the anchor alone */
    CHECK(base != copy);
    CHECK(json_object_get(base, "ports") != json_object_get(copy, "ports"));
    json_object_set_new(copy, "image", json_string("nginx"));
    CHECK_STR(json_string_value(json_object_get(base, "image")), "busybox");
    /* the alias sits where it was written; what it copied points at the anchored text */
    struct intake_pos pos = {0, 0};
    CHECK_POS(intake_member_pos(doc, root, "copy", &pos), pos, 4, 7);
    CHECK_POS(intake_member_pos(doc, copy, "ports", &pos), pos, 3, 10);
    CHECK_POS(intake_index_pos(doc, json_object_get(copy, "ports"), 1, &pos), pos, 3, 15);
    CHECK_POS(intake_index_pos(doc, json_object_get(root, "names"), 1, &pos), pos, 6, 13);
    CHECK_POS(intake_member_pos(doc, json_array_get(json_object_get(root, "again"), 1), "a", &pos), pos, 7, 18);
    intake_free(&p.in);

    /* a later anchor with the same name hides the earlier one */
    parse_as(&p, "a: &x 1\nb: *x\nc: &x 2\nd: *x\n", INTAKE_YAML);
    REQUIRE(p.rc == 0);
    CHECK(same_json(p.in.docs[0].root, "{\"a\": 1, \"b\": 1, \"c\": 2, \"d\": 2}"));
    intake_free(&p.in);

    CHECK_ERROR("a: *nope\n", INTAKE_YAML, "yaml: line 1, column 4: unknown anchor \"nope\" referenced");
    CHECK_ERROR("a: &r [*r]\n", INTAKE_YAML, "unknown anchor \"r\" referenced"); /* no recursion */
}

static void test_merge_keys(void)
{
    static const char body[] =
        "defaults: &d {cpu: 1, memory: 1Gi, image: a}\n" /* 1 */
        "extra: &e {image: b, gpu: 1}\n"                 /* 2 */
        "one:\n"                                         /* 3 */
        "  image: mine\n"                                /* 4 */
        "  <<: *d\n"                                     /* 5 */
        "  cpu: 2\n"                                     /* 6 */
        "two:\n"                                         /* 7 */
        "  <<: [*e, *d]\n"                               /* 8 */
        "three: {<<: {x: 1}, z: 2, y: 3}\n"              /* 9 */
        "four: &f\n"                                     /* 10 */
        "  <<: *d\n"                                     /* 11 */
        "  memory: 2Gi\n"                                /* 12 */
        "five:\n"                                        /* 13 */
        "  <<: *f\n";                                    /* 14 */
    struct parsed p;
    parse_as(&p, body, INTAKE_YAML);
    REQUIRE(p.rc == 0);
    const struct intake_doc *doc = &p.in.docs[0];
    json_t *root = doc->root;
    CHECK(same_json(json_object_get(root, "one"), "{\"image\": \"mine\", \"cpu\": 2, \"memory\": \"1Gi\"}"));
    CHECK(same_json(json_object_get(root, "two"), "{\"image\": \"b\", \"gpu\": 1, \"cpu\": 1, \"memory\": \"1Gi\"}"));
    CHECK(same_json(json_object_get(root, "three"), "{\"z\": 2, \"true\": 3, \"x\": 1}")); /* y is a boolean */
    CHECK(same_json(json_object_get(root, "five"), "{\"memory\": \"2Gi\", \"cpu\": 1, \"image\": \"a\"}"));
    CHECK(json_object_get(json_object_get(root, "one"), "<<") == NULL);
    struct intake_pos pos = {0, 0};
    CHECK_POS(intake_member_pos(doc, json_object_get(root, "one"), "cpu", &pos), pos, 6, 8);
    CHECK_POS(intake_member_pos(doc, json_object_get(root, "one"), "memory", &pos), pos, 1, 31);
    CHECK_POS(intake_member_pos(doc, json_object_get(root, "two"), "gpu", &pos), pos, 2, 27);
    /* merged from a copy of a mapping that had merged: the text where each value was written */
    CHECK_POS(intake_member_pos(doc, json_object_get(root, "five"), "memory", &pos), pos, 12, 11);
    CHECK_POS(intake_member_pos(doc, json_object_get(root, "five"), "cpu", &pos), pos, 1, 20);
    intake_free(&p.in);

    CHECK_ERROR("a: &s [1]\nb:\n  <<: *s\n", INTAKE_YAML,
                "line 1, column 8: a merge key (<<) sequence may only hold mappings");
    CHECK_ERROR("b:\n  <<: 5\n", INTAKE_YAML,
                "line 2, column 7: the value of a merge key (<<) must be a mapping or a sequence of mappings");
    CHECK_ERROR("b:\n  <<: {a: 1}\n  <<: {b: 2}\n", INTAKE_YAML,
                "line 3, column 3: mapping key \"<<\" already defined at line 2");
}

static void test_alias_bomb(void)
{
    /* nine levels of ten aliases: a billion values from a few hundred bytes */
    static const char bomb[] =
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
        "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
        "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
        "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
        "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
        "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
        "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
        "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
        "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n";
    CHECK_ERROR(bomb, INTAKE_YAML, "the YAML expands to more than 1000000 values");

    /* a long string copied many times trips the text limit long before the value limit */
    struct sbuf big = {0};
    sbuf_puts(&big, "s: &s \"");
    for (int i = 0; i < 70000; i++)
        sbuf_append(&big, "x", 1);
    sbuf_puts(&big, "\"\nl: [*s");
    for (int i = 0; i < 300; i++)
        sbuf_puts(&big, ", *s");
    sbuf_puts(&big, "]\n");
    REQUIRE(!big.failed);
    CHECK_ERROR(sbuf_str(&big), INTAKE_YAML, "aliases expand to more than 16777216 bytes of text");
    sbuf_free(&big);

    /* modest reuse is fine */
    struct parsed p;
    parse_as(&p, "a: &a [1, 2, 3]\nb: &b [*a, *a, *a]\nc: [*b, *b]\n", INTAKE_YAML);
    CHECK_INT(p.rc, 0);
    intake_free(&p.in);
}

/* depth mappings inside each other, in flow ("{a: {a: 1}}") or block style; NULL when out of memory. */
static char *nested(int depth, bool flow)
{
    struct sbuf b = {0};
    for (int i = 0; i < depth; i++) {
        if (flow)
            sbuf_puts(&b, "{a: ");
        else
            sbuf_printf(&b, "%*sa:\n", 2 * i, "");
    }
    if (flow)
        sbuf_puts(&b, "1");
    else
        sbuf_printf(&b, "%*s1\n", 2 * depth, "");
    for (int i = 0; flow && i < depth; i++)
        sbuf_append(&b, "}", 1);
    return sbuf_take(&b);
}

static void test_depth_limit(void)
{
    for (int flow = 0; flow < 2; flow++) {
        char *ok = nested(64, flow), *deep = nested(65, flow);
        REQUIRE(ok && deep);
        struct parsed p;
        parse_as(&p, ok, INTAKE_YAML);
        CHECK_INT(p.rc, 0);
        intake_free(&p.in);
        CHECK_ERROR(deep, INTAKE_YAML, "nesting deeper than 64 levels");
        free(ok);
        free(deep);
    }
    /* an alias cannot carry a deep value deeper still: 40 levels anchored, used 30 levels down */
    char *anchored = nested(40, true), *shallow = nested(30, true);
    REQUIRE(anchored && shallow);
    char *hole = strchr(shallow, '1');
    *hole = '\0';
    struct sbuf body = {0};
    sbuf_printf(&body, "x: &x %s\ny: %s*x%s\n", anchored, shallow, hole + 1);
    REQUIRE(!body.failed);
    CHECK_ERROR(sbuf_str(&body), INTAKE_YAML, "nesting deeper than 64 levels");
    sbuf_free(&body);
    free(shallow);
    free(anchored);
}

/* --- syntax errors ---------------------------------------------------------------------------------- */

static void test_yaml_syntax_errors(void)
{
    CHECK_ERROR("a: 1\n b: 2\n", INTAKE_YAML, "yaml: line 2, column 3: mapping values are not allowed in this context");
    CHECK_ERROR(
        "a:\n  b: 1\n  c: [1, 2\n", INTAKE_YAML,
        "yaml: line 4, column 1: did not find expected ',' or ']' while parsing a flow sequence that started at "
        "line 3, column 6");
    CHECK_ERROR("a: \"abc\n", INTAKE_YAML, "found unexpected end of stream while scanning a quoted scalar");
    CHECK_ERROR("a:\n  - b\n  c: d\n", INTAKE_YAML, "line 3, column 3: did not find expected '-' indicator");
    CHECK_ERROR("a: b\xff\n", INTAKE_YAML, "yaml: line 1, column 5: invalid leading UTF-8 octet");
    CHECK_ERROR("a: [1, 2]]\n", INTAKE_SNIFF, "yaml: line 1, column 10");
}

static void test_tabs(void)
{
    CHECK_ERROR("a:\n\tb: 1\n", INTAKE_YAML, "yaml: line 2, column 1: found character that cannot start any token");
    CHECK_ERROR("spec:\n  tasks:\n\t- name: a\n", INTAKE_YAML,
                "yaml: line 3, column 1: found character that cannot start any token");
    /* tabs inside values and after the indentation are fine */
    struct parsed p;
    parse_as(&p, "a: \"x\\ty\"\nb: c\td\n", INTAKE_YAML);
    REQUIRE(p.rc == 0);
    CHECK(same_json(p.in.docs[0].root, "{\"a\": \"x\\ty\", \"b\": \"c\\td\"}"));
    intake_free(&p.in);
}

/* A case from a production job file: `replicas` is indented more than `name` in the same sequence item. A plain
 * scalar may continue on more-indented lines, so libyaml reads "simulation1 replicas" as one value of
 * `name` and fails at the ':' after it: line 9, the line where the structure breaks for the user. */
static void test_seed_bad_indentation(void)
{
    static const char body[] =
        "apiVersion: batch.volcano.sh/v1alpha1\n"
        "kind: Job\n"
        "metadata:\n"
        "    name: awesome-job\n"
        "spec:\n"
        "    minAvailable: 1\n"
        "    tasks:\n"
        "    - name: simulation1\n"
        "        replicas: 1\n"
        "        template:\n"
        "            spec:\n"
        "                restartPolicy: Never\n";
    CHECK_ERROR(body, INTAKE_YAML, "yaml: line 9, column 17: mapping values are not allowed in this context");
    CHECK_ERROR(body, INTAKE_SNIFF, "yaml: line 9, column 17: mapping values are not allowed in this context");
}

/* --- JSON ------------------------------------------------------------------------------------------- */

static void test_json(void)
{
    struct parsed p;
    parse_as(&p, "\n\n  {\"kind\": \"Job\", \"spec\": {\"replicas\": 2, \"cpu\": 0.5}}\n", INTAKE_JSON);
    REQUIRE(p.rc == 0 && p.in.ndocs == 1);
    CHECK(same_json(p.in.docs[0].root, "{\"kind\": \"Job\", \"spec\": {\"replicas\": 2, \"cpu\": 0.5}}"));
    CHECK_INT(p.in.docs[0].first_line, 3);
    CHECK_INT(p.in.docs[0].start_offset, 0);
    CHECK_INT(p.in.docs[0].end_offset,
              strlen("\n\n  {\"kind\": \"Job\", \"spec\": {\"replicas\": 2, \"cpu\": 0.5}}\n"));
    intake_free(&p.in);

    parse_as(&p, "\xEF\xBB\xBF[1, 2]", INTAKE_JSON);
    CHECK_INT(p.rc, 0);
    intake_free(&p.in);

    CHECK_ERROR("{\n  \"a\": 1,\n  \"b\": 2,\n}\n", INTAKE_JSON, "json: line 4, column 1: ");
    CHECK_ERROR("{\"a\": 1 \"b\": 2}", INTAKE_JSON, "json: line 1, column 11: '}' expected near '\"b\"'");
    CHECK_ERROR("{\"a\": 1, \"a\": 2}", INTAKE_JSON, "duplicate object key");
    CHECK_ERROR("\"just a string\"", INTAKE_JSON, "json: the body must be a JSON object");
    CHECK_ERROR("42", INTAKE_JSON, "json: the body must be a JSON object");
    CHECK_ERROR("{\"a\": 1} {\"b\": 2}", INTAKE_JSON, "json: line 1, column");
}

static void test_sniffing(void)
{
    /* '{' or '[' first: JSON, so Jansson's errors and rules apply */
    CHECK_ERROR(" \n\t{\"a\": 1, \"a\": 2}", INTAKE_SNIFF, "json: ");
    CHECK_ERROR("[1, 2", INTAKE_SNIFF, "json: ");
    CHECK_ERROR("\xEF\xBB\xBF{\"a\": 1,}", INTAKE_SNIFF, "json: ");
    /* anything else: YAML, which also reads JSON-looking flow text after a comment */
    struct parsed p;
    parse_as(&p, "# a comment\n{a: 1, b: yes}\n", INTAKE_SNIFF);
    REQUIRE(p.rc == 0);
    CHECK(same_json(p.in.docs[0].root, "{\"a\": 1, \"b\": true}"));
    intake_free(&p.in);
    CHECK_ERROR("a: 1\na: 2\n", INTAKE_SNIFF, "yaml: line 2");
    /* an explicit format wins over the first byte */
    parse_as(&p, "{a: 1}", INTAKE_YAML);
    CHECK_INT(p.rc, 0);
    intake_free(&p.in);
    CHECK_ERROR("a: 1", INTAKE_JSON, "json: line 1");
}

/* --- scalar text ------------------------------------------------------------------------------------ */

static void check_text(json_t *v, const char *want, int line)
{
    char buf[64];
    bool ok = intake_scalar_text(v, buf, sizeof buf);
    if (!want && ok)
        test_fail(__FILE__, line, "text \"%s\", expected none", buf);
    else if (want && (!ok || strcmp(buf, want) != 0))
        test_fail(__FILE__, line, "text \"%s\", expected \"%s\"", ok ? buf : "(none)", want);
    json_decref(v);
}
#define CHECK_TEXT(v, want) check_text(v, want, __LINE__)

static void test_scalar_text(void)
{
    CHECK_TEXT(json_string("500m"), "500m");
    CHECK_TEXT(json_string(""), "");
    CHECK_TEXT(json_integer(-42), "-42");
    CHECK_TEXT(json_integer(9223372036854775807LL), "9223372036854775807");
    CHECK_TEXT(json_integer(-9223372036854775807LL - 1), "-9223372036854775808");
    CHECK_TEXT(json_integer(0), "0");
    CHECK_TEXT(json_integer(7), "7");
    CHECK_TEXT(json_real(0.5), "0.5");
    CHECK_TEXT(json_real(2000.0), "2000");
    CHECK_TEXT(json_real(1e21), "1e+21");
    CHECK_TEXT(json_real(0.1), "0.1");
    CHECK_TEXT(json_real(1.0 / 3.0), "0.3333333333333333");
    CHECK_TEXT(json_real(0.1 + 0.2), "0.30000000000000004");
    CHECK_TEXT(json_real(-1.5e-7), "-1.5e-07");
    CHECK_TEXT(json_true(), NULL);
    CHECK_TEXT(json_false(), NULL);
    CHECK_TEXT(json_null(), NULL);
    CHECK_TEXT(json_object(), NULL);
    CHECK_TEXT(json_array(), NULL);
    CHECK_TEXT(json_stringn("a\0b", 3), NULL);
    CHECK(!intake_scalar_text(NULL, NULL, 0));

    char small[4];
    json_t *s = json_string("1.5Gi");
    CHECK(!intake_scalar_text(s, small, sizeof small));
    CHECK(intake_scalar_text(s, small, 0) == false);
    json_decref(s);
    json_t *fits = json_string("1Gi");
    CHECK(intake_scalar_text(fits, small, sizeof small));
    CHECK_STR(small, "1Gi");
    json_decref(fits);
    json_t *num = json_integer(-100);
    CHECK(!intake_scalar_text(num, small, sizeof small)); /* four characters and the NUL */
    json_decref(num);
    num = json_integer(100);
    CHECK(intake_scalar_text(num, small, sizeof small));
    CHECK_STR(small, "100");
    json_decref(num);

    /* YAML numbers come back as the text a quantity parser expects */
    struct parsed p;
    parse_as(&p, "cpu: 0.5\nmemory: 1e3\nreplicas: 0x10\n", INTAKE_YAML);
    REQUIRE(p.rc == 0);
    char buf[32];
    json_t *root = p.in.docs[0].root;
    CHECK(intake_scalar_text(json_object_get(root, "cpu"), buf, sizeof buf));
    CHECK_STR(buf, "0.5");
    CHECK(intake_scalar_text(json_object_get(root, "memory"), buf, sizeof buf));
    CHECK_STR(buf, "1000");
    CHECK(intake_scalar_text(json_object_get(root, "replicas"), buf, sizeof buf));
    CHECK_STR(buf, "16");
    intake_free(&p.in);
}

TEST_MAIN(TEST_CASE(test_scalar_resolution), TEST_CASE(test_scalar_errors), TEST_CASE(test_unknown_tags),
          TEST_CASE(test_keys), TEST_CASE(test_duplicate_keys), TEST_CASE(test_positions),
          TEST_CASE(test_positions_count_characters), TEST_CASE(test_multi_document),
          TEST_CASE(test_offsets_with_bom_and_crlf), TEST_CASE(test_inner_bom_refused),
          TEST_CASE(test_offsets_across_long_lines), TEST_CASE(test_text_is_utf8),
          TEST_CASE(test_root_must_be_container), TEST_CASE(test_empty_body), TEST_CASE(test_anchors_and_aliases),
          TEST_CASE(test_merge_keys), TEST_CASE(test_alias_bomb), TEST_CASE(test_depth_limit),
          TEST_CASE(test_yaml_syntax_errors), TEST_CASE(test_tabs), TEST_CASE(test_seed_bad_indentation),
          TEST_CASE(test_json), TEST_CASE(test_sniffing), TEST_CASE(test_scalar_text))
