/* Webhook token authentication, as Kubernetes' (--authentication-token-webhook): a token not of
 * ours is POSTed as an authentication.k8s.io/v1 TokenReview; the answer's user, groups
 * (caldera:admin, caldera:user, caldera:viewer) and extra (caldera.io/namespaces, caldera.io/uid,
 * caldera.io/gid) make the principal. Answers are cached by the token's SHA-256 in a fixed table:
 * accepted for 2 minutes, refused for 10 seconds; a failing webhook is never cached. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/http_client.h"
#include "common/log.h"
#include "common/strv.h"
#include "gateway/auth/internal.h"

#define CACHE_SLOTS 1024
#define CACHE_WINDOW 8 /* a digest lives in one of the 8 slots from its home */
#define ACCEPTED_TTL_MS 120000
#define REFUSED_TTL_MS 10000
#define REVIEW_API_VERSION "authentication.k8s.io/v1"
#define ROLE_GROUP_PREFIX "caldera:"
#define EXTRA_NAMESPACES "caldera.io/namespaces"
#define EXTRA_UID "caldera.io/uid"
#define EXTRA_GID "caldera.io/gid"

struct cache_slot {
    bool used;
    uint8_t digest[TOKEN_DIGEST_LEN];
    int64_t expires_ms;    /* monotonic */
    struct principal *who; /* NULL: refused */
    char why[240];         /* why it was refused */
};

struct auth_webhook {
    char *url;
    int timeout_ms;
    pthread_mutex_t lock;
    struct cache_slot *slots;
};

int auth_webhook_new(const char *url, int timeout_ms, struct auth_webhook **out)
{
    struct auth_webhook *w = calloc(1, sizeof *w);
    *out = NULL;
    if (!w)
        return -1;
    w->url = strdup(url);
    w->timeout_ms = timeout_ms;
    w->slots = calloc(CACHE_SLOTS, sizeof *w->slots);
    pthread_mutex_init(&w->lock, NULL);
    if (!w->url || !w->slots) {
        auth_webhook_free(w);
        return -1;
    }
    *out = w;
    return 0;
}

