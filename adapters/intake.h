/* Request bodies in, JSON documents out: YAML (libyaml) or JSON (Jansson) into json_t trees, with
 * the line and column of every YAML value so validation errors can point at the user's file. */
#ifndef CALDERA_INTAKE_H
#define CALDERA_INTAKE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/api_status.h"
#include "common/hashmap.h"

enum intake_format {
    INTAKE_JSON,  /* Content-Type: application/json */
    INTAKE_YAML,  /* application/yaml, application/x-yaml, text/yaml */
    INTAKE_SNIFF, /* no usable Content-Type: JSON when the first non-blank byte is '{' or '[', else YAML */
};

struct intake_pos {
    int line, column; /* 1-based, as editors count */
};

/* One document of the body. For YAML input every value has a position: look it up through its
 * parent (member or index), because true/false/null are shared singletons in Jansson. */
struct intake_doc {
    json_t *root;           /* owned */
    int first_line;         /* the line the document starts on */
    struct hmap positions;  /* private: empty for JSON input */
};

struct intake {
    int ndocs;
    struct intake_doc *docs;
};

/* Parses data into documents. Empty documents ("---" with nothing, or a body of only comments)
 * are skipped. Errors are 400 BadRequest Status with the line and column:
 *   `yaml: line 12, column 5: mapping values are not allowed in this context`
 *   `json: line 3, column 7: '}' expected near ','`
 * Other errors: duplicate mapping keys, unknown tags, too deep nesting (> 64), aliases expanding
 * to too many values (> 1,000,000), an empty body ("the request body is empty"). */
int intake_parse(const char *data, size_t len, enum intake_format fmt, struct intake *out, struct api_status *err);
void intake_free(struct intake *in);

/* Position of the value under `key` in `object`, of element `index` in `array`, or of a
 * container node itself. Return false when unknown (JSON input, or a node made later). */
bool intake_member_pos(const struct intake_doc *doc, const json_t *object, const char *key, struct intake_pos *pos);
bool intake_index_pos(const struct intake_doc *doc, const json_t *array, size_t index, struct intake_pos *pos);
bool intake_node_pos(const struct intake_doc *doc, const json_t *node, struct intake_pos *pos);

/* The text of a scalar as Kubernetes would read it into a string-or-number field (quantities,
 * int-or-string): strings as they are, integers in decimal, reals in their shortest exact form
 * ("0.5", "2000", "1e+21"). Returns false for non-scalars. */
bool intake_scalar_text(const json_t *v, char *buf, size_t len);

#endif
