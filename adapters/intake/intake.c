/* Request bodies in, JSON documents out: picks JSON or YAML, refuses empty bodies, reads JSON with
 * Jansson, and answers the validators' position lookups and scalar-to-text questions. */
#include "adapters/intake/intake.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/internal.h"
#include "common/free_later.h"

/* Bodies from this size on are read into an arena (the fuzzers build with 0, to cover it). */
#ifndef INTAKE_ARENA_MIN_BODY
#define INTAKE_ARENA_MIN_BODY ((size_t)128 << 10)
#endif
static const size_t arena_min_body = INTAKE_ARENA_MIN_BODY;

static size_t utf8_bom_len(const char *data, size_t len)
{
    return len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* Index of the first byte that is not a BOM or blank (len when there is none). */
static size_t first_content(const char *data, size_t len)
{
    size_t i = data ? utf8_bom_len(data, len) : 0;
    while (i < len && is_blank(data[i]))
        i++;
    return i;
}

static int line_at(const char *data, size_t offset)
{
    int line = 1;
    for (size_t i = 0; i < offset; i++)
        line += data[i] == '\n';
    return line;
}

static enum intake_format sniff(const char *data, size_t len)
{
    size_t i = first_content(data, len);
    return i < len && (data[i] == '{' || data[i] == '[') ? INTAKE_JSON : INTAKE_YAML;
}

static int parse_json(const char *data, size_t len, struct intake *out, struct api_status *err)
{
    size_t bom = utf8_bom_len(data, len); /* RFC 8259 lets parsers ignore one; Jansson does not */
    json_error_t jerr;
    json_t *root = json_read_in_parts(data, len, bom);
    if (!root)
        root = json_loadb(data + bom, len - bom, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (!root && json_error_code(&jerr) == json_error_out_of_memory)
        return api_fail(err, 500, "InternalError", "json: out of memory");
    if (!root)
        return api_fail(err, 400, "BadRequest", "json: line %d, column %d: %s", jerr.line, jerr.column, jerr.text);
    if (!json_is_object(root) && !json_is_array(root)) {
        json_decref(root);
        return api_fail(err, 400, "BadRequest", "json: the body must be a JSON object");
    }
    out->docs = calloc(1, sizeof *out->docs);
    if (!out->docs) {
        json_decref(root);
        return api_fail(err, 500, "InternalError", "json: out of memory");
    }
    out->ndocs = 1;
    out->docs[0] = (struct intake_doc){
        .root = root, .first_line = line_at(data, first_content(data, len)), .start_offset = 0, .end_offset = len};
    return 0;
}

int intake_parse(const char *data, size_t len, enum intake_format fmt, struct intake *out, struct api_status *err)
{
    *out = (struct intake){0};
    if (!data)
        len = 0;
    if (first_content(data, len) == len)
        return api_fail(err, 400, "BadRequest", "the request body is empty");
    if (fmt == INTAKE_SNIFF)
        fmt = sniff(data, len);
    /* A big body's values come from an arena: fewer, denser allocations, and freeing them costs
     * little more than the walk (smaller ones would waste most of a 1 MiB chunk for as long as a job
     * keeps its manifest). */
    struct doc_arena *arena = len >= arena_min_body ? doc_arena_open() : NULL;
    int rc = fmt == INTAKE_JSON ? parse_json(data, len, out, err) : intake_parse_yaml(data, len, out, err);
    doc_arena_close(arena);
    if (rc == 0 && out->ndocs == 0) /* only comments, "---" separators or null documents */
        rc = api_fail(err, 400, "BadRequest", "the request body is empty");
    if (rc != 0)
        intake_free(out);
    return rc;
}

void intake_free(struct intake *in)
{
    for (int i = 0; i < in->ndocs; i++)
        pos_free_all(&in->docs[i].positions);
    /* A big document's tree, when this is its last reference, is walked on free_later's thread; any
     * other is dropped here, in a batch (one atomic step for an arena's count, not one per value). */
    for (int i = 0; i < in->ndocs; i++)
        json_decref_later(in->docs[i].root);
    free(in->docs);
    *in = (struct intake){0};
}

bool intake_member_pos(const struct intake_doc *doc, const json_t *object, const char *key, struct intake_pos *pos)
{
    return pos_find_member(&doc->positions, object, key, pos, NULL);
}

bool intake_key_pos(const struct intake_doc *doc, const json_t *object, const char *key, struct intake_pos *pos)
{
    return pos_find_member(&doc->positions, object, key, NULL, pos);
}

bool intake_index_pos(const struct intake_doc *doc, const json_t *array, size_t index, struct intake_pos *pos)
{
    return pos_find_index(&doc->positions, array, index, pos);
}

bool intake_node_pos(const struct intake_doc *doc, const json_t *node, struct intake_pos *pos)
{
    return pos_find_node(&doc->positions, node, pos);
}

/* The decimal text of i, NUL-terminated, ending just before end; returns where it starts. */
static const char *decimal(json_int_t i, char *end)
{
    uint64_t u = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
    char *p = end;
    *--p = '\0';
    do
        *--p = (char)('0' + u % 10);
    while ((u /= 10) > 0);
    if (i < 0)
        *--p = '-';
    return p;
}

bool intake_scalar_text(const json_t *v, char *buf, size_t len)
{
    char tmp[64];
    const char *text = tmp;
    size_t n;
    if (!v)
        return false;
    switch (json_typeof(v)) {
    case JSON_STRING:
        text = json_string_value(v);
        n = json_string_length(v);
        if (memchr(text, '\0', n)) /* would read back as a shorter, different string */
            return false;
        break;
    case JSON_INTEGER: /* "%lld" by hand: quantities are read this way, one per resource of every task */
        text = decimal(json_integer_value(v), tmp + sizeof tmp);
        n = (size_t)(tmp + sizeof tmp - 1 - text);
        break;
    case JSON_REAL:
        format_real(json_real_value(v), tmp, sizeof tmp);
        n = strlen(tmp);
        break;
    default: return false;
    }
    if (n >= len)
        return false;
    memcpy(buf, text, n + 1);
    return true;
}
