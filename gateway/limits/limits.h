/* The gateway's limits and hygiene: a per-client token-bucket rate limit (keyed by a hash of the
 * bearer token, else by the client address), the Retry-After an answer carries, and CORS origins. */
#ifndef CALDERA_LIMITS_H
#define CALDERA_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sockaddr;

/* --- the rate limit (rate.c) ------------------------------------------------------- */

#define RATE_KEY_ID_BYTES 16

/* Who a request counts against: a bearer token (by the first 16 bytes of its SHA-256: the token
 * itself is never kept) or a client address (IPv4 as IPv4-mapped IPv6). */
struct rate_key {
    uint8_t kind; /* 't' token, 'a' address, 0 none */
    uint8_t id[RATE_KEY_ID_BYTES];
};

struct rate_limiter;

/* A limiter granting each key per_second requests a second, and up to burst at once (a bucket of
 * burst tokens refilled at per_second). Striped: many threads take at once. Returns 0, or -1 when
 * memory or SHA-256 is missing. */
int rate_limiter_new(double per_second, double burst, struct rate_limiter **out);
void rate_limiter_free(struct rate_limiter *rl);
/* What the limiter was made with. */
void rate_limiter_settings(const struct rate_limiter *rl, double *per_second, double *burst);

/* The key of a bearer token (len bytes). Returns 0, or -1 when it cannot be hashed. */
int rate_key_token(const struct rate_limiter *rl, const char *token, size_t len, struct rate_key *out);
/* The key of a client address (AF_INET or AF_INET6). Returns 0, or -1 for another family. */
int rate_key_address(const struct sockaddr *sa, struct rate_key *out);

/* Takes one token from key's bucket at now_ns (monotonic). Returns 0 when the request may go on,
 * else the whole seconds (at least 1) until the bucket holds a token again. */
int rate_limiter_take(struct rate_limiter *rl, const struct rate_key *key, int64_t now_ns);

/* Parses a rate: "N/s", "N/m" (per minute) or a bare "N" (per second); N >= 0, fractions allowed.
 * Returns 0 with requests per second in *per_second, or -1. */
int rate_parse(const char *text, double *per_second);

/* --- CORS (cors.c) ----------------------------------------------------------------- */

/* The origins browsers may call the API from, exactly as a browser sends them. */
struct cors_origins {
    const char **list;
    int n;
};

/* Checks a --cors-origin value: scheme://host[:port] with no path, no wildcard. Returns 0, or -1
 * with a sentence in err. */
int cors_origin_check(const char *origin, char *err, size_t errlen);
/* Adds an origin (the string must outlive the list). Returns 0, or -1 when memory runs out. */
int cors_origins_add(struct cors_origins *c, const char *origin);
void cors_origins_free(struct cors_origins *c);
/* The configured origin equal to origin, or NULL (origin may be NULL). */
const char *cors_origin_match(const struct cors_origins *c, const char *origin);

/* What a preflight is answered with for an allowed origin. */
#define CORS_ALLOW_METHODS "GET, HEAD, POST, PUT, DELETE"
#define CORS_ALLOW_HEADERS "Authorization, Content-Type"
#define CORS_EXPOSE_HEADERS "Retry-After, Warning"
#define CORS_MAX_AGE_S "600"

/* --- on requests and answers (request.c): the hooks gateway/hooks.c gives http/ ----------- */

struct http_req;
struct MHD_Response;

/* The request's client key: its bearer token when it sends `Authorization: Bearer`, else its
 * address. Answers 429 TooManyRequests (with Retry-After) and returns true when the key is over
 * its rate; false when the request may go on (always when no rate limit is set). */
bool limits_refuse_rate(struct http_req *req);
/* Notes the request's CORS origin, when configured. Then, for a preflight (OPTIONS with an
 * Origin), answers 204 with the allowed methods and headers, or 403 for an origin not configured,
 * and returns true; false for any other request. */
bool limits_answer_preflight(struct http_req *req);
/* Adds what every answer with this code carries: Retry-After on 429 and 503, the CORS headers for
 * a configured origin. */
void limits_decorate(const struct http_req *req, struct MHD_Response *resp, int code);

#endif
