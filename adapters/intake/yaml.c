/* The YAML reader: libyaml's event stream turned into json_t documents through a stack of open
 * containers, recording where every value was written, under limits on depth and alias expansion. */
#include "adapters/intake/internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "adapters/intake/yaml_builder.h"
#include "common/grow.h"

/* Where a mark is in the body: a piece's lines come after the body's before it, and the lines after a
 * cut-out run come after the run's. */
static struct intake_pos pos_of(const struct builder *b, yaml_mark_t m)
{
    int line = (int)m.line + 1 + (m.index >= b->lines_added_from ? b->lines_added : 0);
    return (struct intake_pos){line, (int)m.column + 1};
}

static int fail_at(struct builder *b, struct intake_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(struct builder *b, struct intake_pos pos, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return api_fail(b->err, 400, "BadRequest", "yaml: line %d, column %d: %s", pos.line, pos.column, msg);
}

static int fail_oom(struct builder *b) { return api_fail(b->err, 500, "InternalError", "yaml: out of memory"); }

static struct frame *open_frame(struct builder *b) { return b->depth ? &b->stack[b->depth - 1] : NULL; }

/* True when the next node of the open mapping is a key rather than a value. */
static bool expecting_key(const struct frame *f) { return f && f->mapping && !f->have_key; }

/* --- byte offsets ---------------------------------------------------------------------------------- */

enum encoding body_encoding(const char *data, size_t len, size_t *bom_len)
{
    const unsigned char *p = (const unsigned char *)data;
    *bom_len = 0;
    if (len >= 2 && p[0] == 0xFF && p[1] == 0xFE) {
        *bom_len = 2;
        return ENC_UTF16LE;
    }
    if (len >= 2 && p[0] == 0xFE && p[1] == 0xFF) {
        *bom_len = 2;
        return ENC_UTF16BE;
    }
    if (len >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF)
        *bom_len = 3;
    return ENC_UTF8;
}

static void detect_encoding(struct builder *b)
{
    b->encoding = body_encoding(b->data, b->len, &b->bom_len);
    b->cursor_chars = 0;
    b->cursor_bytes = b->bom_len;
}

static size_t char_width(const struct builder *b, size_t at)
{
    const unsigned char *p = (const unsigned char *)b->data + at;
    if (b->encoding == ENC_UTF8)
        return *p < 0xC0 ? 1 : *p >= 0xF0 ? 4 : *p >= 0xE0 ? 3 : 2;
    if (at + 1 >= b->len)
        return 2;
    unsigned high = b->encoding == ENC_UTF16LE ? p[1] : p[0];
    return high >= 0xD8 && high <= 0xDB ? 4 : 2; /* a surrogate pair is one character */
}

/* True when the n bytes at p (a multiple of eight) are ASCII: n characters of a UTF-8 body. */
static bool ascii_run(const char *p, size_t n)
{
    uint64_t any = 0;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t word;
        memcpy(&word, p + i, sizeof word);
        any |= word;
    }
    return (any & 0x8080808080808080ull) == 0;
}

/* Marks come in increasing order, so a cursor makes the conversion linear over the whole body; runs
 * of ASCII in a UTF-8 body are crossed 64, then eight bytes at a step. */
static size_t byte_offset(struct builder *b, size_t chars)
{
    if (chars < b->cursor_chars) {
        b->cursor_chars = 0;
        b->cursor_bytes = b->bom_len;
    }
    while (b->cursor_chars < chars && b->cursor_bytes < b->len) {
        size_t left = chars - b->cursor_chars, room = b->len - b->cursor_bytes;
        size_t step = b->encoding != ENC_UTF8 ? 0 : left >= 64 && room >= 64 ? 64 : left >= 8 && room >= 8 ? 8 : 0;
        if (step == 64 && !ascii_run(b->data + b->cursor_bytes, 64))
            step = 8;
        if (step && ascii_run(b->data + b->cursor_bytes, step)) {
            b->cursor_chars += step;
            b->cursor_bytes += step;
            continue;
        }
        b->cursor_bytes += char_width(b, b->cursor_bytes);
        b->cursor_chars++;
    }
    return b->cursor_bytes < b->len ? b->cursor_bytes : b->len;
}

