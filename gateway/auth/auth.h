/* Who is asking and what they may do. A request's principal (user, role, namespaces, uid/gid) comes
 * from its bearer token: the gateway's own tokens (kept hashed in the store, held in memory), or an
 * external TokenReview webhook; without --auth an anonymous request from loopback is an admin.
 * Every function here may be called from any thread (the HTTP threads, the WebSocket thread). */
#ifndef CALDERA_AUTH_H
#define CALDERA_AUTH_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/objects/token.h"
#include "common/api_status.h"
#include "common/namespace_set.h"
#include "gateway/auth/principal.h"

struct core;
struct store;
struct sockaddr;

/* --- the authenticator (auth.c, tokens.c, webhook.c) ---------------------------------- */

struct auth;

struct auth_config {
    bool required;           /* --auth: every request but /healthz and the UI's files needs a token */
    const char *webhook_url; /* --auth-webhook: TokenReview for tokens not of ours; NULL: none */
    int webhook_timeout_ms;  /* 0: 3 s */
    struct core *core;       /* tokens are recorded through it */
    struct store *store;     /* and durable before they are used */
    int durable_timeout_ms;  /* how long a change waits for its commit (0: 10 s) */
};

/* Returns 0, or -1 with a sentence in err. */
int auth_new(const struct auth_config *cfg, struct auth **out, char *err, size_t errlen);
void auth_free(struct auth *a);
bool auth_required(const struct auth *a);

/* Loads the stored tokens (objects of kind Token) through a read-only connection to db_path. Call
 * once, before the server listens. Returns 0, or -1 with a sentence in err. */
int auth_load(struct auth *a, const char *db_path, char *err, size_t errlen);
/* auth_load's work for one stored Token already read (the daemon's come with the core's start-up
 * load: core_take_stored_tokens). Returns 0 (an invalid Token is skipped, logged), or -1 out of memory. */
int auth_load_token(struct auth *a, const char *name, const char *json);
/* When no admin token is stored, creates one (user "admin", every namespace) and writes it to
 * <data_dir>/admin.token (mode 0600, atomically). Returns 0, or -1 with a sentence in err. */
int auth_bootstrap(struct auth *a, const char *data_dir, char *err, size_t errlen);

/* The principal of a bearer token (len bytes; token NULL or len 0: none was sent). No token: an
 * anonymous admin when --auth is off and the peer is loopback, else 401. A token is always checked:
 * the gateway's own first (a SHA-256 and a table lookup), then the webhook when there is one.
 * Returns 0 with a new reference in *out, or -1 with a 401 Unauthorized Status in st. */
int auth_authenticate_token(struct auth *a, const char *token, size_t len, bool peer_is_loopback,
                            struct principal **out, struct api_status *st);
/* Whether a peer address is loopback: 127.0.0.0/8, ::1, or ::ffff:127.0.0.0/104. */
bool auth_address_is_loopback(const struct sockaddr *sa);

/* Tokens (tokens.c). Create records the Token through the core, waits until it is durable,
 * then makes it usable; *answer is the Token with status.token (the only time it is shown). */
int auth_create_token(struct auth *a, const struct token_spec *spec, json_t **answer, char token_out[TOKEN_LEN + 1],
                      struct api_status *st);
/* Deletes token id (recorded, durable, then unusable at once). 404 when there is none. */
int auth_delete_token(struct auth *a, const char *id, struct api_status *st);
/* One token as shown (never the token itself): 404 when missing, 403 when it is another user's
 * and who is no admin. */
int auth_get_token(struct auth *a, const char *id, const struct principal *who, json_t **out, struct api_status *st);
/* TokenList of every token (an admin) or of who's user's tokens (anyone else), by id. */
json_t *auth_list_tokens(struct auth *a, const struct principal *who);

/* Audit events posted to the core that had to be dropped (too many waiting): for /metrics. */
void auth_count_dropped_audit(void);
uint64_t auth_dropped_audits(void);

#endif
