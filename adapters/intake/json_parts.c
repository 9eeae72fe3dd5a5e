/* Reading a big JSON body in parts: one exact pass over its strings and brackets finds its longest
 * array (a Job's tasks) and commas of it near equal shares of the body; the elements between them are
 * parsed by Jansson on the helper pool (common/parallel.h) while this thread parses the body around
 * them, and join the array. Any part Jansson refuses sends the body to a whole reading. */
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/internal.h"
#include "common/parallel.h"

#define MAX_PARTS (YAML_CUT_MAX_PIECES + 1)
#define SCAN_DEPTH 64 /* deeper bodies are read whole */
#define FLAGS (JSON_REJECT_DUPLICATES | JSON_DECODE_ANY)

/* One step from the root to the array: a member's name (without escapes) or an element's index. */
struct step {
    const char *key; /* NULL: index */
    size_t key_len, index;
};

struct scan_frame {
    bool array, expect_key;
    size_t open, elements;
    const char *key; /* object: the member being read; NULL when its name has escapes */
    size_t key_len;
    int share; /* array: the next share a comma may cut */
    int ncuts;
    size_t cuts[MAX_PARTS];
};

struct json_cut {
    int npieces; /* piece i: the elements between cuts[i] + 1 and cuts[i + 1] (or close) */
    size_t open, cuts[MAX_PARTS], close;
    int depth; /* steps to the array */
    struct step path[SCAN_DEPTH];
};

/* The quote that ends the string whose opening quote is at p, or NULL; *escaped tells whether the
 * string holds a backslash. Strings are short: a loop beats memchr's calls. */
static const char *string_end(const char *p, const char *end, bool *escaped)
{
    *escaped = false;
    for (const char *q = p + 1; q < end; q++) {
        if (*q == '\\') {
            *escaped = true;
            q++;
        } else if (*q == '"') {
            return q;
        }
    }
    return NULL;
}

/* The path to the array that frame `depth` is, from the frames below it. */
static bool path_to(const struct scan_frame *stack, int depth, struct json_cut *cut)
{
    for (int d = 0; d < depth; d++) {
        const struct scan_frame *f = &stack[d];
        if (!f->array && !f->key)
            return false;
        cut->path[d] = f->array ? (struct step){.index = f->elements}
                                : (struct step){.key = f->key, .key_len = f->key_len};
    }
    cut->depth = depth;
    return true;
}

/* One pass in the order Jansson reads: strings end at a quote after an even run of backslashes, and
 * brackets, commas and colons count only outside strings. Plans `parts` parts; returns npieces. */
static int plan(const char *data, size_t len, size_t start, int parts, struct json_cut *cut)
{
    size_t shares[MAX_PARTS];
    for (int i = 1; i < parts; i++)
        shares[i - 1] = len / (size_t)parts * (size_t)i;
    struct scan_frame stack[SCAN_DEPTH];
    int depth = 0;
    size_t best = 0;
    const char *p = data + start, *end = data + len;
    struct scan_frame *top = NULL;
    *cut = (struct json_cut){0};
    for (; p < end; p++) {
        switch (*p) {
        case '"': {
            bool escaped;
            const char *q = string_end(p, end, &escaped);
            if (!q)
                return 0;
            if (top && !top->array && top->expect_key) {
                top->key = escaped ? NULL : p + 1;
                top->key_len = (size_t)(q - p - 1);
            }
            p = q;
            break;
        }
        case '[':
        case '{': {
            if (depth == SCAN_DEPTH)
                return 0;
            top = &stack[depth++]; /* set field by field: its cuts are read only up to ncuts */
            top->array = *p == '[';
            top->expect_key = *p == '{';
            top->open = (size_t)(p - data);
            top->elements = 0;
            top->key = NULL;
            top->key_len = 0;
            top->share = 0;
            top->ncuts = 0;
            while (top->share < parts - 1 && shares[top->share] <= top->open)
                top->share++;
            break;
        }
        case ']':
        case '}':
            if (!top)
                return 0;
            if (top->array && top->ncuts > 0 && (size_t)(p - data) - top->open > best &&
                path_to(stack, depth - 1, cut)) {
                best = (size_t)(p - data) - top->open;
                cut->npieces = top->ncuts;
                memcpy(cut->cuts, top->cuts, sizeof top->cuts);
                cut->open = top->open;
                cut->close = (size_t)(p - data);
            }
            depth--;
            top = depth ? &stack[depth - 1] : NULL;
            break;
        case ',':
            if (top && top->array) {
                top->elements++;
                size_t at = (size_t)(p - data);
                if (top->share < parts - 1 && shares[top->share] <= at) {
                    top->cuts[top->ncuts++] = at;
                    while (top->share < parts - 1 && shares[top->share] <= at)
                        top->share++;
                }
            } else if (top) {
                top->expect_key = true;
            }
            break;
        case ':':
            if (top && !top->array)
                top->expect_key = false;
            break;
        default: break;
        }
    }
    return cut->npieces;
}