/* The same in the whole body, when this text had a run cut out of it (yaml_parts.c). */
static size_t body_offset(struct builder *b, size_t chars)
{
    size_t at = byte_offset(b, chars);
    return at >= b->offset_added_from ? at + b->offset_added : at;
}

/* Reader errors (bad encoding) come as a byte offset; count lines up to it. */
static struct intake_pos pos_of_byte(const struct builder *b, size_t offset)
{
    struct intake_pos pos = {1, 1};
    for (size_t i = 0; i < offset && i < b->len; i++) {
        if (b->data[i] == '\n') {
            pos.line++;
            pos.column = 1;
        } else {
            pos.column++;
        }
    }
    return pos;
}

/* --- anchors and aliases --------------------------------------------------------------------------- */

static int remember_anchor(struct builder *b, const char *name, json_t *value, size_t values, size_t bytes)
{
    return anchor_set(&b->anchors, name, value, values, bytes) == 0 ? 0 : fail_oom(b);
}

int builder_count_values(struct builder *b, size_t n, struct intake_pos pos)
{
    if (n > MAX_VALUES - b->values)
        return fail_at(b, pos, "the YAML expands to more than %d values (too many aliases?)", MAX_VALUES);
    b->values += n;
    return 0;
}

/* --- keys ------------------------------------------------------------------------------------------ */

static int take_merge_key(struct builder *b, struct frame *f, struct intake_pos pos)
{
    if (f->has_merge)
        return fail_at(b, pos, "mapping key \"<<\" already defined at line %d", f->merge_key_pos.line);
    f->has_merge = f->have_key = f->key_is_merge = true;
    f->merge_key_pos = pos;
    return 0;
}

static void drop_key(struct frame *f)
{
    if (f->key != f->key_inline)
        free(f->key);
    f->key = NULL;
}

static int take_key(struct builder *b, struct frame *f, const char *text, size_t len, struct intake_pos pos)
{
    if (memchr(text, '\0', len))
        return fail_at(b, pos, "mapping keys must not contain NUL characters");
    f->key = len < sizeof f->key_inline ? f->key_inline : malloc(len + 1);
    if (!f->key)
        return fail_oom(b);
    memcpy(f->key, text, len);
    f->key[len] = '\0';
    f->key_len = len;
    if (json_object_getn(f->node, f->key, len)) {
        struct intake_pos first = {0, 0};
        pos_find_member(&b->doc.positions, f->node, f->key, NULL, &first);
        fail_at(b, pos, "mapping key \"%.200s\" already defined at line %d", f->key, first.line);
        drop_key(f);
        return -1;
    }
    f->key_pos = pos;
    f->have_key = true;
    return 0;
}

/* Plain keys that resolve to other types become their text the way sigs.k8s.io/yaml writes them:
 * `1:` is "1", `0x10:` is "16", `yes:` is "true". */
static int take_scalar_key(struct builder *b, struct frame *f, const struct yscalar *sc, struct intake_pos pos)
{
    char buf[64];
    switch (sc->kind) {
    case YS_STRING: return take_key(b, f, sc->text, sc->len, pos);
    case YS_MERGE: return take_merge_key(b, f, pos);
    case YS_NULL: return fail_at(b, pos, "a mapping key must not be null");
    case YS_BOOL: snprintf(buf, sizeof buf, "%s", sc->boolean ? "true" : "false"); break;
    case YS_INT: snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, sc->integer); break;
    case YS_REAL: format_real(sc->real, buf, sizeof buf); break;
    case YS_NONFINITE:
        snprintf(buf, sizeof buf, "%s", sc->real != sc->real ? ".nan" : sc->real > 0 ? ".inf" : "-.inf");
        break;
    }
    return take_key(b, f, buf, strlen(buf), pos);
}

