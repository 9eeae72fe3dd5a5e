/* Principals: a request's identity, made once per token (or webhook answer) and shared by reference
 * count between the token table and every request using it; the namespace rights of each role. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strv.h"
#include "gateway/auth/principal.h"

static void principal_free(struct principal *p)
{
    free(p->user);
    strv_free((char **)p->namespaces.names);
    free(p);
}

struct principal *principal_new(const char *user, enum token_role role, char *const *namespaces, int32_t uid,
                                int32_t gid, const char *token_id, enum principal_source source)
{
    struct principal *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    atomic_init(&p->refs, 1);
    p->user = strdup(user ? user : "");
    p->role = role;
    p->uid = uid;
    p->gid = gid;
    p->source = source;
    snprintf(p->token_id, sizeof p->token_id, "%s", token_id ? token_id : "");
    bool all = role == TOKEN_ROLE_ADMIN;
    for (size_t i = 0; namespaces && namespaces[i]; i++)
        all = all || strcmp(namespaces[i], TOKEN_ALL_NAMESPACES) == 0;
    char **names = all ? NULL : strv_dup(namespaces);
    p->namespaces = (struct namespace_set){
        .all = all, .n = names ? (int)strv_len(names) : 0, .names = (const char *const *)names};
    if (!p->user || (!all && namespaces && namespaces[0] && !names)) {
        principal_free(p);
        return NULL;
    }
    return p;
}

struct principal *principal_ref(struct principal *p)
{
    if (p)
        atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
    return p;
}

void principal_release(struct principal *p)
{
    if (p && atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) == 1)
        principal_free(p);
}

bool principal_is_admin(const struct principal *p) { return p && p->role == TOKEN_ROLE_ADMIN; }

const char *principal_user(const struct principal *p) { return p ? p->user : "anonymous"; }

bool principal_all_namespaces(const struct principal *p) { return p && p->namespaces.all; }

bool principal_reads_namespace(const struct principal *p, const char *ns)
{
    return p && ns && namespace_set_has(&p->namespaces, ns);
}

bool principal_writes_namespace(const struct principal *p, const char *ns)
{
    return p && p->role != TOKEN_ROLE_VIEWER && principal_reads_namespace(p, ns);
}

const struct namespace_set *principal_visible(const struct principal *p)
{
    static const struct namespace_set none = {.all = false, .n = 0, .names = NULL};
    if (!p)
        return &none;
    return p->namespaces.all ? NULL : &p->namespaces;
}
