/* Private plumbing shared by adapters/intake*.c: the position records kept in a document's map,
 * YAML 1.1 scalar resolution, and the YAML stream reader. Not for use outside adapters/intake*. */
#ifndef CALDERA_INTAKE_INTERNAL_H
#define CALDERA_INTAKE_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "adapters/intake/intake.h"
#include "common/api_status.h"
#include "common/hashmap.h"

/* --- positions (pos.c) ---------------------------------------------------------------------
 * Every container recorded (pos_record_node, pos_record_origin) is held by a reference, so no
 * recorded address can be freed and reused by another container while the document lives; member
 * and index records only name such containers. Record functions return 0 or -1 (out of memory);
 * recording the same place twice updates it. */
int pos_record_node(struct intake_positions *m, json_t *node, struct intake_pos pos);
int pos_record_member(struct intake_positions *m, json_t *object, const char *key, struct intake_pos value_pos,
                      struct intake_pos key_pos);
/* The same with the key's length known (key is NUL-terminated all the same). */
int pos_record_member_n(struct intake_positions *m, json_t *object, const char *key, size_t key_len,
                        struct intake_pos value_pos, struct intake_pos key_pos);
int pos_record_index(struct intake_positions *m, json_t *array, size_t index, struct intake_pos pos);

/* key_pos may be NULL. */
bool pos_find_member(const struct intake_positions *m, const json_t *object, const char *key,
                     struct intake_pos *value_pos, struct intake_pos *key_pos);
bool pos_find_index(const struct intake_positions *m, const json_t *array, size_t index, struct intake_pos *pos);
bool pos_find_node(const struct intake_positions *m, const json_t *node, struct intake_pos *pos);

/* Records that `copy` (made for an alias) has the positions of `original` and everything below it. */
int pos_record_origin(struct intake_positions *m, json_t *copy, json_t *original);
/* Gives to[key] the positions of from[key] (a member moved by a merge key); nothing recorded is fine. */
int pos_copy_member(struct intake_positions *m, json_t *to, const json_t *from, const char *key);

/* Moves every record of `from` (a piece of the same body read apart, yaml_parts.c) into `into`,
 * leaving `from` empty. Returns 0 or -1 (out of memory; both then unchanged). */
int pos_adopt(struct intake_positions *into, struct intake_positions *from);

void pos_free_all(struct intake_positions *m);

/* --- scalars (scalar.c) -------------------------------------------------------------------- */
enum yscalar_kind {
    YS_NULL,
    YS_BOOL,
    YS_INT,
    YS_REAL,
    YS_NONFINITE, /* .inf, -.inf, .nan: YAML floats that JSON cannot hold */
    YS_STRING,
    YS_MERGE, /* the plain, untagged merge key "<<" */
};

struct yscalar {
    enum yscalar_kind kind;
    bool boolean;
    json_int_t integer;
    double real;      /* also +-INFINITY or NAN for YS_NONFINITE */
    bool integral;    /* YS_REAL written as an integer beyond int64 ("18446744073709551615") */
    const char *text; /* the scalar's text as written (not NUL-terminated: use len) */
    size_t len;
};

/* Resolves a scalar event's text the way go-yaml v2 does for Kubernetes: tag is the event's tag (NULL
 * when none), plain whether the scalar was unquoted. Returns 0, or -1 with a sentence in why (an
 * unknown tag, or text a tag cannot hold such as `!!int abc`). */
int yscalar_resolve(const char *tag, const char *text, size_t len, bool plain, struct yscalar *out, char *why,
                    size_t why_len);

/* Checks a mapping's or sequence's tag (NULL, "!", !!map or !!seq as fits). */
int ytag_check_collection(const char *tag, bool mapping, char *why, size_t why_len);

/* The shortest "%.Ng" text that reads back as the same double ("0.5", "1e+21"). */
void format_real(double d, char *buf, size_t len);

/* --- anchors, aliases, merge keys (alias.c) ------------------------------------------------ */
#define INTAKE_MAX_DEPTH 64

struct anchor {
    char *name;    /* owned; also the key in the anchor map */
    json_t *value; /* a reference on the anchored value */
    size_t values; /* what one alias to it copies: values, and bytes of text (scalars and keys) */
    size_t bytes;
};

