/* Reading a big YAML body in parts: the pieces yaml_cut_plan cuts out of its long sequence are read on
 * their own by the helper pool (common/parallel.h) while this thread reads the body around them, and
 * their entries join the sequence where the cut was. Each piece, and the cut in the text around, is
 * checked to read as it does in the whole body; when a check fails the body is read whole. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/yaml_builder.h"
#include "common/grow.h"
#include "common/parallel.h"

struct yaml_piece {
    const char *body;
    size_t start, end; /* the piece is body[start, end) */
    int column;        /* of its entries' "-" */
    /* what reading it found */
    bool read, top_seen;
    int documents, depth, lines;
    size_t values, bytes;
    struct intake out;            /* its one document: the sequence of its entries */
    struct intake_pos *entry_pos; /* where each entry was written, in the body */
    size_t nentries, entries_cap;
};

struct yaml_splice {
    const struct yaml_cut *cut;
    struct yaml_piece *pieces;
    struct parallel_batch *batch;
    size_t cut_char; /* where the pieces were, in characters of the text read */
    bool waited, pieces_read, joined;
};

/* A piece must be one implicit document whose top is a block sequence starting at its first line's
 * "-", without anchors or aliases (an anchor's name may be used anywhere in the body after it). */
static int piece_event(struct builder *b, const yaml_event_t *ev)
{
    struct yaml_piece *p = b->piece;
    const yaml_char_t *anchor = NULL;
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT: return ev->data.document_start.implicit && ++p->documents == 1 ? 0 : -1;
    case YAML_DOCUMENT_END_EVENT: return ev->data.document_end.implicit ? 0 : -1;
    case YAML_ALIAS_EVENT: return -1;
    case YAML_SCALAR_EVENT: return ev->data.scalar.anchor || b->depth == 0 ? -1 : 0;
    case YAML_MAPPING_START_EVENT:
        if (b->depth == 0)
            return -1;
        anchor = ev->data.mapping_start.anchor;
        break;
    case YAML_SEQUENCE_START_EVENT:
        if (b->depth == 0) {
            if (ev->data.sequence_start.style != YAML_BLOCK_SEQUENCE_STYLE || ev->start_mark.index != (size_t)p->column)
                return -1;
            p->top_seen = true;
        }
        anchor = ev->data.sequence_start.anchor;
        break;
    case YAML_STREAM_END_EVENT: p->lines = (int)ev->start_mark.line; return 0;
    default: return 0;
    }
    if (b->depth + 1 > p->depth)
        p->depth = b->depth + 1;
    return anchor ? -1 : 0;
}

bool parts_attach_top(struct builder *b, json_t *value, struct intake_pos pos, int *rc)
{
    if (b->depth != 1)
        return false;
    struct yaml_piece *p = b->piece;
    *rc = -1;
    if (GROW(p->entry_pos, p->entries_cap, p->nentries + 1, 256) != 0) {
        json_decref(value);
        return true;
    }
    if (json_array_append_new(b->stack[0].node, value) != 0)
        return true;
    p->entry_pos[p->nentries++] = pos;
    *rc = 0;
    return true;
}

/* Runs on a helper: reads piece i into its own document, its values in an arena of this thread. */
static void read_piece(void *ctx, int i)
{
    struct yaml_piece *p = &((struct yaml_piece *)ctx)[i];
    struct builder *b = calloc(1, sizeof *b);
    struct api_status *st = calloc(1, sizeof *st);
    struct doc_arena *arena = doc_arena_open();
    if (b && st && builder_open(b, p->body + p->start, p->end - p->start, &p->out, st) == 0) {
        b->piece = p;
        b->lines_added_from = 0;
        b->lines_added = (int)yaml_cut_count_lines(p->body, p->start);
        p->read = builder_read(b) == 0 && p->documents == 1 && p->top_seen && p->out.ndocs == 1;
        p->values = b->values;
        p->bytes = b->bytes;
    }
    if (b)
        builder_close(b);
    doc_arena_close(arena);
    free(b);
    free(st);
}

static void wait_pieces(struct builder *b, struct yaml_splice *s)
{
    parallel_wait(s->batch);
    s->waited = true;
    s->pieces_read = true;
    int lines = 0;
    for (int i = 0; i < s->cut->npieces; i++) {
        s->pieces_read = s->pieces_read && s->pieces[i].read;
        lines += s->pieces[i].lines;
    }
    b->lines_added_from = s->cut_char; /* the text around goes on after the pieces' lines */
    b->lines_added = lines;
}