static int take_alias_key(struct builder *b, struct frame *f, const json_t *value, struct intake_pos pos)
{
    char buf[64];
    switch (json_typeof(value)) {
    case JSON_STRING: return take_key(b, f, json_string_value(value), json_string_length(value), pos);
    case JSON_INTEGER: snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(value)); break;
    case JSON_REAL: format_real(json_real_value(value), buf, sizeof buf); break;
    case JSON_TRUE:
    case JSON_FALSE: snprintf(buf, sizeof buf, "%s", json_is_true(value) ? "true" : "false"); break;
    case JSON_NULL: return fail_at(b, pos, "a mapping key must not be null");
    default:
        return fail_at(b, pos, "a mapping key must be a scalar, not a %s",
                       json_is_object(value) ? "mapping" : "sequence");
    }
    return take_key(b, f, buf, strlen(buf), pos);
}

/* --- values ---------------------------------------------------------------------------------------- */

/* Hands value (a new reference, NULL when allocation failed) to whatever waits for it: the document,
 * the open sequence, or the open mapping's pending key. Keys and strings go to Jansson unchecked:
 * libyaml hands out UTF-8 only (its reader refuses malformed input and unpaired surrogates, and
 * escapes become the code points they name), so Jansson's own check would only repeat it. */
static int attach(struct builder *b, json_t *value, struct intake_pos pos)
{
    if (!value)
        return fail_oom(b);
    struct frame *f = open_frame(b);
    if (!f) {
        b->doc.root = value;
        b->root_pos = pos;
        return 0;
    }
    int rc = 0;
    if (b->piece && parts_attach_top(b, value, pos, &rc))
        return rc;
    if (!f->mapping) {
        size_t index = json_array_size(f->node);
        if (json_array_append_new(f->node, value) != 0 || pos_record_index(&b->doc.positions, f->node, index, pos) != 0)
            return fail_oom(b);
        return 0;
    }
    if (f->key_is_merge) {
        f->merge = value;
        f->merge_pos = pos;
    } else if (json_object_setn_new_nocheck(f->node, f->key, f->key_len, value) != 0 ||
               pos_record_member_n(&b->doc.positions, f->node, f->key, f->key_len, pos, f->key_pos) != 0) {
        rc = fail_oom(b);
    }
    drop_key(f);
    f->have_key = f->key_is_merge = false;
    return rc;
}

static int make_value(struct builder *b, const struct yscalar *sc, struct intake_pos pos, json_t **out)
{
    *out = NULL;
    switch (sc->kind) {
    case YS_NULL: *out = json_null(); break;
    case YS_BOOL: *out = json_boolean(sc->boolean); break;
    case YS_INT: *out = json_integer(sc->integer); break;
    case YS_REAL: *out = json_real(sc->real); break;
    case YS_NONFINITE: return fail_at(b, pos, "%.*s is not a valid JSON number", (int)sc->len, sc->text);
    case YS_STRING:
    case YS_MERGE:                                      /* "<<" as a value is just text */
        *out = json_stringn_nocheck(sc->text, sc->len); /* UTF-8 already: see attach() */
        break;
    }
    return *out ? 0 : fail_oom(b);
}

static int on_scalar(struct builder *b, const yaml_event_t *ev)
{
    struct intake_pos pos = pos_of(b, ev->start_mark);
    const char *text = (const char *)ev->data.scalar.value, *anchor = (const char *)ev->data.scalar.anchor;
    size_t len = ev->data.scalar.length;
    struct yscalar sc;
    char why[256] = "";
    if (yscalar_resolve((const char *)ev->data.scalar.tag, text, len, ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE,
                        &sc, why, sizeof why) != 0)
        return why[0] ? fail_at(b, pos, "%s", why) : fail_oom(b);
    b->bytes += len;
    struct frame *f = open_frame(b);
    if (expecting_key(f) && !anchor)
        return take_scalar_key(b, f, &sc, pos);
    json_t *value;
    if (make_value(b, &sc, pos, &value) != 0)
        return -1;
    int rc = anchor ? remember_anchor(b, anchor, value, 1, len) : 0;
    if (rc == 0 && expecting_key(f)) { /* an anchored key: later aliases get the value, the map the text */
        json_decref(value);
        return take_scalar_key(b, f, &sc, pos);
    }
    if (rc == 0)
        rc = builder_count_values(b, 1, pos);
    if (rc != 0) {
        json_decref(value);
        return -1;
    }
    return attach(b, value, pos);
}

