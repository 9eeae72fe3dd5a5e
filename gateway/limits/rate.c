/* The per-client rate limit: a token bucket per key in a fixed table split into stripes, each with
 * its own small lock, so connection threads rarely wait on one another and memory stays bounded. */
#include <math.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "gateway/limits/limits.h"

#define RATE_STRIPES 64
#define RATE_SLOTS 128 /* per stripe: 8,192 clients tracked at once */
#define RATE_WINDOW 8  /* a key lives in one of the 8 slots from its home slot */
#define RETRY_AFTER_MAX_S 86400

struct rate_slot {
    struct rate_key key;
    bool used;
    double tokens;
    int64_t last_ns;
};

struct rate_stripe {
    _Alignas(64) pthread_mutex_t lock; /* a cache line of its own: no false sharing between stripes */
    struct rate_slot slots[RATE_SLOTS];
};

struct rate_limiter {
    struct rate_stripe *stripes;
    double per_second;
    double burst;
    EVP_MD *sha256; /* fetched once: no lookup per request */
};

int rate_limiter_new(double per_second, double burst, struct rate_limiter **out)
{
    *out = NULL;
    if (!(per_second > 0) || burst < 1)
        return -1;
    struct rate_limiter *rl = calloc(1, sizeof *rl);
    if (!rl)
        return -1;
    rl->per_second = per_second;
    rl->burst = burst;
    rl->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
    rl->stripes = aligned_alloc(64, sizeof(struct rate_stripe) * RATE_STRIPES);
    if (!rl->sha256 || !rl->stripes) {
        rate_limiter_free(rl);
        return -1;
    }
    memset(rl->stripes, 0, sizeof(struct rate_stripe) * RATE_STRIPES);
    for (int i = 0; i < RATE_STRIPES; i++)
        pthread_mutex_init(&rl->stripes[i].lock, NULL);
    *out = rl;
    return 0;
}

void rate_limiter_free(struct rate_limiter *rl)
{
    if (!rl)
        return;
    if (rl->stripes) {
        for (int i = 0; i < RATE_STRIPES; i++)
            pthread_mutex_destroy(&rl->stripes[i].lock);
        free(rl->stripes);
    }
    EVP_MD_free(rl->sha256);
    free(rl);
}

void rate_limiter_settings(const struct rate_limiter *rl, double *per_second, double *burst)
{
    *per_second = rl->per_second;
    *burst = rl->burst;
}

int rate_key_token(const struct rate_limiter *rl, const char *token, size_t len, struct rate_key *out)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    memset(out, 0, sizeof *out);
    if (!EVP_Digest(token, len, digest, &n, rl->sha256, NULL) || n < RATE_KEY_ID_BYTES)
        return -1;
    out->kind = 't';
    memcpy(out->id, digest, RATE_KEY_ID_BYTES);
    return 0;
}

int rate_key_address(const struct sockaddr *sa, struct rate_key *out)
{
    memset(out, 0, sizeof *out);
    out->kind = 'a';
    if (sa && sa->sa_family == AF_INET6) {
        memcpy(out->id, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
        return 0;
    }
    if (sa && sa->sa_family == AF_INET) { /* ::ffff:a.b.c.d, as the same client over IPv6 would be */
        out->id[10] = out->id[11] = 0xff;
        memcpy(out->id + 12, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
        return 0;
    }
    out->kind = 0;
    return -1;
}

static uint64_t key_hash(const struct rate_key *k)
{
    uint64_t a, b;
    memcpy(&a, k->id, 8);
    memcpy(&b, k->id + 8, 8);
    uint64_t h = a ^ (b * 0x9e3779b97f4a7c15ull) ^ k->kind; /* then splitmix64's finaliser */
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return h;
}

/* The slot's tokens once refilled up to now. */
static double refilled(const struct rate_limiter *rl, const struct rate_slot *s, int64_t now_ns)
{
    double elapsed_s = now_ns > s->last_ns ? (double)(now_ns - s->last_ns) / 1e9 : 0;
    double tokens = s->tokens + elapsed_s * rl->per_second;
    return tokens < rl->burst ? tokens : rl->burst;
}

/* key's slot in the window, or the one it takes over: a free slot, else the one with the most
 * tokens (a full bucket is the same as none, so taking it loses nothing). */
static struct rate_slot *find_slot(const struct rate_limiter *rl, struct rate_stripe *st, const struct rate_key *key,
                                   uint64_t h, int64_t now_ns)
{
    struct rate_slot *victim = NULL;
    double victim_tokens = -1;
    for (unsigned i = 0; i < RATE_WINDOW; i++) {
        struct rate_slot *s = &st->slots[(h + i) % RATE_SLOTS];
        if (s->used && memcmp(&s->key, key, sizeof *key) == 0)
            return s;
        double tokens = s->used ? refilled(rl, s, now_ns) : rl->burst + 1;
        if (tokens > victim_tokens) {
            victim = s;
            victim_tokens = tokens;
        }
    }
    *victim = (struct rate_slot){.key = *key, .used = true, .tokens = rl->burst, .last_ns = now_ns};
    return victim;
}

int rate_limiter_take(struct rate_limiter *rl, const struct rate_key *key, int64_t now_ns)
{
    uint64_t h = key_hash(key);
    struct rate_stripe *st = &rl->stripes[(h >> 40) % RATE_STRIPES];
    pthread_mutex_lock(&st->lock);
    struct rate_slot *s = find_slot(rl, st, key, h, now_ns);
    s->tokens = refilled(rl, s, now_ns);
    if (now_ns > s->last_ns)
        s->last_ns = now_ns;
    int wait_s = 0;
    if (s->tokens >= 1) {
        s->tokens -= 1;
    } else {
        double seconds = ceil((1 - s->tokens) / rl->per_second);
        wait_s = seconds < 1 ? 1 : seconds > RETRY_AFTER_MAX_S ? RETRY_AFTER_MAX_S : (int)seconds;
    }
    pthread_mutex_unlock(&st->lock);
    return wait_s;
}

int rate_parse(const char *text, double *per_second)
{
    char *end;
    double n = strtod(text, &end);
    if (end == text || !isfinite(n) || n < 0 || n > 1e7)
        return -1;
    if (*end == '\0' || strcmp(end, "/s") == 0)
        *per_second = n;
    else if (strcmp(end, "/m") == 0 || strcmp(end, "/min") == 0)
        *per_second = n / 60;
    else
        return -1;
    return 0;
}