/* Text from up to three runs of the body, for json_load_callback. */
struct feed {
    const char *run[3];
    size_t len[3];
    int at;
};

static size_t feed_read(void *buffer, size_t size, void *arg)
{
    struct feed *f = arg;
    while (f->at < 3 && f->len[f->at] == 0)
        f->at++;
    if (f->at == 3)
        return 0;
    size_t n = f->len[f->at] < size ? f->len[f->at] : size;
    memcpy(buffer, f->run[f->at], n);
    f->run[f->at] += n;
    f->len[f->at] -= n;
    return n;
}

struct piece {
    struct feed feed;
    json_t *elements; /* an array, or NULL when Jansson refused the piece */
};

static void read_piece(void *ctx, int i)
{
    struct piece *p = &((struct piece *)ctx)[i];
    struct doc_arena *arena = doc_arena_open();
    json_error_t err;
    p->elements = json_load_callback(feed_read, &p->feed, FLAGS, &err);
    doc_arena_close(arena);
}

/* The array the pieces were cut from, in the tree of the body around them. */
static json_t *find_array(json_t *root, const struct json_cut *cut)
{
    json_t *v = root;
    for (int d = 0; v && d < cut->depth; d++)
        v = cut->path[d].key ? json_object_getn(v, cut->path[d].key, cut->path[d].key_len)
                             : json_array_get(v, cut->path[d].index);
    return json_is_array(v) ? v : NULL;
}

/* Whether data[from, to) holds more than JSON's white space. */
static bool holds_something(const char *data, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (data[i] != ' ' && data[i] != '\t' && data[i] != '\n' && data[i] != '\r')
            return true;
    return false;
}

/* Every part must hold an element: "[" and "]" around nothing parse, but `[1, , 2]` and `[1, 2, ]`
 * must not. */
static bool parts_hold_elements(const char *data, const struct json_cut *cut)
{
    if (!holds_something(data, cut->open + 1, cut->cuts[0]))
        return false;
    for (int i = 0; i < cut->npieces; i++)
        if (!holds_something(data, cut->cuts[i] + 1, i + 1 < cut->npieces ? cut->cuts[i + 1] : cut->close))
            return false;
    return true;
}

json_t *json_read_in_parts(const char *data, size_t len, size_t start)
{
    int parts = intake_parts_for(len);
    if (parts > MAX_PARTS)
        parts = MAX_PARTS;
    struct json_cut cut;
    if (parts < 2 || plan(data, len, start, parts, &cut) == 0 || !parts_hold_elements(data, &cut))
        return NULL;
    struct piece pieces[MAX_PARTS] = {0};
    for (int i = 0; i < cut.npieces; i++) {
        size_t from = cut.cuts[i] + 1, to = i + 1 < cut.npieces ? cut.cuts[i + 1] : cut.close;
        pieces[i].feed = (struct feed){.run = {"[", data + from, "]"}, .len = {1, to - from, 1}};
    }
    struct parallel_batch *batch = parallel_start(cut.npieces, read_piece, pieces);
    if (!batch)
        return NULL;
    struct feed around = {.run = {data + start, data + cut.close, ""},
                          .len = {cut.cuts[0] - start, len - cut.close, 0}};
    json_error_t err;
    json_t *root = json_load_callback(feed_read, &around, FLAGS, &err);
    parallel_wait(batch);
    json_t *array = root ? find_array(root, &cut) : NULL;
    bool joined = array != NULL;
    for (int i = 0; i < cut.npieces; i++) {
        joined = joined && pieces[i].elements && json_array_extend(array, pieces[i].elements) == 0;
        json_decref(pieces[i].elements);
    }
    if (!joined) {
        json_decref(root);
        return NULL;
    }
    intake_parts_count_joined();
    return root;
}
