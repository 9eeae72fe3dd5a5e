/* What the authenticator's files share (auth.c: the authenticator and authentication; tokens.c:
 * the token table; webhook.c: the TokenReview client). Not for other modules. */
#ifndef CALDERA_AUTH_INTERNAL_H
#define CALDERA_AUTH_INTERNAL_H

#include <openssl/evp.h>
#include <pthread.h>

#include "common/hashmap.h"
#include "gateway/auth/auth.h"

/* A token of the table: the stored Token and the principal every request using it shares. */
struct token_entry {
    struct token token;
    struct principal *who;
};

struct auth_webhook;

struct auth {
    bool required;
    struct core *core;
    struct store *store;
    int durable_timeout_ms;
    EVP_MD *sha256;               /* fetched once: no lookup per request */
    pthread_rwlock_t lock;        /* guards the two maps: many readers (every request), rare writers */
    struct hmap by_digest;        /* SHA-256 of the token -> struct token_entry */
    struct hmap by_id;            /* id -> the same entry */
    struct auth_webhook *webhook; /* NULL without --auth-webhook */
    struct principal *anonymous;  /* the loopback admin without --auth */
};

/* The SHA-256 of a token. Returns 0, or -1 when libcrypto fails. */
int auth_digest(const struct auth *a, const char *token, size_t len, uint8_t out[TOKEN_DIGEST_LEN]);
/* The principal of a token of the table with this digest (a new reference), or NULL. */
struct principal *auth_tokens_lookup(struct auth *a, const uint8_t digest[TOKEN_DIGEST_LEN]);
/* Frees every entry of the table. */
void auth_tokens_free(struct auth *a);

/* webhook.c: a TokenReview client with a bounded cache (answers kept 2 minutes, refusals 10
 * seconds, as kube-apiserver's defaults). */
int auth_webhook_new(const char *url, int timeout_ms, struct auth_webhook **out);
void auth_webhook_free(struct auth_webhook *w);
/* Asks (or answers from the cache) who the token is. Returns 0 with a new reference in *out, or -1
 * with a 401 in st (not authenticated, or the webhook failed: never longer than its timeout). */
int auth_webhook_review(struct auth_webhook *w, const char *token, size_t len, const uint8_t digest[TOKEN_DIGEST_LEN],
                        struct principal **out, struct api_status *st);

#endif