void auth_webhook_free(struct auth_webhook *w)
{
    if (!w)
        return;
    for (int i = 0; w->slots && i < CACHE_SLOTS; i++)
        principal_release(w->slots[i].who);
    free(w->slots);
    free(w->url);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

/* --- the cache --------------------------------------------------------------------------------- */

static size_t home_slot(const uint8_t *digest)
{
    uint64_t h;
    memcpy(&h, digest, sizeof h);
    return (size_t)(h % CACHE_SLOTS);
}

/* 1: cached and accepted (*out a new reference); 0: cached and refused (why in st); -1: not cached. */
static int cache_get(struct auth_webhook *w, const uint8_t *digest, struct principal **out, struct api_status *st)
{
    int found = -1;
    int64_t now = clock_mono_ms();
    pthread_mutex_lock(&w->lock);
    for (size_t i = 0; i < CACHE_WINDOW && found < 0; i++) {
        struct cache_slot *s = &w->slots[(home_slot(digest) + i) % CACHE_SLOTS];
        if (!s->used || memcmp(s->digest, digest, TOKEN_DIGEST_LEN) != 0 || s->expires_ms <= now)
            continue;
        *out = principal_ref(s->who);
        if (!s->who)
            api_fail(st, 401, "Unauthorized", "Unauthorized: %s", s->why);
        found = s->who ? 1 : 0;
    }
    pthread_mutex_unlock(&w->lock);
    return found;
}

/* Keeps an answer: in the slot of the same digest, else a free or expired one, else the one that
 * expires first; the table never grows. */
static void cache_put(struct auth_webhook *w, const uint8_t *digest, struct principal *who, const char *why)
{
    int64_t now = clock_mono_ms();
    pthread_mutex_lock(&w->lock);
    struct cache_slot *pick = NULL;
    int64_t pick_expires = INT64_MAX;
    for (size_t i = 0; i < CACHE_WINDOW; i++) {
        struct cache_slot *s = &w->slots[(home_slot(digest) + i) % CACHE_SLOTS];
        if (s->used && memcmp(s->digest, digest, TOKEN_DIGEST_LEN) == 0) {
            pick = s;
            break;
        }
        int64_t expires = s->used && s->expires_ms > now ? s->expires_ms : INT64_MIN; /* free ones first */
        if (!pick || expires < pick_expires) {
            pick = s;
            pick_expires = expires;
        }
    }
    principal_release(pick->who);
    pick->used = true;
    memcpy(pick->digest, digest, TOKEN_DIGEST_LEN);
    pick->expires_ms = now + (who ? ACCEPTED_TTL_MS : REFUSED_TTL_MS);
    pick->who = principal_ref(who);
    snprintf(pick->why, sizeof pick->why, "%s", why ? why : "");
    pthread_mutex_unlock(&w->lock);
}

/* --- the review ---------------------------------------------------------------------------------- */

/* The role the groups give: the highest caldera:<role> group, viewer when none. */
static enum token_role role_of(const json_t *groups)
{
    int role = TOKEN_ROLE_VIEWER;
    size_t i;
    json_t *g;
    json_array_foreach(groups, i, g)
    {
        const char *name = json_string_value(g);
        int r = name && strncmp(name, ROLE_GROUP_PREFIX, strlen(ROLE_GROUP_PREFIX)) == 0
                    ? token_role_parse(name + strlen(ROLE_GROUP_PREFIX))
                    : -1;
        if (r > role)
            role = r;
    }
    return (enum token_role)role;
}

/* An id from extra[key]: ["1001"] (Kubernetes' extra values are lists of strings) or 1001; -1 when
 * absent or not an id. */
static int32_t extra_id(const json_t *extra, const char *key)
{
    const json_t *v = json_object_get(extra, key);
    if (json_is_array(v))
        v = json_array_get(v, 0);
    long long n = -1;
    if (json_is_integer(v)) {
        n = json_integer_value(v);
    } else if (json_is_string(v)) {
        char *end;
        errno = 0;
        n = strtoll(json_string_value(v), &end, 10);
        if (errno || *end || end == json_string_value(v))
            n = -1;
    }
    return n >= 1 && n <= TOKEN_ID_MAX ? (int32_t)n : -1;
}

/* The principal a TokenReview's status.user describes, or NULL (why says what is missing). */
static struct principal *principal_of(const json_t *user, char *why, size_t len)
{
    const char *name = json_string_value(json_object_get(user, "username"));
    if (!name || !*name) {
        snprintf(why, len, "the token webhook authenticated the token but named no user");
        return NULL;
    }
    const json_t *extra = json_object_get(user, "extra");
    char **namespaces = NULL;
    size_t i;
    json_t *ns;
    json_array_foreach(json_object_get(extra, EXTRA_NAMESPACES), i,
                       ns) if (json_is_string(ns) && strv_push(&namespaces, json_string_value(ns)) != 0) break;
    int32_t uid = extra_id(extra, EXTRA_UID), gid = extra_id(extra, EXTRA_GID);
    if (uid >= 0 && gid < 0)
        gid = uid; /* a user's own group, as useradd makes it */
    struct principal *p = principal_new(name, role_of(json_object_get(user, "groups")), namespaces, uid, gid, NULL,
                                        PRINCIPAL_WEBHOOK);
    strv_free(namespaces);
    if (!p)
        snprintf(why, len, "out of memory");
    return p;
}

static char *review_body(const char *token, size_t len)
{
    json_t *review = json_pack("{s:s, s:s, s:{s:s%}}", "apiVersion", REVIEW_API_VERSION, "kind", "TokenReview", "spec",
                               "token", token, len);
    char *text = review ? json_dumps(review, JSON_COMPACT) : NULL;
    json_decref(review);
    return text;
}

/* Asks the webhook. Returns 1 accepted (*out), 0 refused (why), -1 failed (why). */
static int ask(struct auth_webhook *w, const char *token, size_t len, struct principal **out, char *why, size_t why_len)
{
    char *body = review_body(token, len), err[512];
    if (!body) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    struct http_request req = {
        .method = "POST", .url = w->url, .body = body, .body_len = strlen(body), .timeout_ms = w->timeout_ms};
    struct http_response resp;
    int rc = http_do(&req, &resp, err, sizeof err);
    free(body);
    if (rc != 0) {
        snprintf(why, why_len, "the token webhook could not be asked: %s", err);
        return -1;
    }
    json_t *answer = resp.code >= 200 && resp.code < 300 ? json_loadb(resp.body, resp.len, 0, NULL) : NULL;
    const json_t *status = json_object_get(answer, "status");
    int result = -1;
    if (!answer)
        snprintf(why, why_len, "the token webhook at %s answered HTTP %ld%s", w->url, resp.code,
                 resp.code >= 200 && resp.code < 300 ? " with no TokenReview" : "");
    else if (!json_is_true(json_object_get(status, "authenticated"))) {
        const char *error = json_string_value(json_object_get(status, "error"));
        snprintf(why, why_len, "the token webhook did not authenticate the token%s%s", error && *error ? ": " : "",
                 error && *error ? error : "");
        result = 0;
    } else {
        *out = principal_of(json_object_get(status, "user"), why, why_len);
        result = *out ? 1 : -1;
    }
    json_decref(answer);
    http_response_free(&resp);
    return result;
}

int auth_webhook_review(struct auth_webhook *w, const char *token, size_t len, const uint8_t digest[TOKEN_DIGEST_LEN],
                        struct principal **out, struct api_status *st)
{
    *out = NULL;
    int cached = cache_get(w, digest, out, st);
    if (cached >= 0)
        return cached == 1 ? 0 : -1;
    char why[400] = "";
    int rc = ask(w, token, len, out, why, sizeof why);
    if (rc >= 0)
        cache_put(w, digest, *out, why);
    else
        log_warn("auth: %s", why);
    if (rc == 1)
        return 0;
    return api_fail(st, 401, "Unauthorized", "Unauthorized: %s", why);
}
