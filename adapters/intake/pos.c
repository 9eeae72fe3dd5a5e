/* Where each value of a YAML document was written: records keyed by (container, member name),
 * (container, index) or the container itself, appended one after another to large blocks (a
 * 5,000-task Job makes ~150,000 of them) and put in a hash map only when something is looked up,
 * which a valid document never needs. */
#include "adapters/intake/internal.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

/* A container copied for an alias gets one POS_ORIGIN record naming its original instead of a copy of
 * every record below it: an alias bomb near the value limit then costs one record per container. */
enum pos_kind { POS_NODE, POS_MEMBER, POS_INDEX, POS_ORIGIN };

/* What a lookup asks for; a record embeds one as the map's key. */
struct pos_key {
    enum pos_kind kind;
    const json_t *parent;
    size_t index;     /* POS_INDEX */
    const char *name; /* POS_MEMBER: points into the record itself */
};

struct pos_rec {
    struct pos_key key;   /* first, so the map's key pointer is the record */
    const json_t *origin; /* POS_ORIGIN: the container key.parent was copied from */
    struct intake_pos pos;
    struct intake_pos key_pos; /* POS_MEMBER: where the member's key was written */
    uint32_t size;             /* bytes it takes in its block, name and padding included */
    char name[];
};

/* Records are cut from blocks in the order they are made and freed with them: no malloc and free
 * per value. */
#define POS_BLOCK_BYTES (64u * 1024)
struct pos_block {
    struct pos_block *next; /* the block cut after this one */
    size_t used, cap;
    _Alignas(max_align_t) unsigned char data[];
};

struct pos_table {
    struct pos_block *first, *last;
    /* References that keep every recorded container's address taken while the document lives: one
     * per container (its POS_NODE or POS_ORIGIN record), which its member and index records share;
     * none for a container in an arena (a big body's), whose addresses stay taken anyway. */
    json_t **held;
    size_t nheld, held_cap;
    /* key -> record, for the records before (indexed_block, indexed_used); the rest join it at the
     * next lookup. Lookups through a const document fill it in: a cache, not the document's state. */
    struct hmap index;
    struct pos_block *indexed_block;
    size_t indexed_used;
};

static struct pos_table *table_of(struct intake_positions *m)
{
    if (!m->table)
        m->table = calloc(1, sizeof *m->table);
    return m->table;
}

static int hold(struct pos_table *t, json_t *container)
{
    if (doc_arena_holds(container))
        return 0; /* an arena never reuses an address while the document lives */
    if (GROW(t->held, t->held_cap, t->nheld + 1, 256) != 0)
        return -1;
    t->held[t->nheld++] = json_incref(container);
    return 0;
}

static struct pos_rec *pos_alloc(struct pos_table *t, size_t name_len)
{
    const size_t align = _Alignof(struct pos_rec);
    size_t size = (sizeof(struct pos_rec) + name_len + 1 + align - 1) & ~(align - 1);
    struct pos_block *b = t->last;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > POS_BLOCK_BYTES ? size : POS_BLOCK_BYTES;
        if (size > UINT32_MAX || !(b = malloc(sizeof *b + cap)))
            return NULL;
        b->next = NULL;
        b->used = 0;
        b->cap = cap;
        if (t->last)
            t->last->next = b;
        else
            t->first = b;
        t->last = b;
    }
    struct pos_rec *rec = (struct pos_rec *)(b->data + b->used);
    b->used += size;
    rec->size = (uint32_t)size;
    return rec;
}

