/* Arenas for big parsed documents: while one is open on a thread, Jansson's allocations there come
 * from 1 MiB chunks by bumping a pointer; the chunks go back when the last of their values is freed. */
#include "adapters/intake/internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/free_batch.h"
#include "common/free_later.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#define ASAN_UNPOISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#endif

#define CHUNK_SHIFT 20
#define CHUNK_SIZE ((size_t)1 << CHUNK_SHIFT)
#define ALIGN 8                   /* json_t and its strings need no more */
#define LARGEST (CHUNK_SIZE / 16) /* bigger requests go to malloc, as do all outside an arena */
#define ADDRESS_BITS 47           /* user space on x86-64 and arm64 (4-level tables) */
#define NGRANULES ((size_t)1 << (ADDRESS_BITS - CHUNK_SHIFT))
#define SPARE_CHUNKS 16 /* kept for the next big document: fresh pages cost faults */

/* At the start of every chunk. */
struct chunk_head {
    struct doc_arena *arena;
    struct chunk_head *next;
};

struct doc_arena {
    struct doc_arena *outer; /* the arena open before this one on the thread (nesting) */
    char *cur, *end;
    struct chunk_head *chunks;
    /* While open only its thread allocates and frees (no one else has its values yet): plain
     * counts; at the close they become `live`, which any thread then counts down. */
    size_t allocated, freed_open;
    bool closed;
    atomic_size_t live;
};

static _Thread_local struct doc_arena *open_arena;

/* One bit per 1 MiB of address space: set while the granule is an arena's chunk, so a free can tell
 * an arena's value from malloc's without a header. Mapped on first use; untouched pages cost nothing. */
static atomic_uchar *_Atomic granules;
static pthread_once_t granules_once = PTHREAD_ONCE_INIT;

static atomic_int arenas_alive;

static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static struct chunk_head *spare;
static int nspare;

