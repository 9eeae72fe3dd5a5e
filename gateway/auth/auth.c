/* The authenticator: from a bearer token (or its absence and the peer's address) to a principal, in
 * microseconds for the gateway's own tokens (a SHA-256 and a lookup under a read lock), through the
 * webhook's cache for the others. */
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "gateway/auth/internal.h"

#define DEFAULT_WEBHOOK_TIMEOUT_MS 3000
#define DEFAULT_DURABLE_TIMEOUT_MS 10000

static _Atomic uint64_t dropped_audits;

void auth_count_dropped_audit(void) { atomic_fetch_add_explicit(&dropped_audits, 1, memory_order_relaxed); }
uint64_t auth_dropped_audits(void) { return atomic_load_explicit(&dropped_audits, memory_order_relaxed); }

int auth_new(const struct auth_config *cfg, struct auth **out, char *err, size_t errlen)
{
    *out = NULL;
    struct auth *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    a->required = cfg->required;
    a->core = cfg->core;
    a->store = cfg->store;
    a->durable_timeout_ms = cfg->durable_timeout_ms > 0 ? cfg->durable_timeout_ms : DEFAULT_DURABLE_TIMEOUT_MS;
    pthread_rwlock_init(&a->lock, NULL);
    char *every[] = {TOKEN_ALL_NAMESPACES, NULL};
    a->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
    a->anonymous = principal_new("anonymous", TOKEN_ROLE_ADMIN, every, -1, -1, NULL, PRINCIPAL_ANONYMOUS);
    if (!a->sha256 || !a->anonymous) {
        snprintf(err, errlen, "cannot set up authentication: out of memory or no SHA-256 in libcrypto");
        auth_free(a);
        return -1;
    }
    int timeout = cfg->webhook_timeout_ms > 0 ? cfg->webhook_timeout_ms : DEFAULT_WEBHOOK_TIMEOUT_MS;
    if (cfg->webhook_url && auth_webhook_new(cfg->webhook_url, timeout, &a->webhook) != 0) {
        snprintf(err, errlen, "cannot set up the token webhook %s: out of memory", cfg->webhook_url);
        auth_free(a);
        return -1;
    }
    *out = a;
    return 0;
}

void auth_free(struct auth *a)
{
    if (!a)
        return;
    auth_tokens_free(a);
    auth_webhook_free(a->webhook);
    principal_release(a->anonymous);
    EVP_MD_free(a->sha256);
    pthread_rwlock_destroy(&a->lock);
    free(a);
}

bool auth_required(const struct auth *a) { return a->required; }

int auth_digest(const struct auth *a, const char *token, size_t len, uint8_t out[TOKEN_DIGEST_LEN])
{
    unsigned int n = 0;
    return EVP_Digest(token, len, out, &n, a->sha256, NULL) && n == TOKEN_DIGEST_LEN ? 0 : -1;
}

bool auth_address_is_loopback(const struct sockaddr *sa)
{
    if (sa && sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
        return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    }
    if (sa && sa->sa_family == AF_INET6) {
        const struct in6_addr *a6 = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
        static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (IN6_IS_ADDR_LOOPBACK(a6))
            return true;
        return memcmp(a6->s6_addr, mapped, sizeof mapped) == 0 && a6->s6_addr[12] == 127;
    }
    return false;
}

static int unauthorized(struct api_status *st, const char *why)
{
    return api_fail(st, 401, "Unauthorized", "Unauthorized: %s", why);
}

int auth_authenticate_token(struct auth *a, const char *token, size_t len, bool peer_is_loopback,
                            struct principal **out, struct api_status *st)
{
    *out = NULL;
    if (!token || len == 0) {
        if (!a->required && peer_is_loopback) {
            *out = principal_ref(a->anonymous);
            return 0;
        }
        return unauthorized(st, a->required ? "this server requires a bearer token (Authorization: Bearer <token>); "
                                              "an admin creates tokens with `jobctl token create`, and the first "
                                              "admin token is in the data directory's admin.token"
                                            : "anonymous requests are accepted only from loopback (127.0.0.0/8, "
                                              "::1); from elsewhere send a bearer token (Authorization: Bearer "
                                              "<token>; the first admin token is in the data directory's "
                                              "admin.token, and `jobctl token create` makes more)");
    }
    uint8_t digest[TOKEN_DIGEST_LEN];
    if (auth_digest(a, token, len, digest) != 0)
        return api_fail(st, 500, "InternalError", "cannot hash the bearer token");
    *out = auth_tokens_lookup(a, digest);
    if (*out)
        return 0;
    if (a->webhook)
        return auth_webhook_review(a->webhook, token, len, digest, out, st);
    return unauthorized(st, "the bearer token is not valid (unknown, or deleted)");
}
