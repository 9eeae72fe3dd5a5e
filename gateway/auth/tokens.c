/* The gateway's tokens: a table in memory (SHA-256 -> principal, and id -> the same entry) under a
 * read-write lock, loaded from the store at start-up and changed only once the core has recorded
 * the change (a Token row of the objects table) and the store has made it durable. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/fs.h"
#include "common/grow.h"
#include "common/log.h"
#include "common/strv.h"
#include "gateway/auth/internal.h"
#include "scheduler/core/core.h"
#include "store/history.h"
#include "store/store.h"

#define TOKENS_GROUP "caldera.io"
#define ID_TRIES 8

/* --- the table ------------------------------------------------------------------------------- */

static uint64_t digest_hash(const uint8_t *digest)
{
    uint64_t h;
    memcpy(&h, digest, sizeof h); /* a SHA-256 is as mixed as a hash gets */
    return h;
}

static bool digest_eq(const void *a, const void *b) { return memcmp(a, b, TOKEN_DIGEST_LEN) == 0; }

static void entry_free(struct token_entry *e)
{
    if (!e)
        return;
    principal_release(e->who);
    token_clear(&e->token);
    free(e);
}

/* Takes t's contents into a new entry of the table (replacing one with its id). Returns 0 or -1. */
static int table_put(struct auth *a, struct token *t)
{
    struct token_entry *e = calloc(1, sizeof *e);
    if (!e) {
        token_clear(t);
        return -1;
    }
    e->token = *t;
    *t = (struct token){0};
    const struct token_spec *s = &e->token.spec;
    e->who = principal_new(s->user, s->role, s->namespaces, s->uid, s->gid, e->token.id, PRINCIPAL_TOKEN);
    if (!e->who) {
        entry_free(e);
        return -1;
    }
    pthread_rwlock_wrlock(&a->lock);
    struct token_entry *old = strmap_remove(&a->by_id, e->token.id);
    if (old)
        hmap_remove(&a->by_digest, digest_hash(old->token.digest), old->token.digest, digest_eq);
    int rc = strmap_put(&a->by_id, e->token.id, e) |
             hmap_put(&a->by_digest, digest_hash(e->token.digest), e->token.digest, e, digest_eq);
    if (rc != 0) {
        strmap_remove(&a->by_id, e->token.id);
        hmap_remove(&a->by_digest, digest_hash(e->token.digest), e->token.digest, digest_eq);
    }
    pthread_rwlock_unlock(&a->lock);
    entry_free(old);
    if (rc != 0)
        entry_free(e);
    return rc;
}

/* Removes token id from the table; returns whether it was there. */
static bool table_remove(struct auth *a, const char *id)
{
    pthread_rwlock_wrlock(&a->lock);
    struct token_entry *e = strmap_remove(&a->by_id, id);
    if (e)
        hmap_remove(&a->by_digest, digest_hash(e->token.digest), e->token.digest, digest_eq);
    pthread_rwlock_unlock(&a->lock);
    entry_free(e); /* requests still holding its principal keep their reference */
    return e != NULL;
}

struct principal *auth_tokens_lookup(struct auth *a, const uint8_t digest[TOKEN_DIGEST_LEN])
{
    pthread_rwlock_rdlock(&a->lock);
    struct token_entry *e = hmap_get(&a->by_digest, digest_hash(digest), digest, digest_eq);
    struct principal *p = e ? principal_ref(e->who) : NULL;
    pthread_rwlock_unlock(&a->lock);
    return p;
}

void auth_tokens_free(struct auth *a)
{
    const void *key;
    void *value;
    for (size_t i = 0; hmap_next(&a->by_id, &i, &key, &value);)
        entry_free(value);
    hmap_free(&a->by_id);
    hmap_free(&a->by_digest);
}

/* --- loading ----------------------------------------------------------------------------------- */

int auth_load_token(struct auth *a, const char *name, const char *json)
{
    struct token t;
    if (token_from_store_json(json, &t) != 0) {
        log_warn("auth: the stored Token %s is not valid; it is skipped", name);
        return 0;
    }
    return table_put(a, &t);
}

static int load_row(void *ctx, const struct store_object_row *row, struct api_status *st)
{
    return auth_load_token(ctx, row->name, row->json) == 0
               ? 0
               : api_fail(st, 500, "InternalError", "out of memory loading tokens");
}