static void map_granules(void)
{
    void *p = mmap(NULL, NGRANULES / 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    atomic_store_explicit(&granules, p == MAP_FAILED ? NULL : p, memory_order_release);
}

static bool granule_is_chunk(const void *p)
{
    size_t g = (uintptr_t)p >> CHUNK_SHIFT;
    atomic_uchar *map = atomic_load_explicit(&granules, memory_order_acquire);
    return map && g < NGRANULES && (atomic_load_explicit(&map[g / 8], memory_order_relaxed) >> (g % 8) & 1);
}

static void granule_mark(const void *p, bool chunk)
{
    size_t g = (uintptr_t)p >> CHUNK_SHIFT;
    unsigned char bit = (unsigned char)(1u << (g % 8));
    atomic_uchar *map = atomic_load_explicit(&granules, memory_order_acquire); /* set: an arena exists */
    if (chunk)
        atomic_fetch_or_explicit(&map[g / 8], bit, memory_order_relaxed);
    else
        atomic_fetch_and_explicit(&map[g / 8], (unsigned char)~bit, memory_order_relaxed);
}

static struct chunk_head *chunk_new(struct doc_arena *a)
{
    struct chunk_head *c = NULL;
    pthread_mutex_lock(&spare_lock);
    if (spare) {
        c = spare;
        spare = c->next;
        nspare--;
    }
    pthread_mutex_unlock(&spare_lock);
    if (c)
        ASAN_UNPOISON_MEMORY_REGION(c, CHUNK_SIZE);
    if (!c) {
        c = aligned_alloc(CHUNK_SIZE, CHUNK_SIZE);
        if (!c)
            return NULL;
        if (((uintptr_t)c >> CHUNK_SHIFT) >= NGRANULES) { /* beyond what the map covers: not used */
            free(c);
            return NULL;
        }
    }
    *c = (struct chunk_head){.arena = a, .next = a->chunks};
    granule_mark(c, true);
    a->chunks = c;
    a->cur = (char *)(c + 1);
    a->end = (char *)c + CHUNK_SIZE;
    return c;
}

static void arena_release(struct doc_arena *a)
{
    for (struct chunk_head *c = a->chunks, *next; c; c = next) {
        next = c->next;
        granule_mark(c, false);
        pthread_mutex_lock(&spare_lock);
        bool keep = nspare < SPARE_CHUNKS;
        if (keep) {
            c->next = spare;
            spare = c;
            nspare++;
            /* a value used after its document went is caught by ASan builds */
            ASAN_POISON_MEMORY_REGION(c + 1, CHUNK_SIZE - sizeof *c);
        }
        pthread_mutex_unlock(&spare_lock);
        if (!keep)
            free(c);
    }
    free(a);
    atomic_fetch_sub_explicit(&arenas_alive, 1, memory_order_relaxed);
}

/* A freeing walk inside free_batch_begin/_end (common/free_batch.h) counts its frees of a closed
 * arena's values here and settles them in one atomic step (at the end, or when a value of another
 * arena comes) instead of one per value: the arena cannot be given back meanwhile, which nothing then
 * needs. */
static _Thread_local struct doc_arena *batch_arena;
static _Thread_local size_t batch_frees;

static void batch_settle(void)
{
    struct doc_arena *a = batch_arena;
    size_t n = batch_frees;
    batch_arena = NULL;
    batch_frees = 0;
    if (a && atomic_fetch_sub_explicit(&a->live, n, memory_order_acq_rel) == n)
        arena_release(a);
}

static void *doc_malloc(size_t size)
{
    struct doc_arena *a = open_arena;
    if (!a || size > LARGEST)
        return malloc(size);
    size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if ((size_t)(a->end - a->cur) < size && !chunk_new(a))
        return malloc(size);
    void *p = a->cur;
    a->cur += size;
    a->allocated++;
    return p;
}

static void doc_free(void *p)
{
    if (!p)
        return;
    if (!granule_is_chunk(p)) {
        free(p);
        return;
    }
    struct chunk_head *c = (struct chunk_head *)((uintptr_t)p & ~(uintptr_t)(CHUNK_SIZE - 1));
    struct doc_arena *a = c->arena;
    if (!a->closed) { /* still being built: only its own thread has its values */
        a->freed_open++;
        return;
    }
    if (free_batch_depth > 0) {
        if (a != batch_arena) {
            batch_settle();
            batch_arena = a;
        }
        batch_frees++;
        return;
    }
    if (atomic_fetch_sub_explicit(&a->live, 1, memory_order_acq_rel) == 1)
        arena_release(a);
}

static bool arena_value(const json_t *v) { return granule_is_chunk(v); }

/* Every Jansson allocation of the process goes through these from the start; outside an arena they
 * are malloc and free. A big body's tree (an arena's) is worth freeing on free_later's thread. */
__attribute__((constructor)) static void install(void)
{
    json_set_alloc_funcs(doc_malloc, doc_free);
    free_batch_set_settle(batch_settle);
    free_later_set_filter(arena_value);
}

struct doc_arena *doc_arena_open(void)
{
    pthread_once(&granules_once, map_granules);
    if (!atomic_load_explicit(&granules, memory_order_acquire))
        return NULL;
    struct doc_arena *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    atomic_fetch_add_explicit(&arenas_alive, 1, memory_order_relaxed);
    a->outer = open_arena;
    open_arena = a;
    return a;
}

void doc_arena_close(struct doc_arena *a)
{
    if (!a)
        return;
    open_arena = a->outer;
    a->closed = true;
    size_t live = a->allocated - a->freed_open;
    atomic_store_explicit(&a->live, live, memory_order_release);
    if (live == 0)
        arena_release(a);
}

bool doc_arena_holds(const void *p) { return granule_is_chunk(p); }

int doc_arena_count(void) { return atomic_load_explicit(&arenas_alive, memory_order_relaxed); }
