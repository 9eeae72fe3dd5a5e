/* A request's principal: who asks (user, role, namespaces, uid/gid) and what that lets them read
 * and write; made once per token or webhook answer and shared by reference count. */
#ifndef CALDERA_PRINCIPAL_H
#define CALDERA_PRINCIPAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "adapters/objects/token.h"
#include "common/namespace_set.h"

enum principal_source {
    PRINCIPAL_TOKEN,     /* one of the gateway's tokens */
    PRINCIPAL_WEBHOOK,   /* resolved by the --auth-webhook service */
    PRINCIPAL_ANONYMOUS, /* no token, from loopback, without --auth */
};

/* A request's identity: immutable once made, shared by reference count. */
struct principal {
    atomic_int refs;
    char *user;
    enum token_role role;
    struct namespace_set namespaces; /* every namespace (admins, "*"), or the list (names owned) */
    int32_t uid, gid;                /* -1 when unset */
    char token_id[TOKEN_ID_LEN + 1]; /* the gateway's token it came from, "" otherwise */
    enum principal_source source;
};

/* A new principal with one reference; namespaces is NULL-terminated ({"*"}: every namespace, and
 * an admin has every namespace whatever it says). NULL when memory runs out. */
struct principal *principal_new(const char *user, enum token_role role, char *const *namespaces, int32_t uid,
                                int32_t gid, const char *token_id, enum principal_source source);
/* Another reference (p may be NULL); returns p. */
struct principal *principal_ref(struct principal *p);
/* Drops a reference; the last frees it. p may be NULL. */
void principal_release(struct principal *p);

/* A NULL principal has no rights. */
bool principal_is_admin(const struct principal *p);
const char *principal_user(const struct principal *p);
/* Every namespace is its own: admins, and tokens whose namespaces are ["*"]. */
bool principal_all_namespaces(const struct principal *p);
/* Reading namespaced objects of ns (jobs, pods, logs, history...): any role, in its namespaces. */
bool principal_reads_namespace(const struct principal *p, const char *ns);
/* Creating, changing or deleting them: roles user and admin, in its namespaces. */
bool principal_writes_namespace(const struct principal *p, const char *ns);
/* The namespaces it sees, for the core's and the history's lists; NULL when every one. */
const struct namespace_set *principal_visible(const struct principal *p);

#endif
