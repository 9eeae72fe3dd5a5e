/* Private to the YAML reader (yaml.c) and its reading in parts (yaml_parts.c): the builder that turns
 * libyaml's events into a document, with what reading a piece of a body, or a body around pieces, adds. */
#ifndef CALDERA_INTAKE_YAML_BUILDER_H
#define CALDERA_INTAKE_YAML_BUILDER_H

#include <yaml.h>

#include "adapters/intake/internal.h"

#define MAX_DEPTH INTAKE_MAX_DEPTH
#define MAX_VALUES 1000000
#define MAX_ALIAS_BYTES ((size_t)16 << 20)

struct frame {
    json_t *node; /* borrowed: owned by its parent, by the frame below (as a merge value), or the document */
    bool mapping;
    bool flow;    /* [..] or {..} rather than a block collection */
    int column;   /* where it starts (a block sequence: its first "-") */
    char *anchor; /* owned: registered once the node is complete */
    size_t values_at_start, bytes_at_start;
    /* mappings: the key waiting for its value */
    bool have_key, key_is_merge;
    char *key; /* key_inline, or owned when it is longer: most keys cost no malloc */
    size_t key_len;
    char key_inline[48];
    struct intake_pos key_pos;
    /* the value of "<<", merged when the mapping ends so that explicit keys win wherever they are */
    bool has_merge;
    struct intake_pos merge_key_pos, merge_pos;
    json_t *merge; /* owned */
};

enum encoding { ENC_UTF8, ENC_UTF16LE, ENC_UTF16BE };

struct yaml_piece;
struct yaml_splice;

struct builder {
    yaml_parser_t parser;
    const char *data;
    size_t len;
    enum encoding encoding;
    size_t bom_len;
    size_t cursor_chars, cursor_bytes; /* libyaml counts characters; offsets are bytes */
    struct api_status *err;
    struct intake *out;
    size_t docs_cap;
    struct intake_doc doc; /* the document being read */
    struct intake_pos root_pos;
    struct frame stack[MAX_DEPTH];
    int depth;
    struct hmap anchors; /* name -> struct anchor, for the current document only */
    size_t values, bytes, alias_bytes;
    /* Text read apart from the body around it (yaml_parts.c): marks from character lines_added_from on
     * are lines_added further down the body, offsets from offset_added_from on offset_added further. */
    size_t lines_added_from, offset_added_from;
    int lines_added;
    size_t offset_added;
    struct yaml_piece *piece;   /* reading one piece cut out of a body */
    struct yaml_splice *splice; /* reading the body with its pieces cut out */
};

/* yaml.c: a builder over data (calloc'd by the caller), its reading, its end. open and read return 0,
 * or -1 with err set. */
int builder_open(struct builder *b, const char *data, size_t len, struct intake *out, struct api_status *err);
int builder_read(struct builder *b);
void builder_close(struct builder *b);
int builder_count_values(struct builder *b, size_t n, struct intake_pos pos);
/* The body's encoding, from its byte order mark (UTF-8 without one), and the mark's length. */
enum encoding body_encoding(const char *data, size_t len, size_t *bom_len);

/* yaml_parts.c: what reading in parts does at each event, before the builder (0, or -1: the parts do
 * not add up to the body; err is then meaningless), and with a value for a piece's top sequence (true
 * when it took it). */
int parts_event(struct builder *b, const yaml_event_t *ev);
/* Reads a big body in parts (true, with *rc 0 and the documents in out, which must be empty), or
 * leaves it to be read whole (false, out still empty). */
bool yaml_read_in_parts(const char *data, size_t len, struct intake *out, int *rc);
bool parts_attach_top(struct builder *b, json_t *value, struct intake_pos pos, int *rc);

#endif