static int on_alias(struct builder *b, const yaml_event_t *ev)
{
    struct intake_pos pos = pos_of(b, ev->start_mark);
    const char *name = (const char *)ev->data.alias.anchor;
    const struct anchor *a = anchor_get(&b->anchors, name);
    if (!a)
        return fail_at(b, pos, "unknown anchor \"%.200s\" referenced", name);
    struct frame *f = open_frame(b);
    if (expecting_key(f))
        return take_alias_key(b, f, a->value, pos);
    if (builder_count_values(b, a->values, pos) != 0)
        return -1;
    if (a->bytes > MAX_ALIAS_BYTES - b->alias_bytes)
        return fail_at(b, pos, "aliases expand to more than %zu bytes of text", MAX_ALIAS_BYTES);
    b->alias_bytes += a->bytes;
    b->bytes += a->bytes;
    enum alias_result why;
    json_t *copy = alias_copy(&b->doc.positions, a, b->depth + 1, &why);
    if (!copy && why == ALIAS_TOO_DEEP)
        return fail_at(b, pos, "nesting deeper than %d levels", MAX_DEPTH);
    return attach(b, copy, pos); /* NULL: out of memory */
}

static int on_start(struct builder *b, const yaml_event_t *ev, bool mapping)
{
    struct intake_pos pos = pos_of(b, ev->start_mark);
    const char *anchor = (const char *)(mapping ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor);
    const char *tag = (const char *)(mapping ? ev->data.mapping_start.tag : ev->data.sequence_start.tag);
    char why[256];
    if (expecting_key(open_frame(b)))
        return fail_at(b, pos, "a mapping key must be a scalar, not a %s", mapping ? "mapping" : "sequence");
    if (ytag_check_collection(tag, mapping, why, sizeof why) != 0)
        return fail_at(b, pos, "%s", why);
    if (b->depth == MAX_DEPTH)
        return fail_at(b, pos, "nesting deeper than %d levels", MAX_DEPTH);
    size_t values_at_start = b->values, bytes_at_start = b->bytes;
    if (builder_count_values(b, 1, pos) != 0)
        return -1;
    json_t *node = mapping ? json_object() : json_array();
    bool piece_top = b->piece && b->depth == 0; /* a piece's top sequence is not the document's */
    if (!node || (!piece_top && pos_record_node(&b->doc.positions, node, pos) != 0)) {
        json_decref(node);
        return fail_oom(b);
    }
    char *anchor_copy = anchor ? strdup(anchor) : NULL;
    if (attach(b, node, pos) != 0) {
        free(anchor_copy);
        return -1;
    }
    if (anchor && !anchor_copy)
        return fail_oom(b);
    bool flow = mapping ? ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
                        : ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
    b->stack[b->depth++] = (struct frame){.node = node,
                                          .mapping = mapping,
                                          .flow = flow,
                                          .column = (int)ev->start_mark.column,
                                          .anchor = anchor_copy,
                                          .values_at_start = values_at_start,
                                          .bytes_at_start = bytes_at_start};
    return 0;
}

static int apply_merge(struct builder *b, struct frame *f)
{
    if (!f->has_merge)
        return 0;
    size_t bad = 0;
    struct intake_pos pos = f->merge_pos;
    switch (merge_apply(&b->doc.positions, f->node, f->merge, &bad)) {
    case ALIAS_OK: return 0;
    case ALIAS_NOT_MAPPINGS:
        return fail_at(b, pos, "the value of a merge key (<<) must be a mapping or a sequence of mappings");
    case ALIAS_NOT_MAPPING_ITEM:
        pos_find_index(&b->doc.positions, f->merge, bad, &pos);
        return fail_at(b, pos, "a merge key (<<) sequence may only hold mappings");
    default: return fail_oom(b);
    }
}

