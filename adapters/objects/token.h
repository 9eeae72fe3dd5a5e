/* caldera.io/v1 Tokens: who a bearer token stands for (user, namespaces, uid/gid, role), the
 * token's format (`<id>.<secret>`), its SHA-256 (the only form ever kept), and the object as posted,
 * stored and shown. Pure: no I/O but the kernel's random source for new tokens. */
#ifndef CALDERA_TOKEN_H
#define CALDERA_TOKEN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/intake/intake.h"
#include "common/api_status.h"

#define TOKEN_API_VERSION "caldera.io/v1"
#define TOKEN_KIND "Token"
#define TOKEN_ID_LEN 6      /* [a-z0-9], public: the object's metadata.name */
#define TOKEN_SECRET_LEN 32 /* [a-z0-9] from getrandom */
#define TOKEN_LEN (TOKEN_ID_LEN + 1 + TOKEN_SECRET_LEN)
#define TOKEN_DIGEST_LEN 32     /* SHA-256 */
#define TOKEN_ID_MAX 2147483646 /* uid/gid: -1 is "unset" to the kernel */
#define TOKEN_ALL_NAMESPACES "*"

/* What a role may do: viewer reads its namespaces; user also writes there; admin does everything
 * (every namespace, and the cluster's queues, nodes, classes, quotas and tokens). */
enum token_role { TOKEN_ROLE_VIEWER, TOKEN_ROLE_USER, TOKEN_ROLE_ADMIN };

const char *token_role_name(enum token_role role);
/* The role named s, or -1. */
int token_role_parse(const char *s);

/* Who a token stands for. namespaces is a NULL-terminated vector; {"*"} means every namespace. */
struct token_spec {
    char *user;
    char **namespaces;
    int32_t uid, gid; /* -1 when unset */
    enum token_role role;
};

/* A token as kept: its id, when it was made, whom it stands for, and the SHA-256 of the token. */
struct token {
    char id[TOKEN_ID_LEN + 1];
    int64_t created_ms;
    struct token_spec spec;
    uint8_t digest[TOKEN_DIGEST_LEN];
};

void token_spec_clear(struct token_spec *spec);
void token_clear(struct token *t);

/* The body of a POST: a Token ({"apiVersion": "caldera.io/v1", "kind": "Token", "spec": {...}}) or
 * its spec alone ({"user", "namespaces", "uid", "gid", "role"}, as the issue posts it); causes are
 * named spec.<field> either way. Rules: user required (letters, digits and ._@- , at most 253);
 * role admin, user (the default) or viewer; namespaces DNS-1123 labels, or ["*"] alone, required
 * but for admins (["*"] then); uid and gid together, 1..2147483646, required for role user. Returns
 * 0, or -1 with a 400 or a 422 Invalid Status (Token.caldera.io) in st. */
int token_spec_from_doc(const struct intake_doc *doc, struct token_spec *out, struct api_status *st);

/* A new token "<id>.<secret>" (TOKEN_LEN chars and a NUL) from getrandom. Returns 0, or -1 when the
 * kernel gives no randomness (never a weaker source). */
int token_generate(char out[TOKEN_LEN + 1]);
/* Whether text (len bytes) has the form of a token of ours; its id goes into id when it does. */
bool token_parse(const char *text, size_t len, char id[TOKEN_ID_LEN + 1]);

/* The Token object: apiVersion, kind, metadata {name, creationTimestamp}, spec; with status.token
 * when token_text is not NULL (the answer to its creation, the only time it is shown). */
json_t *token_render(const struct token *t, const char *token_text);
/* As stored in the objects table: the rendering plus status.sha256 (hex). Caller frees. */
char *token_to_store_json(const struct token *t);
/* Back from the store. Returns 0, or -1 when the JSON is not a stored Token. */
int token_from_store_json(const char *json, struct token *out);

#endif