/* The pieces' entries at the end of the sequence they were cut from, their positions with them. */
static int join(struct builder *b, json_t *sequence)
{
    struct yaml_splice *s = b->splice;
    for (int i = 0; i < s->cut->npieces; i++) {
        struct yaml_piece *p = &s->pieces[i];
        struct intake_doc *doc = &p->out.docs[0];
        size_t base = json_array_size(sequence);
        if (b->depth + p->depth - 1 > MAX_DEPTH || builder_count_values(b, p->values - 1, (struct intake_pos){0}) != 0)
            return -1;
        b->bytes += p->bytes;
        if (json_array_extend(sequence, doc->root) != 0)
            return -1;
        for (size_t e = 0; e < p->nentries; e++)
            if (pos_record_index(&b->doc.positions, sequence, base + e, p->entry_pos[e]) != 0)
                return -1;
        if (pos_adopt(&b->doc.positions, &doc->positions) != 0)
            return -1;
    }
    s->joined = true;
    return 0;
}

/* In the text around the pieces nothing may run across the cut, and the first events after it must
 * end block collections down to a block sequence at the pieces' column: the one their entries join. */
static int splice_event(struct builder *b, const yaml_event_t *ev)
{
    struct yaml_splice *s = b->splice;
    if (s->joined)
        return 0;
    if (ev->start_mark.index < s->cut_char)
        return (ev->type == YAML_SCALAR_EVENT || ev->type == YAML_ALIAS_EVENT) && ev->end_mark.index > s->cut_char ? -1
                                                                                                                   : 0;
    if (!s->waited)
        wait_pieces(b, s);
    if (!s->pieces_read || (ev->type != YAML_MAPPING_END_EVENT && ev->type != YAML_SEQUENCE_END_EVENT) || b->depth == 0)
        return -1;
    const struct frame *f = &b->stack[b->depth - 1];
    if (f->flow)
        return -1;
    if (f->mapping || f->column != s->cut->column)
        return 0; /* a block collection of the last entry before the cut */
    return join(b, f->node);
}

int parts_event(struct builder *b, const yaml_event_t *ev)
{
    return b->piece ? piece_event(b, ev) : splice_event(b, ev);
}

/* Drops documents here and now. The body around the pieces gave values of this thread's arena, still
 * open, which no other thread may free (as freeing them later on a helper would); a joined piece's document is
 * one array whose entries the body's sequence holds. */
static void drop_documents(struct intake *out)
{
    for (int i = 0; i < out->ndocs; i++) {
        pos_free_all(&out->docs[i].positions);
        json_decref(out->docs[i].root);
    }
    free(out->docs);
    *out = (struct intake){0};
}

/* Reads the text around the pieces (copied together when the sequence does not end the body) into
 * out. Returns 0 when the pieces joined it. */
static int read_around(const char *data, size_t len, struct yaml_splice *s, struct intake *out)
{
    const struct yaml_cut *cut = s->cut;
    size_t head = cut->at[0], tail = len - cut->at[cut->npieces];
    char *around = NULL;
    if (tail > 0) {
        if (!(around = malloc(head + tail)))
            return -1;
        memcpy(around, data, head);
        memcpy(around + head, data + cut->at[cut->npieces], tail);
    }
    struct builder *b = calloc(1, sizeof *b);
    struct api_status *st = calloc(1, sizeof *st);
    int rc = -1;
    if (b && st && builder_open(b, around ? around : data, head + tail, out, st) == 0) {
        b->splice = s;
        b->offset_added_from = head;
        b->offset_added = cut->at[cut->npieces] - head;
        rc = builder_read(b) == 0 && s->joined ? 0 : -1;
    }
    if (b)
        builder_close(b);
    free(b);
    free(st);
    free(around);
    return rc;
}

bool yaml_read_in_parts(const char *data, size_t len, struct intake *out, int *rc)
{
    size_t bom; /* libyaml does not count a byte order mark as a character */
    int parts = intake_parts_for(len);
    struct yaml_cut cut;
    if (parts < 2 || out->ndocs != 0 || body_encoding(data, len, &bom) != ENC_UTF8 ||
        yaml_cut_plan(data, len, parts, &cut) == 0)
        return false;
    struct yaml_piece pieces[YAML_CUT_MAX_PIECES];
    for (int i = 0; i < cut.npieces; i++)
        pieces[i] = (struct yaml_piece){.body = data, .start = cut.at[i], .end = cut.at[i + 1], .column = cut.column};
    struct yaml_splice splice = {.cut = &cut,
                                 .pieces = pieces,
                                 .cut_char = yaml_cut_count_chars(data + bom, cut.at[0] - bom),
                                 .batch = parallel_start(cut.npieces, read_piece, pieces)};
    if (!splice.batch)
        return false;
    int around = read_around(data, len, &splice, out);
    if (!splice.waited)
        parallel_wait(splice.batch);
    for (int i = 0; i < cut.npieces; i++) {
        drop_documents(&pieces[i].out);
        free(pieces[i].entry_pos);
    }
    if (around != 0) { /* read whole instead: its errors say the right line */
        drop_documents(out);
        return false;
    }
    intake_parts_count_joined();
    *rc = 0;
    return true;
}