static void frame_release(struct frame *f)
{
    drop_key(f);
    free(f->anchor);
    json_decref(f->merge);
    *f = (struct frame){0};
}

static int on_end(struct builder *b)
{
    struct frame *f = &b->stack[b->depth - 1];
    int rc = f->mapping ? apply_merge(b, f) : 0;
    if (rc == 0 && f->anchor)
        rc = remember_anchor(b, f->anchor, f->node, b->values - f->values_at_start, b->bytes - f->bytes_at_start);
    frame_release(f);
    b->depth--;
    return rc;
}

/* --- documents ------------------------------------------------------------------------------------- */

static void discard_doc(struct builder *b)
{
    pos_free_all(&b->doc.positions);
    json_decref(b->doc.root);
    b->doc = (struct intake_doc){0};
}

static int on_document_start(struct builder *b, const yaml_event_t *ev)
{
    discard_doc(b);
    b->doc.first_line = pos_of(b, ev->start_mark).line;
    /* From the start of the line, so a slice of an indented document still parses. */
    b->doc.start_offset = body_offset(b, ev->start_mark.index - ev->start_mark.column);
    return 0;
}

static int push_doc(struct builder *b)
{
    struct intake *out = b->out;
    if (GROW(out->docs, b->docs_cap, (size_t)out->ndocs + 1, 4) != 0)
        return fail_oom(b);
    out->docs[out->ndocs++] = b->doc;
    b->doc = (struct intake_doc){0};
    return 0;
}

/* Documents that are empty or null are skipped, as kubectl skips them. */
static int on_document_end(struct builder *b, const yaml_event_t *ev)
{
    anchors_clear(&b->anchors); /* anchors do not reach across documents */
    json_t *root = b->doc.root;
    if (!root || json_is_null(root)) {
        discard_doc(b);
        return 0;
    }
    if (!json_is_object(root) && !json_is_array(root))
        return api_fail(b->err, 400, "BadRequest",
                        "yaml: the document must be a mapping, not a scalar (line %d, column %d)", b->root_pos.line,
                        b->root_pos.column);
    b->doc.end_offset = body_offset(b, ev->end_mark.index);
    return push_doc(b);
}

/* libyaml's own errors: the problem where it was found, and what was being read when it started. */
static int fail_parser(struct builder *b)
{
    const yaml_parser_t *p = &b->parser;
    if (p->error == YAML_MEMORY_ERROR)
        return fail_oom(b);
    const char *problem = p->problem ? p->problem : "unknown problem parsing YAML content";
    if (p->error == YAML_READER_ERROR) {
        struct intake_pos pos = pos_of_byte(b, p->problem_offset);
        if (p->problem_value != -1)
            return fail_at(b, pos, "%s (#%X)", problem, (unsigned)p->problem_value);
        return fail_at(b, pos, "%s", problem);
    }
    struct intake_pos pos = pos_of(b, p->problem_mark), ctx = pos_of(b, p->context_mark);
    if (!p->context)
        return fail_at(b, pos, "%s", problem);
    if (ctx.line == pos.line && ctx.column == pos.column)
        return fail_at(b, pos, "%s %s", problem, p->context);
    return fail_at(b, pos, "%s %s that started at line %d, column %d", problem, p->context, ctx.line, ctx.column);
}

static int on_event(struct builder *b, const yaml_event_t *ev)
{
    if ((b->piece || b->splice) && parts_event(b, ev) != 0)
        return -1;
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT: return on_document_start(b, ev);
    case YAML_DOCUMENT_END_EVENT: return on_document_end(b, ev);
    case YAML_SCALAR_EVENT: return on_scalar(b, ev);
    case YAML_ALIAS_EVENT: return on_alias(b, ev);
    case YAML_MAPPING_START_EVENT: return on_start(b, ev, true);
    case YAML_SEQUENCE_START_EVENT: return on_start(b, ev, false);
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT: return on_end(b);
    default: return 0;
    }
}