static uint64_t pos_hash(const struct pos_key *k)
{
    uint64_t h = hash_ptr(k->parent) + (uint64_t)k->kind;
    uint64_t sub = 0;
    if (k->kind == POS_MEMBER)
        sub = hash_str(k->name);
    else if (k->kind == POS_INDEX)
        sub = hash_bytes(&k->index, sizeof k->index);
    return h ^ (sub + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}

static bool pos_key_eq(const void *a, const void *b)
{
    const struct pos_key *x = a, *y = b;
    if (x->kind != y->kind || x->parent != y->parent)
        return false;
    if (x->kind == POS_MEMBER)
        return strcmp(x->name, y->name) == 0;
    return x->kind != POS_INDEX || x->index == y->index;
}

/* Puts the records made since the last lookup in the index, in the order they were made, so a place
 * recorded twice answers with its later record. Returns 0 or -1 (out of memory). */
static int catch_up(struct pos_table *t)
{
    if (!t->indexed_block) {
        t->indexed_block = t->first;
        t->indexed_used = 0;
    }
    for (struct pos_block *b = t->indexed_block; b; b = b->next) {
        while (t->indexed_used < b->used) {
            struct pos_rec *rec = (struct pos_rec *)(b->data + t->indexed_used);
            if (hmap_put(&t->index, pos_hash(&rec->key), &rec->key, rec, pos_key_eq) != 0)
                return -1;
            t->indexed_used += rec->size;
        }
        if (!b->next)
            break;
        t->indexed_block = b->next;
        t->indexed_used = 0;
    }
    return 0;
}

/* The record of k in *rec (NULL when none); -1 when the index could not be brought up to date. */
static int find(const struct intake_positions *m, const struct pos_key *k, const struct pos_rec **rec)
{
    *rec = NULL;
    if (!m->table)
        return 0;
    if (catch_up(m->table) != 0)
        return -1;
    *rec = hmap_get(&m->table->index, pos_hash(k), k, pos_key_eq);
    return 0;
}

/* A copy has no records of its own: its positions are its original's. Origins are recorded already
 * resolved (never a copy), so this takes at most one extra step. Returns 0 or -1 (out of memory). */
static int find_through_copies(const struct intake_positions *m, struct pos_key k, const struct pos_rec **rec)
{
    *rec = NULL;
    if (!k.parent || find(m, &k, rec) != 0)
        return k.parent ? -1 : 0;
    if (*rec)
        return 0;
    struct pos_key origin_key = {POS_ORIGIN, k.parent, 0, NULL};
    const struct pos_rec *copy;
    if (find(m, &origin_key, &copy) != 0)
        return -1;
    if (!copy)
        return 0;
    k.parent = copy->origin;
    return find(m, &k, rec);
}

/* The same, for lookups that have nothing to do when memory runs out but give no position. */
static const struct pos_rec *lookup(const struct intake_positions *m, struct pos_key k)
{
    const struct pos_rec *rec;
    return find_through_copies(m, k, &rec) == 0 ? rec : NULL;
}

/* name_len: the length of k->name for POS_MEMBER. */
static int record(struct intake_positions *m, const struct pos_key *k, size_t name_len, struct intake_pos pos,
                  struct intake_pos key_pos, const json_t *origin)
{
    struct pos_table *t = table_of(m);
    struct pos_rec *rec = t ? pos_alloc(t, name_len) : NULL;
    if (!rec)
        return -1;
    memcpy(rec->name, k->kind == POS_MEMBER ? k->name : "", name_len + 1);
    rec->key = *k;
    rec->key.name = rec->name;
    rec->origin = origin;
    rec->pos = pos;
    rec->key_pos = key_pos;
    return 0;
}

int pos_record_node(struct intake_positions *m, json_t *node, struct intake_pos pos)
{
    struct pos_key k = {POS_NODE, node, 0, NULL};
    if (record(m, &k, 0, pos, pos, NULL) != 0)
        return -1;
    return hold(m->table, node);
}

/* The object is a container recorded with pos_record_node, whose reference keeps its address. */
int pos_record_member(struct intake_positions *m, json_t *object, const char *key, struct intake_pos value_pos,
                      struct intake_pos key_pos)
{
    return pos_record_member_n(m, object, key, strlen(key), value_pos, key_pos);
}

int pos_record_member_n(struct intake_positions *m, json_t *object, const char *key, size_t key_len,
                        struct intake_pos value_pos, struct intake_pos key_pos)
{
    struct pos_key k = {POS_MEMBER, object, 0, key};
    return record(m, &k, key_len, value_pos, key_pos, NULL);
}

int pos_record_index(struct intake_positions *m, json_t *array, size_t index, struct intake_pos pos)
{
    struct pos_key k = {POS_INDEX, array, index, NULL};
    return record(m, &k, 0, pos, pos, NULL);
}

int pos_record_origin(struct intake_positions *m, json_t *copy, json_t *original)
{
    struct pos_key origin_key = {POS_ORIGIN, original, 0, NULL};
    const struct pos_rec *deeper;
    if (find(m, &origin_key, &deeper) != 0)
        return -1;
    json_t *origin = deeper ? (json_t *)deeper->origin : original; /* origins are never copies */
    struct pos_key k = {POS_ORIGIN, copy, 0, NULL};
    struct intake_pos none = {0, 0};
    if (record(m, &k, 0, none, none, origin) != 0 || hold(m->table, copy) != 0)
        return -1;
    return hold(m->table, origin);
}

bool pos_find_member(const struct intake_positions *m, const json_t *object, const char *key,
                     struct intake_pos *value_pos, struct intake_pos *key_pos)
{
    struct pos_key k = {POS_MEMBER, object, 0, key};
    const struct pos_rec *rec = key ? lookup(m, k) : NULL;
    if (!rec)
        return false;
    if (value_pos)
        *value_pos = rec->pos;
    if (key_pos)
        *key_pos = rec->key_pos;
    return true;
}

bool pos_find_index(const struct intake_positions *m, const json_t *array, size_t index, struct intake_pos *pos)
{
    struct pos_key k = {POS_INDEX, array, index, NULL};
    const struct pos_rec *rec = lookup(m, k);
    if (rec && pos)
        *pos = rec->pos;
    return rec != NULL;
}

bool pos_find_node(const struct intake_positions *m, const json_t *node, struct intake_pos *pos)
{
    struct pos_key k = {POS_NODE, node, 0, NULL};
    const struct pos_rec *rec = lookup(m, k);
    if (rec && pos)
        *pos = rec->pos;
    return rec != NULL;
}

int pos_copy_member(struct intake_positions *m, json_t *to, const json_t *from, const char *key)
{
    struct pos_key k = {POS_MEMBER, from, 0, key};
    const struct pos_rec *rec;
    if (find_through_copies(m, k, &rec) != 0)
        return -1;
    return rec ? pos_record_member(m, to, key, rec->pos, rec->key_pos) : 0;
}

int pos_adopt(struct intake_positions *into, struct intake_positions *from)
{
    struct pos_table *f = from->table, *t = f ? table_of(into) : NULL;
    if (!f)
        return 0;
    if (!t || (f->nheld && GROW(t->held, t->held_cap, t->nheld + f->nheld, 256) != 0))
        return -1;
    if (f->nheld)
        memcpy(t->held + t->nheld, f->held, f->nheld * sizeof *f->held);
    t->nheld += f->nheld;
    if (f->first) { /* its blocks follow ours; the index takes them in at the next lookup */
        if (t->last)
            t->last->next = f->first;
        else
            t->first = f->first;
        t->last = f->last;
    }
    free(f->held);
    hmap_free(&f->index);
    free(f);
    from->table = NULL;
    return 0;
}

void pos_free_all(struct intake_positions *m)
{
    struct pos_table *t = m->table;
    if (!t)
        return;
    for (size_t i = 0; i < t->nheld; i++)
        json_decref(t->held[i]);
    free(t->held);
    for (struct pos_block *b = t->first, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    hmap_free(&t->index);
    free(t);
    m->table = NULL;
}