int auth_load(struct auth *a, const char *db_path, char *err, size_t errlen)
{
    struct api_status st = {0};
    struct store_reader *r;
    int rc = store_reader_open(db_path, &r, &st);
    if (rc == 0) {
        rc = store_read_objects(r, TOKEN_KIND, load_row, a, &st);
        store_reader_close(r);
    }
    if (rc != 0)
        snprintf(err, errlen, "cannot load the tokens: %s", st.message);
    return rc;
}

/* --- changes through the core ------------------------------------------------------------------ */

/* Records a Token put (json set) or delete through the core and waits until it is durable. */
static int record(struct auth *a, const char *id, const char *json, const char *message, struct api_status *st)
{
    struct core_request creq = {
        .op = json ? CORE_RECORD_PUT : CORE_RECORD_DELETE,
        .ns = "",
        .name = id,
        .record = {.kind = TOKEN_KIND, .reason = json ? "Created" : "Deleted", .message = message, .json = json}};
    if (core_call(a->core, &creq) != 0) {
        *st = creq.status;
        return -1;
    }
    json_decref(creq.body);
    if (store_wait(a->store, creq.durable_seq, a->durable_timeout_ms) != 0) {
        char why[512];
        store_failure_kind(a->store, why, sizeof why);
        return api_fail(st, 503, "ServiceUnavailable", "the job database did not record the token in time: %s", why);
    }
    return 0;
}

static int copy_spec(const struct token_spec *from, struct token_spec *to)
{
    *to = *from;
    to->user = strdup(from->user);
    to->namespaces = strv_dup(from->namespaces);
    if (to->user && to->namespaces)
        return 0;
    token_spec_clear(to);
    return -1;
}

static bool id_taken(struct auth *a, const char *id)
{
    pthread_rwlock_rdlock(&a->lock);
    bool taken = strmap_get(&a->by_id, id) != NULL;
    pthread_rwlock_unlock(&a->lock);
    return taken;
}

/* A fresh token whose id no token has. */
static int new_token(struct auth *a, char text[TOKEN_LEN + 1], struct token *t, struct api_status *st)
{
    for (int i = 0; i < ID_TRIES; i++) {
        if (token_generate(text) != 0)
            return api_fail(st, 500, "InternalError", "the kernel gave no random bytes for a token: %s",
                            strerror(errno));
        memcpy(t->id, text, TOKEN_ID_LEN);
        t->id[TOKEN_ID_LEN] = '\0';
        if (!id_taken(a, t->id))
            return auth_digest(a, text, TOKEN_LEN, t->digest) == 0
                       ? 0
                       : api_fail(st, 500, "InternalError", "cannot hash the new token");
    }
    return api_fail(st, 500, "InternalError", "no free token id after %d tries", ID_TRIES);
}

int auth_create_token(struct auth *a, const struct token_spec *spec, json_t **answer, char token_out[TOKEN_LEN + 1],
                      struct api_status *st)
{
    *answer = NULL;
    char text[TOKEN_LEN + 1];
    struct token t = {.created_ms = clock_wall_ms()};
    if (new_token(a, text, &t, st) != 0)
        return -1;
    if (copy_spec(spec, &t.spec) != 0)
        return api_fail(st, 500, "InternalError", "out of memory");
    char *json = token_to_store_json(&t);
    char message[400];
    snprintf(message, sizeof message, "token %s of user %s (role %s) created", t.id, spec->user,
             token_role_name(spec->role));
    int rc = json ? record(a, t.id, json, message, st) : api_fail(st, 500, "InternalError", "out of memory");
    free(json);
    if (rc == 0)
        *answer = token_render(&t, text);
    if (rc == 0 && (!*answer || table_put(a, &t) != 0)) {
        json_decref(*answer);
        *answer = NULL;
        rc = api_fail(st, 500, "InternalError", "out of memory keeping the new token");
    }
    token_clear(&t);
    if (rc == 0 && token_out)
        memcpy(token_out, text, TOKEN_LEN + 1);
    return rc;
}

static int not_found(struct api_status *st, const char *id)
{
    api_set_details(st, "tokens", TOKENS_GROUP, id);
    return api_fail(st, 404, "NotFound", "tokens." TOKENS_GROUP " \"%s\" not found", id);
}

