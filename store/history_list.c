/* JobHistoryList: the histories of many jobs as summaries, newest created first, filtered by
 * namespace, phase and creation time, in pages whose `continue` token (opaque to clients: URL-safe
 * base64 of the last item's creation time and uid) resumes after the last item shown. */
#include "store/history_internal.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"

#define TOKEN_MAX 512

/* The key (created_ms, uid) walks jobs_by_created / jobs_by_namespace_created backwards. */
#define LIST_SELECT                                                    \
    "SELECT " HISTORY_JOB_COLUMNS                                      \
    ","                                                                \
    " (SELECT COUNT(*) FROM attempts a WHERE a.job_uid = j.uid),"      \
    " (SELECT MIN(start_ms) FROM attempts a WHERE a.job_uid = j.uid)," \
    " (SELECT MAX(end_ms) FROM attempts a WHERE a.job_uid = j.uid) FROM jobs j WHERE "
#define LIST_FILTER                                                         \
    "created_ms >= ?2 AND created_ms < ?3 AND (created_ms, uid) < (?4, ?5)" \
    " AND (?6 IS NULL OR status_json ->> '$.state.phase' = ?6) ORDER BY created_ms DESC, uid DESC LIMIT ?7"
static const char *const sql_list_namespace = LIST_SELECT "namespace = ?1 AND " LIST_FILTER;
static const char *const sql_list_all = LIST_SELECT "?1 IS NULL AND " LIST_FILTER;
static const char *const sql_summary = LIST_SELECT "uid = ?1";
/* Across the namespaces of a JSON array ?8: a tenant's list of its few namespaces. */
static const char *const sql_list_some = LIST_SELECT
    "?1 IS NULL AND namespace IN (SELECT value FROM json_each(?8)) AND " LIST_FILTER;

/* ---- continue tokens ------------------------------------------------------------------------- */

struct list_key {
    int64_t created_ms;
    char uid[64];
};

static char *encode_token(const struct list_key *k)
{
    json_t *j = json_pack("{s:I, s:s}", "created", (json_int_t)k->created_ms, "uid", k->uid);
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!text)
        return NULL;
    char *out = base64url_encode(text, strlen(text));
    free(text);
    return out;
}

static int bad_token(struct api_status *st, const char *token)
{
    api_add_cause(st, "continue", "FieldValueInvalid", 0, 0,
                  "Invalid value: \"%.64s\": not a continue token "
                  "this server gave",
                  token);
    return api_fail(st, 400, "BadRequest",
                    "continue: invalid value \"%.64s\": the token is malformed; start again "
                    "without continue",
                    token);
}

static int decode_token(const char *token, struct list_key *k, struct api_status *st)
{
    size_t len = strlen(token);
    if (len == 0 || len > TOKEN_MAX || len % 4 == 1)
        return bad_token(st, token);
    char b64[TOKEN_MAX + 4];
    size_t n = 0;
    for (; n < len; n++)
        b64[n] = token[n] == '-' ? '+' : token[n] == '_' ? '/' : token[n];
    while (n % 4)
        b64[n++] = '=';
    unsigned char raw[TOKEN_MAX];
    int rawlen = EVP_DecodeBlock(raw, (const unsigned char *)b64, (int)n);
    if (rawlen <= 0)
        return bad_token(st, token);
    while (rawlen > 0 && raw[rawlen - 1] == '\0') /* the decoder's bytes for the padding */
        rawlen--;
    json_t *j = json_loadb((const char *)raw, (size_t)rawlen, 0, NULL);
    json_t *created = json_object_get(j, "created"), *uid = json_object_get(j, "uid");
    bool ok = json_is_integer(created) && json_is_string(uid) && strlen(json_string_value(uid)) < sizeof k->uid;
    if (ok) {
        k->created_ms = json_integer_value(created);
        snprintf(k->uid, sizeof k->uid, "%s", json_string_value(uid));
    }
    json_decref(j);
    return ok ? 0 : bad_token(st, token);
}

/* ---- the list -------------------------------------------------------------------------------- */

static json_t *summary_json(sqlite3_stmt *stmt)
{
    json_t *item = history_job_object("JobHistory", stmt, 0);
    if (!item)
        return NULL;
    json_object_set_new(item, "attemptCount", json_integer(sqlite3_column_int64(stmt, 6)));
    json_object_set_new(item, "firstStartTime", history_time_or_null_json(stmt, 7));
    json_object_set_new(item, "lastFinishTime", history_time_or_null_json(stmt, 8));
    return item;
}