enum alias_result {
    ALIAS_OK,
    ALIAS_NO_MEMORY,
    ALIAS_TOO_DEEP,         /* the copy would nest containers deeper than INTAKE_MAX_DEPTH */
    ALIAS_NOT_MAPPINGS,     /* a merge value that is neither a mapping nor a sequence */
    ALIAS_NOT_MAPPING_ITEM, /* a merge sequence holding something other than a mapping */
};

/* The anchor map is name -> struct anchor. anchor_set returns 0 or -1 (out of memory). */
int anchor_set(struct hmap *anchors, const char *name, json_t *value, size_t values, size_t bytes);
const struct anchor *anchor_get(const struct hmap *anchors, const char *name);
void anchors_clear(struct hmap *anchors);

/* A deep copy of the anchored value whose top lands on nesting level `level` (1 = the document's
 * root container); NULL with *why set on failure. */
json_t *alias_copy(struct intake_positions *positions, const struct anchor *a, int level, enum alias_result *why);

/* Adds to `into` the members of the merge value (a mapping, or a sequence of mappings where earlier
 * ones win) that `into` does not have. *bad_index names the offending item for ALIAS_NOT_MAPPING_ITEM. */
enum alias_result merge_apply(struct intake_positions *positions, json_t *into, json_t *merge, size_t *bad_index);

/* --- document arenas (arena.c) --------------------------------------------------------------
 * Between open and close, every Jansson allocation on the calling thread (up to 64 KiB each) comes
 * from the arena; its memory goes back when the last of those values is freed, on any thread. The
 * values are ordinary json_t: references to them may be kept and shared. Arenas nest; open returns
 * NULL (then allocations stay malloc's) when out of memory. */
struct doc_arena;
struct doc_arena *doc_arena_open(void);
void doc_arena_close(struct doc_arena *a);
/* Whether p is a value of some arena (whose address no other value takes while that arena lives). */
bool doc_arena_holds(const void *p);
/* Arenas opened and not yet given back (tests). */
int doc_arena_count(void);

/* --- cutting a big YAML body into parts (yaml_cut.c) ---------------------------------------
 * A body's longest block sequence (a Job's tasks) cut at entries, so that its pieces can be read side
 * by side: piece i is [at[i], at[i + 1]), each starting with an entry "- " at `column`; the text
 * before at[0] and from at[npieces] on is the body around them. A plan only: the reader checks that
 * the parts add up to the body (yaml_parts.c). */
#define YAML_CUT_MAX_PIECES 15
struct yaml_cut {
    int npieces; /* 0: not cut */
    int column;
    size_t at[YAML_CUT_MAX_PIECES + 1];
};
/* Plans `parts` parts (the body around and parts - 1 pieces) of about equal size, or fewer; returns
 * npieces (0 when the body has no such sequence, or line breaks other than LF and CRLF). */
int yaml_cut_plan(const char *data, size_t len, int parts, struct yaml_cut *cut);
/* Line feeds in the n bytes at p, and UTF-8 characters (bytes that do not continue one). */
size_t yaml_cut_count_lines(const char *p, size_t n);
size_t yaml_cut_count_chars(const char *p, size_t n);

/* Bodies from this size on are read in parts when the machine has more than one CPU, none smaller than
 * INTAKE_PART_MIN_BYTES: each part's values take an arena's 1 MiB chunk (arena.c), which a job keeps
 * as long as its manifest, and 128 KiB of YAML or JSON about fill one. */
#define INTAKE_PARTS_MIN_BODY ((size_t)512 << 10)
#define INTAKE_PART_MIN_BYTES ((size_t)128 << 10)
/* parts.c: how many parts a body of len bytes is read in (1: whole), for YAML and JSON alike; the
 * reader counts each body it read in parts. */
int intake_parts_for(size_t len);
void intake_parts_count_joined(void);
/* Tests: bodies from min_body bytes on are read in `parts` parts (0: as the CPUs allow, never on
 * one), and how many bodies were read in parts so far. */
void intake_parts_set(size_t min_body, int parts);
unsigned long intake_parts_joined(void);

/* --- reading a big JSON body in parts (json_parts.c) ---------------------------------------
 * The document of data[start, len) (start skips a byte order mark) read in parts on the helper pool,
 * or NULL: then read it whole, as Jansson's errors name the right line. */
json_t *json_read_in_parts(const char *data, size_t len, size_t start);

/* --- YAML streams (yaml.c) ----------------------------------------------------------------- */
/* Appends the stream's non-empty documents to out (which the caller frees, also on error). */
int intake_parse_yaml(const char *data, size_t len, struct intake *out, struct api_status *err);

#endif
