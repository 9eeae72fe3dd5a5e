/* An open-addressing hash map (linear probing, tombstones, power-of-two capacity) from caller-hashed
 * keys to pointers. Grows at 70% occupancy counting tombstones, so probes stay short. */
#include "common/hashmap.h"

#include <stdlib.h>
#include <string.h>

static const char tombstone_byte;
#define TOMBSTONE ((const void *)&tombstone_byte)

uint64_t hash_bytes(const void *data, size_t len)
{
    /* FNV-1a, then a final avalanche so linear probing sees well-mixed low bits. */
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

uint64_t hash_str(const char *s) { return hash_bytes(s, strlen(s)); }

uint64_t hash_ptr(const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

bool hmap_eq_str(const void *a, const void *b) { return strcmp(a, b) == 0; }
bool hmap_eq_ptr(const void *a, const void *b) { return a == b; }

static struct hmap_slot *find_slot(const struct hmap *m, uint64_t hash, const void *key, hmap_eq_fn eq)
{
    if (m->cap == 0)
        return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        struct hmap_slot *s = &m->slots[i];
        if (s->key == NULL)
            return NULL;
        if (s->key != TOMBSTONE && s->hash == hash && eq(s->key, key))
            return s;
    }
}

void *hmap_get(const struct hmap *m, uint64_t hash, const void *key, hmap_eq_fn eq)
{
    struct hmap_slot *s = find_slot(m, hash, key, eq);
    return s ? s->value : NULL;
}

static int grow(struct hmap *m)
{
    size_t cap = m->cap ? m->cap : 8;
    while ((m->count + 1) * 10 >= cap * 7 / 2) /* keep live entries under 35% after a rebuild */
        cap *= 2;
    struct hmap_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        struct hmap_slot *s = &m->slots[i];
        if (s->key == NULL || s->key == TOMBSTONE)
            continue;
        size_t j = s->hash & (cap - 1);
        while (slots[j].key)
            j = (j + 1) & (cap - 1);
        slots[j] = *s;
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    m->used = m->count;
    return 0;
}

int hmap_put(struct hmap *m, uint64_t hash, const void *key, void *value, hmap_eq_fn eq)
{
    struct hmap_slot *found = find_slot(m, hash, key, eq);
    if (found) {
        found->key = key;
        found->value = value;
        return 0;
    }
    if ((m->used + 1) * 10 >= m->cap * 7 && grow(m) != 0)
        return -1;
    size_t mask = m->cap - 1;
    size_t i = hash & mask;
    while (m->slots[i].key != NULL && m->slots[i].key != TOMBSTONE)
        i = (i + 1) & mask;
    if (m->slots[i].key == NULL)
        m->used++;
    m->slots[i] = (struct hmap_slot){hash, key, value};
    m->count++;
    return 0;
}

void *hmap_remove(struct hmap *m, uint64_t hash, const void *key, hmap_eq_fn eq)
{
    struct hmap_slot *s = find_slot(m, hash, key, eq);
    if (!s)
        return NULL;
    void *v = s->value;
    s->key = TOMBSTONE;
    s->value = NULL;
    m->count--;
    return v;
}

void hmap_clear(struct hmap *m)
{
    if (m->slots)
        memset(m->slots, 0, m->cap * sizeof *m->slots);
    m->count = m->used = 0;
}

void hmap_free(struct hmap *m)
{
    free(m->slots);
    *m = (struct hmap){0};
}

bool hmap_next(const struct hmap *m, size_t *pos, const void **key, void **value)
{
    while (*pos < m->cap) {
        struct hmap_slot *s = &m->slots[(*pos)++];
        if (s->key != NULL && s->key != TOMBSTONE) {
            if (key)
                *key = s->key;
            if (value)
                *value = s->value;
            return true;
        }
    }
    return false;
}