static void bind_query(sqlite3_stmt *stmt, const struct store_history_query *q, const struct list_key *after,
                       const char *namespaces)
{
    if (q->ns)
        sqlite3_bind_text(stmt, 1, q->ns, -1, SQLITE_STATIC);
    if (namespaces)
        sqlite3_bind_text(stmt, 8, namespaces, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 2, q->since_ms);
    sqlite3_bind_int64(stmt, 3, q->until_ms);
    sqlite3_bind_int64(stmt, 4, after ? after->created_ms : INT64_MAX);
    sqlite3_bind_text(stmt, 5, after ? after->uid : "", -1, SQLITE_STATIC);
    if (q->phase)
        sqlite3_bind_text(stmt, 6, q->phase, -1, SQLITE_STATIC);
    /* one row past the page says whether another page follows */
    sqlite3_bind_int64(stmt, 7, q->limit > 0 ? (sqlite3_int64)q->limit + 1 : -1);
}

/* Steps the statement into items; the key of the last item shown goes into *last, and *more says
 * whether a row past the limit exists. */
static int collect(struct store_reader *r, sqlite3_stmt *stmt, long limit, json_t *items, struct list_key *last,
                   bool *more, struct api_status *st)
{
    int rc;
    *more = false;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (limit > 0 && (long)json_array_size(items) == limit) {
            *more = true;
            break;
        }
        json_array_append_new(items, summary_json(stmt));
        last->created_ms = sqlite3_column_int64(stmt, 3);
        snprintf(last->uid, sizeof last->uid, "%s", (const char *)sqlite3_column_text(stmt, 0));
    }
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : history_fail_db(r, st, "listing job histories");
}

/* The visible namespaces as a JSON array for sql_list_some (caller frees), or NULL when the query
 * needs none: one namespace asked for (or the only one visible), or every one visible. */
static char *narrow_to_visible(struct store_history_query *q, bool *nothing)
{
    const struct namespace_set *v = q->visible;
    *nothing = false;
    if (!v || v->all)
        return NULL;
    if (q->ns) {
        *nothing = !namespace_set_has(v, q->ns);
        return NULL;
    }
    if (v->n == 1) {
        q->ns = v->names[0]; /* the namespace index serves it */
        return NULL;
    }
    json_t *list = json_array();
    for (int i = 0; i < v->n; i++)
        json_array_append_new(list, json_string(v->names[i]));
    char *text = json_dumps(list, JSON_COMPACT);
    json_decref(list);
    *nothing = text == NULL; /* out of memory: show nothing rather than too much */
    return text;
}

int store_job_history_list(struct store_reader *r, const struct store_history_query *query, json_t **out,
                           struct api_status *st)
{
    *out = NULL;
    struct list_key after, last = {0};
    struct store_history_query narrowed = *query, *q = &narrowed;
    bool resume = q->continue_token && *q->continue_token;
    if (resume && decode_token(q->continue_token, &after, st) != 0)
        return -1;
    bool nothing;
    char *namespaces = narrow_to_visible(q, &nothing);
    if (nothing) {
        *out = json_pack("{s:s, s:s, s:{}, s:[]}", "apiVersion", "caldera.io/v1", "kind", "JobHistoryList", "metadata",
                         "items");
        return *out ? 0 : api_fail(st, 500, "InternalError", "listing job histories: out of memory");
    }
    sqlite3_stmt *stmt;
    if (history_prepare(r, q->ns ? sql_list_namespace : namespaces ? sql_list_some : sql_list_all, &stmt, st) != 0) {
        free(namespaces);
        return -1;
    }
    bind_query(stmt, q, resume ? &after : NULL, namespaces);
    json_t *items = json_array(), *meta = json_object();
    bool more = false;
    int rc = history_begin(r, st);
    if (rc == 0) {
        rc = collect(r, stmt, q->limit, items, &last, &more, st);
        history_end(r);
    }
    sqlite3_finalize(stmt);
    free(namespaces);
    char *token = rc == 0 && more ? encode_token(&last) : NULL;
    if (rc == 0 && more && !token)
        rc = api_fail(st, 500, "InternalError", "listing job histories: out of memory");
    if (rc != 0) {
        json_decref(items);
        json_decref(meta);
        return -1;
    }
    if (token)
        json_object_set_new(meta, "continue", json_string(token));
    free(token);
    *out = json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "caldera.io/v1", "kind", "JobHistoryList", "metadata", meta,
                     "items", items);
    return *out ? 0 : api_fail(st, 500, "InternalError", "listing job histories: out of memory");
}

int store_job_history_summary(struct store_reader *r, const char *uid, json_t **out, struct api_status *st)
{
    *out = NULL;
    sqlite3_stmt *stmt;
    if (history_prepare(r, sql_summary, &stmt, st) != 0)
        return -1;
    sqlite3_bind_text(stmt, 1, uid, -1, SQLITE_STATIC);
    int rc = history_begin(r, st);
    if (rc == 0) {
        int step = sqlite3_step(stmt);
        if (step == SQLITE_ROW)
            *out = summary_json(stmt);
        else if (step == SQLITE_DONE)
            rc = api_fail(st, 404, "NotFound", "no job with uid %s", uid);
        else
            rc = history_fail_db(r, st, "reading a job history");
        history_end(r);
    }
    sqlite3_finalize(stmt);
    return rc == 0 && !*out ? api_fail(st, 500, "InternalError", "reading a job history: out of memory") : rc;
}
