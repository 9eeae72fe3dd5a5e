/* Where each value of a YAML document was written: records keyed by (container, member name),
 * (container, index) or the container itself, in the document's hash map for O(1) lookups, stored
 * one after another in large blocks (a 5,000-task Job makes ~250,000 of them). */
#include "adapters/intake_internal.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    struct pos_key key; /* first, so the map's key pointer is the record */
    json_t *held;       /* a reference on key.parent: its address stays taken while recorded */
    json_t *origin;     /* POS_ORIGIN: a reference on the container key.parent was copied from */
    struct intake_pos pos;
    struct intake_pos key_pos; /* POS_MEMBER: where the member's key was written */
    uint32_t size;      /* bytes it takes in its block, name and padding included */
    char name[];
};

/* Records are cut from blocks in order and freed with them: no malloc and free per value. */
#define POS_BLOCK_BYTES (64u * 1024)
struct pos_block {
    struct pos_block *next;
    size_t used, cap;
    _Alignas(max_align_t) unsigned char data[];
};

static struct pos_rec *pos_alloc(struct intake_positions *m, size_t name_len)
{
    size_t size = (sizeof(struct pos_rec) + name_len + 1 + _Alignof(max_align_t) - 1) & ~(_Alignof(max_align_t) - 1);
    struct pos_block *b = m->blocks;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > POS_BLOCK_BYTES ? size : POS_BLOCK_BYTES;
        if (size > UINT32_MAX || !(b = malloc(sizeof *b + cap)))
            return NULL;
        b->next = m->blocks;
        b->used = 0;
        b->cap = cap;
        m->blocks = b;
    }
    struct pos_rec *rec = (struct pos_rec *)(b->data + b->used);
    b->used += size;
    rec->size = (uint32_t)size;
    return rec;
}

/* Gives back the last record cut (one the map refused). */
static void pos_unalloc(struct intake_positions *m, struct pos_rec *rec) { m->blocks->used -= rec->size; }

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

static struct pos_rec *find(const struct intake_positions *m, const struct pos_key *k)
{
    return hmap_get(&m->map, pos_hash(k), k, pos_key_eq);
}

static const json_t *origin_of(const struct intake_positions *m, const json_t *node)
{
    struct pos_key k = {POS_ORIGIN, node, 0, NULL};
    const struct pos_rec *rec = find(m, &k);
    return rec ? rec->origin : NULL;
}

/* A copy has no records of its own: its positions are its original's. Origins are recorded already
 * resolved (never a copy), so this takes at most one extra step. */
static const struct pos_rec *find_through_copies(const struct intake_positions *m, struct pos_key k)
{
    if (!k.parent)
        return NULL;
    const struct pos_rec *rec = find(m, &k);
    if (rec)
        return rec;
    k.parent = origin_of(m, k.parent);
    return k.parent ? find(m, &k) : NULL;
}

static int record(struct intake_positions *m, const struct pos_key *k, json_t *parent, struct intake_pos pos,
                  struct intake_pos key_pos, json_t *origin)
{
    struct pos_rec *rec = find(m, k);
    if (rec) {
        rec->pos = pos;
        rec->key_pos = key_pos;
        json_decref(rec->origin);
        rec->origin = json_incref(origin);
        return 0;
    }
    size_t name_len = k->kind == POS_MEMBER ? strlen(k->name) : 0;
    rec = pos_alloc(m, name_len);
    if (!rec)
        return -1;
    memcpy(rec->name, k->kind == POS_MEMBER ? k->name : "", name_len + 1);
    rec->key = *k;
    rec->key.name = rec->name;
    rec->pos = pos;
    rec->key_pos = key_pos;
    rec->origin = NULL;
    rec->held = NULL;
    if (hmap_put(&m->map, pos_hash(&rec->key), &rec->key, rec, pos_key_eq) != 0) {
        pos_unalloc(m, rec);
        return -1;
    }
    rec->held = json_incref(parent);
    rec->origin = json_incref(origin);
    return 0;
}

int pos_record_node(struct intake_positions *m, json_t *node, struct intake_pos pos)
{
    struct pos_key k = {POS_NODE, node, 0, NULL};
    return record(m, &k, node, pos, pos, NULL);
}

int pos_record_member(struct intake_positions *m, json_t *object, const char *key, struct intake_pos value_pos,
                      struct intake_pos key_pos)
{
    struct pos_key k = {POS_MEMBER, object, 0, key};
    return record(m, &k, object, value_pos, key_pos, NULL);
}

int pos_record_index(struct intake_positions *m, json_t *array, size_t index, struct intake_pos pos)
{
    struct pos_key k = {POS_INDEX, array, index, NULL};
    return record(m, &k, array, pos, pos, NULL);
}

int pos_record_origin(struct intake_positions *m, json_t *copy, json_t *original)
{
    const json_t *deeper = origin_of(m, original);
    json_t *origin = deeper ? (json_t *)deeper : original;
    struct pos_key k = {POS_ORIGIN, copy, 0, NULL};
    struct intake_pos none = {0, 0};
    return record(m, &k, copy, none, none, origin);
}

bool pos_find_member(const struct intake_positions *m, const json_t *object, const char *key, struct intake_pos *value_pos,
                     struct intake_pos *key_pos)
{
    struct pos_key k = {POS_MEMBER, object, 0, key};
    const struct pos_rec *rec = key ? find_through_copies(m, k) : NULL;
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
    const struct pos_rec *rec = find_through_copies(m, k);
    if (rec && pos)
        *pos = rec->pos;
    return rec != NULL;
}

bool pos_find_node(const struct intake_positions *m, const json_t *node, struct intake_pos *pos)
{
    struct pos_key k = {POS_NODE, node, 0, NULL};
    const struct pos_rec *rec = find_through_copies(m, k);
    if (rec && pos)
        *pos = rec->pos;
    return rec != NULL;
}

int pos_copy_member(struct intake_positions *m, json_t *to, const json_t *from, const char *key)
{
    struct intake_pos pos, key_pos;
    return pos_find_member(m, from, key, &pos, &key_pos) ? pos_record_member(m, to, key, pos, key_pos) : 0;
}

void pos_free_all(struct intake_positions *m)
{
    /* block by block, record by record: in memory order, not the map's scattered slots */
    for (struct pos_block *b = m->blocks, *next; b; b = next) {
        next = b->next;
        for (size_t off = 0; off < b->used;) {
            struct pos_rec *rec = (struct pos_rec *)(b->data + off);
            json_decref(rec->held);
            json_decref(rec->origin);
            off += rec->size;
        }
        free(b);
    }
    m->blocks = NULL;
    hmap_free(&m->map);
}