static int read_stream(struct builder *b)
{
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&b->parser, &ev))
            return fail_parser(b);
        int rc = on_event(b, &ev);
        bool done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
        if (rc != 0 || done)
            return rc;
    }
}

/* A byte order mark after the first bytes: libyaml skips one at the start of a line but counts it as a
 * column, so the lines after it would nest differently from the same document cut out on its own
 * (intake.h's promise). Refused, with where it is. Returns 0, or -1 with a 400 in err. */
static int refuse_inner_bom(const struct builder *b, struct api_status *err)
{
    const unsigned char *p = (const unsigned char *)b->data;
    size_t step = b->encoding == ENC_UTF8 ? 1 : 2, at = b->len;
    if (b->encoding == ENC_UTF8) { /* every body passes here: memchr for its rare first byte */
        for (const unsigned char *q = p + b->bom_len, *end = p + b->len;
             (q = memchr(q, 0xEF, (size_t)(end - q))) != NULL; q++) {
            if (end - q >= 3 && q[1] == 0xBB && q[2] == 0xBF) {
                at = (size_t)(q - p);
                break;
            }
        }
    } else {
        unsigned char first = b->encoding == ENC_UTF16LE ? 0xFF : 0xFE, second = first == 0xFF ? 0xFE : 0xFF;
        for (size_t i = b->bom_len; i + 2 <= b->len && at == b->len; i += 2)
            if (p[i] == first && p[i + 1] == second)
                at = i;
    }
    if (at == b->len)
        return 0;
    int line = 1;
    size_t line_start = b->bom_len;
    for (size_t i = b->bom_len; i + step <= at; i += step) {
        bool newline = b->encoding == ENC_UTF8      ? p[i] == '\n'
                       : b->encoding == ENC_UTF16LE ? p[i] == '\n' && p[i + 1] == 0
                                                    : p[i] == 0 && p[i + 1] == '\n';
        if (newline) {
            line++;
            line_start = i + step;
        }
    }
    return api_fail(err, 400, "BadRequest",
                    "yaml: line %d, byte %zu: a byte order mark (U+FEFF) is allowed only at the start of the body",
                    line, at - line_start + 1);
}

void builder_close(struct builder *b)
{
    while (b->depth > 0)
        frame_release(&b->stack[--b->depth]);
    discard_doc(b);
    anchors_clear(&b->anchors);
    hmap_free(&b->anchors);
    yaml_parser_delete(&b->parser);
}

int builder_open(struct builder *b, const char *data, size_t len, struct intake *out, struct api_status *err)
{
    b->data = data;
    b->len = len;
    b->err = err;
    b->out = out;
    b->docs_cap = (size_t)out->ndocs;
    b->lines_added_from = b->offset_added_from = SIZE_MAX;
    detect_encoding(b);
    if (refuse_inner_bom(b, err) != 0)
        return -1;
    if (!yaml_parser_initialize(&b->parser))
        return api_fail(err, 500, "InternalError", "yaml: out of memory");
    yaml_parser_set_input_string(&b->parser, (const unsigned char *)data, len);
    return 0;
}

int builder_read(struct builder *b) { return read_stream(b); }

int intake_parse_yaml(const char *data, size_t len, struct intake *out, struct api_status *err)
{
    int rc;
    if (yaml_read_in_parts(data, len, out, &rc))
        return rc;
    struct builder *b = calloc(1, sizeof *b); /* a few KiB of frames: kept off the stack */
    if (!b)
        return api_fail(err, 500, "InternalError", "yaml: out of memory");
    rc = builder_open(b, data, len, out, err);
    if (rc == 0)
        rc = read_stream(b);
    builder_close(b);
    free(b);
    return rc;
}
