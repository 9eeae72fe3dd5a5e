/* An open-addressing hash map from caller-hashed keys to pointers, with string and pointer helpers.
 * The map never copies keys: a key must live as long as its entry (usually it is a field of the value). */
#ifndef CALDERA_HASHMAP_H
#define CALDERA_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef bool (*hmap_eq_fn)(const void *a, const void *b);

struct hmap_slot {
    uint64_t hash;
    const void *key; /* NULL: empty; hmap_tombstone: deleted */
    void *value;
};

struct hmap {
    struct hmap_slot *slots;
    size_t cap; /* a power of two, or 0 */
    size_t count;
    size_t used; /* count + tombstones */
};

uint64_t hash_bytes(const void *data, size_t len);
uint64_t hash_str(const char *s);
uint64_t hash_ptr(const void *p);
bool hmap_eq_str(const void *a, const void *b);
bool hmap_eq_ptr(const void *a, const void *b);

void *hmap_get(const struct hmap *m, uint64_t hash, const void *key, hmap_eq_fn eq);
/* Inserts or replaces; returns 0, or -1 when memory runs out. */
int hmap_put(struct hmap *m, uint64_t hash, const void *key, void *value, hmap_eq_fn eq);
/* Removes and returns the value, or NULL when absent. */
void *hmap_remove(struct hmap *m, uint64_t hash, const void *key, hmap_eq_fn eq);
void hmap_clear(struct hmap *m);
void hmap_free(struct hmap *m);

/* Iteration: for (size_t i = 0; hmap_next(m, &i, &key, &val);) ... Removing during iteration is allowed. */
bool hmap_next(const struct hmap *m, size_t *pos, const void **key, void **value);

/* String-keyed shorthand. */
static inline void *strmap_get(const struct hmap *m, const char *k) { return hmap_get(m, hash_str(k), k, hmap_eq_str); }
static inline int strmap_put(struct hmap *m, const char *k, void *v)
{
    return hmap_put(m, hash_str(k), k, v, hmap_eq_str);
}
static inline void *strmap_remove(struct hmap *m, const char *k) { return hmap_remove(m, hash_str(k), k, hmap_eq_str); }

/* Pointer-keyed shorthand. */
static inline void *ptrmap_get(const struct hmap *m, const void *k) { return hmap_get(m, hash_ptr(k), k, hmap_eq_ptr); }
static inline int ptrmap_put(struct hmap *m, const void *k, void *v)
{
    return hmap_put(m, hash_ptr(k), k, v, hmap_eq_ptr);
}

#endif
