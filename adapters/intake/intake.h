/* Request bodies in, JSON documents out: YAML (libyaml) or JSON (Jansson) into json_t trees, with
 * the line and column of every YAML value so validation errors can point at the user's file. */
#ifndef CALDERA_INTAKE_H
#define CALDERA_INTAKE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/api_status.h"

enum intake_format {
    INTAKE_JSON,  /* Content-Type: application/json */
    INTAKE_YAML,  /* application/yaml, application/x-yaml, text/yaml */
    INTAKE_SNIFF, /* no usable Content-Type: JSON when the first non-blank byte is '{' or '[', else YAML */
};

/* What becomes of a field the kind does not have (Kubernetes' ?fieldValidation=): refused with a
 * cause (strict, the default of everything read outside the API), or dropped, with a warning or
 * without. */
enum field_validation {
    FIELD_VALIDATION_STRICT,
    FIELD_VALIDATION_WARN,
    FIELD_VALIDATION_IGNORE,
};

struct intake_pos {
    int line, column; /* 1-based, as editors count */
};

/* One document of the body. For YAML input every value has a position: look it up through its
 * parent (member or index), because true/false/null are shared singletons in Jansson.
 * [start_offset, end_offset) is the document's byte range in the body, so a client can cut a
 * multi-document file into one body per document: it starts at the beginning of the document's first
 * line ("---" or directives when present, else its first content line; comments before are left out)
 * and ends where the next document or the stream begins/ends (after "..." when present). Each slice
 * of a UTF-8 body parses on its own to the same JSON (a UTF-16 body's slices lack its byte order
 * mark: re-encode such documents instead). JSON input: 0 and the body's length. */
/* Private (pos.c): where each value of a YAML document was written. Copies of a
 * document share it; lookups are not to be made from two threads at once. */
struct pos_table;
struct intake_positions {
    struct pos_table *table; /* NULL: none */
};

struct intake_doc {
    json_t *root;        /* owned: an object or an array */
    int first_line;      /* the line the document starts on */
    size_t start_offset; /* bytes into the body */
    size_t end_offset;
    struct intake_positions positions; /* private: empty for JSON input */
    /* Set by the reader before validation: what unknown fields get, and where a warning goes
     * (warn(warn_ctx, "unknown field \"spec.foo\"")). */
    enum field_validation validation;
    void (*warn)(void *ctx, const char *text);
    void *warn_ctx;
};

struct intake {
    int ndocs;
    struct intake_doc *docs;
};

/* Parses data into documents. Empty documents ("---" with nothing, or a body of only comments)
 * are skipped, and so are documents that are just null ("--- ~"), as kubectl skips them; a document
 * must be a mapping or a sequence. YAML follows Kubernetes (go-yaml v2, YAML 1.1): `yes` is true,
 * `0755` is 493, `1:` as a key is "1". An alias gets a deep copy of its anchor's value (so changing one
 * use never changes another), whose positions are those of the anchored text; merge keys (`<<: *a`,
 * `<<: [*a, *b]`) add the members the mapping does not set itself. On failure *out is left empty.
 * Errors are 400 BadRequest Status with the line and column:
 *   `yaml: line 12, column 5: mapping values are not allowed in this context`
 *   `json: line 3, column 7: '}' expected near ','`
 * Other errors: duplicate mapping keys, unknown tags, too deep nesting (> 64), aliases expanding
 * to too many values (> 1,000,000 in the whole body) or too much copied text (> 16 MiB), .inf/.nan
 * (JSON has no such numbers), a scalar document, an empty body ("the request body is empty"). */
int intake_parse(const char *data, size_t len, enum intake_format fmt, struct intake *out, struct api_status *err);
void intake_free(struct intake *in);
/* A configuration file (config_file.c): 1 with *in holding one document whose root is a mapping (the
 * caller frees it); 0 when the file says nothing (blank lines and comments only, or no document); -1
 * with a 400 in st, whose message is `shape` when the file is not one mapping ("a companions file is
 * one YAML mapping with `companions:`"), else intake_parse's. */
int intake_parse_config(const char *data, size_t len, const char *shape, struct intake *in, struct api_status *st);

/* Position of the value under `key` in `object`, of element `index` in `array`, or of a
 * container node itself. Return false when unknown (JSON input, or a node made later).
 * A block mapping or sequence starts at its first entry, so the value of `metadata:` is on the line
 * after the key; intake_key_pos gives the key's own position. */
bool intake_member_pos(const struct intake_doc *doc, const json_t *object, const char *key, struct intake_pos *pos);
bool intake_key_pos(const struct intake_doc *doc, const json_t *object, const char *key, struct intake_pos *pos);
bool intake_index_pos(const struct intake_doc *doc, const json_t *array, size_t index, struct intake_pos *pos);
bool intake_node_pos(const struct intake_doc *doc, const json_t *node, struct intake_pos *pos);

/* The text of a scalar as Kubernetes would read it into a string-or-number field (quantities,
 * int-or-string): strings as they are, integers in decimal, reals in their shortest exact form
 * ("0.5", "2000", "1e+21"). Returns false for containers, true/false/null, strings holding NUL, and
 * when the text (with its NUL) does not fit in len. */
bool intake_scalar_text(const json_t *v, char *buf, size_t len);

#endif