int auth_delete_token(struct auth *a, const char *id, struct api_status *st)
{
    char message[300];
    pthread_rwlock_rdlock(&a->lock);
    const struct token_entry *e = strmap_get(&a->by_id, id);
    if (e)
        snprintf(message, sizeof message, "token %s of user %s deleted", id, e->token.spec.user);
    pthread_rwlock_unlock(&a->lock);
    /* Unusable at once: a revoked token must not work while its deletion is being recorded. */
    if (!e || !table_remove(a, id))
        return not_found(st, id);
    return record(a, id, NULL, message, st);
}

static bool may_see(const struct token_entry *e, const struct principal *who)
{
    return principal_is_admin(who) || (who && strcmp(e->token.spec.user, who->user) == 0);
}

int auth_get_token(struct auth *a, const char *id, const struct principal *who, json_t **out, struct api_status *st)
{
    *out = NULL;
    pthread_rwlock_rdlock(&a->lock);
    const struct token_entry *e = strmap_get(&a->by_id, id);
    bool visible = e && may_see(e, who);
    if (visible)
        *out = token_render(&e->token, NULL);
    pthread_rwlock_unlock(&a->lock);
    if (!e)
        return not_found(st, id);
    if (!visible) {
        api_set_details(st, "tokens", TOKENS_GROUP, id);
        return api_fail(st, 403, "Forbidden",
                        "tokens." TOKENS_GROUP
                        " \"%s\" is forbidden: User \"%s\" cannot get resource \"tokens\" in "
                        "API group \"" TOKENS_GROUP "\" at the cluster scope: it is another user's token",
                        id, principal_user(who));
    }
    return *out ? 0 : api_fail(st, 500, "InternalError", "out of memory");
}

static int by_name(const void *x, const void *y)
{
    const char *a = json_string_value(json_object_get(json_object_get(*(json_t *const *)x, "metadata"), "name"));
    const char *b = json_string_value(json_object_get(json_object_get(*(json_t *const *)y, "metadata"), "name"));
    return strcmp(a ? a : "", b ? b : "");
}

json_t *auth_list_tokens(struct auth *a, const struct principal *who)
{
    json_t **items = NULL;
    size_t n = 0, cap = 0;
    const void *key;
    void *value;
    pthread_rwlock_rdlock(&a->lock);
    for (size_t i = 0; hmap_next(&a->by_id, &i, &key, &value);) {
        const struct token_entry *e = value;
        if (!may_see(e, who))
            continue;
        if (GROW(items, cap, n + 1, 16) != 0)
            break;
        items[n++] = token_render(&e->token, NULL);
    }
    pthread_rwlock_unlock(&a->lock);
    qsort(items, n, sizeof *items, by_name);
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, items[i]);
    free(items);
    return json_pack("{s:s, s:s, s:{}, s:o}", "apiVersion", TOKEN_API_VERSION, "kind", "TokenList", "metadata", "items",
                     list);
}

/* --- the first admin token ----------------------------------------------------------------------- */

static bool has_admin_token(struct auth *a)
{
    bool found = false;
    const void *key;
    void *value;
    pthread_rwlock_rdlock(&a->lock);
    for (size_t i = 0; !found && hmap_next(&a->by_id, &i, &key, &value);)
        found = ((const struct token_entry *)value)->token.spec.role == TOKEN_ROLE_ADMIN;
    pthread_rwlock_unlock(&a->lock);
    return found;
}

int auth_bootstrap(struct auth *a, const char *data_dir, char *err, size_t errlen)
{
    if (has_admin_token(a))
        return 0;
    char *every[] = {TOKEN_ALL_NAMESPACES, NULL};
    const struct token_spec spec = {
        .user = "admin", .namespaces = every, .uid = -1, .gid = -1, .role = TOKEN_ROLE_ADMIN};
    struct api_status st = {0};
    json_t *answer;
    char token[TOKEN_LEN + 1], line[TOKEN_LEN + 2], path[4200];
    if (auth_create_token(a, &spec, &answer, token, &st) != 0) {
        snprintf(err, errlen, "cannot create the first admin token: %s", st.message);
        return -1;
    }
    json_decref(answer);
    snprintf(path, sizeof path, "%s/admin.token", data_dir);
    int n = snprintf(line, sizeof line, "%s\n", token);
    if (write_file_atomic(path, line, (size_t)n, 0600) != 0) {
        snprintf(err, errlen, "cannot write the first admin token to %s: %s", path, strerror(errno));
        return -1;
    }
    log_info("auth: no admin token was stored: a new one (token %.*s, user admin) is in %s (mode 0600)", TOKEN_ID_LEN,
             token, path);
    return 0;
}
