/* caldera.io/v1 Tokens in and out: the POST body checked field by field (causes named spec.<field>),
 * the token's `<id>.<secret>` form and its generation, the object as shown and as stored (with the
 * token's SHA-256, never the token). */
#include "adapters/objects/token.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "adapters/intake/fields.h"
#include "common/clock.h"
#include "common/strv.h"

#define USER_MAX 253
#define ALPHABET "abcdefghijklmnopqrstuvwxyz0123456789"
#define ALPHABET_LEN 36

static const char *const role_names[] = {"viewer", "user", "admin"};

const char *token_role_name(enum token_role role)
{
    return role >= TOKEN_ROLE_VIEWER && role <= TOKEN_ROLE_ADMIN ? role_names[role] : "unknown";
}

int token_role_parse(const char *s)
{
    for (int i = 0; s && i < 3; i++)
        if (strcmp(s, role_names[i]) == 0)
            return i;
    return -1;
}

void token_spec_clear(struct token_spec *spec)
{
    free(spec->user);
    strv_free(spec->namespaces);
    *spec = (struct token_spec){.uid = -1, .gid = -1};
}

void token_clear(struct token *t) { token_spec_clear(&t->spec); }

/* --- the POST body ----------------------------------------------------------------------------- */

static const char *const object_fields[] = {"apiVersion", "kind", "metadata", "spec", NULL};
static const char *const spec_fields[] = {"user", "namespaces", "uid", "gid", "role", NULL};

static bool user_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > USER_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("._@-", c);
        if (!ok)
            return false;
    }
    return true;
}

static void parse_user(struct fields *f, const json_t *spec, struct token_spec *out)
{
    const char *user = NULL;
    if (!field_string(f, spec, "user", "spec.user", true, &user) || !user)
        return;
    if (!user_name_ok(user))
        field_invalid(f, spec, "user", "spec.user",
                      "must be 1 to 253 letters, digits, '.', '_', '@' or '-' (a login or an e-mail address)");
    else
        out->user = strdup(user);
}

/* Returns whether the role is known (the rules that depend on it apply only then). */
static bool parse_role(struct fields *f, const json_t *spec, struct token_spec *out)
{
    const char *role = NULL;
    out->role = TOKEN_ROLE_USER;
    if (!field_string(f, spec, "role", "spec.role", false, &role))
        return false;
    int r = role ? token_role_parse(role) : TOKEN_ROLE_USER;
    if (r < 0) {
        field_unsupported(f, spec, "role", "spec.role", "supported values: \"admin\", \"user\", \"viewer\"");
        return false;
    }
    out->role = (enum token_role)r;
    return true;
}

static void parse_namespaces(struct fields *f, const json_t *spec, struct token_spec *out)
{
    json_t *list;
    if (!field_string_list(f, spec, "namespaces", "spec.namespaces", &out->namespaces))
        return;
    list = json_object_get(spec, "namespaces");
    size_t n = strv_len(out->namespaces);
    if (n == 0 && out->role != TOKEN_ROLE_ADMIN) {
        field_error(f, spec, "namespaces", "spec.namespaces", "FieldValueRequired",
                    "Required value: the namespaces the token's user works in (\"*\" alone: every namespace)");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const char *ns = out->namespaces[i];
        char path[FIELD_PATH_MAX];
        field_path_index(path, "spec.namespaces", i);
        if (strcmp(ns, TOKEN_ALL_NAMESPACES) == 0 && n > 1)
            field_error_at_index(f, list, i, path, "FieldValueInvalid",
                                 "Invalid value: \"*\": stands for every namespace, so it comes alone");
        else if (strcmp(ns, TOKEN_ALL_NAMESPACES) != 0 && !dns1123_label(ns))
            field_error_at_index(f, list, i, path, "FieldValueInvalid",
                                 "Invalid value: \"%s\": a namespace is a DNS-1123 label (lower-case letters, digits "
                                 "and '-', at most 63)",
                                 ns);
    }
    if (n == 0 && strv_push(&out->namespaces, TOKEN_ALL_NAMESPACES) != 0) /* an admin's: every namespace */
        api_fail(f->st, 500, "InternalError", "out of memory");
}

/* uid and gid come together: a task runs as both, and a missing gid would leave the manifest's. */
static void parse_ids(struct fields *f, const json_t *spec, bool role_known, struct token_spec *out)
{
    int64_t uid = -1, gid = -1;
    bool ok = field_int(f, spec, "uid", "spec.uid", false, 1, TOKEN_ID_MAX, &uid);
    ok = field_int(f, spec, "gid", "spec.gid", false, 1, TOKEN_ID_MAX, &gid) && ok;
    if (!ok)
        return;
    if (uid < 0 && gid < 0 && role_known && out->role == TOKEN_ROLE_USER) {
        field_error(f, spec, "uid", "spec.uid", "FieldValueRequired",
                    "Required value: a token of role user runs its tasks as its uid and gid");
        field_error(f, spec, "gid", "spec.gid", "FieldValueRequired",
                    "Required value: a token of role user runs its tasks as its uid and gid");
    } else if (uid < 0 && gid >= 0) {
        field_error(f, spec, "uid", "spec.uid", "FieldValueRequired", "Required value: uid and gid go together");
    } else if (gid < 0 && uid >= 0) {
        field_error(f, spec, "gid", "spec.gid", "FieldValueRequired", "Required value: uid and gid go together");
    }
    out->uid = (int32_t)uid;
    out->gid = (int32_t)gid;
}

/* A Token object, or its spec alone: the holder of the spec's fields. */
static const json_t *spec_holder(struct fields *f, json_t *root)
{
    bool object = json_object_get(root, "spec") || json_object_get(root, "kind") || json_object_get(root, "apiVersion");
    if (!object) {
        field_check_known(f, root, "spec", spec_fields);
        return root;
    }
    const char *av = json_string_value(json_object_get(root, "apiVersion"));
    const char *kind = json_string_value(json_object_get(root, "kind"));
    if ((av && strcmp(av, TOKEN_API_VERSION) != 0) || (kind && strcmp(kind, TOKEN_KIND) != 0)) {
        api_fail(f->st, 400, "BadRequest", "the body is a %s %s, not a " TOKEN_API_VERSION " " TOKEN_KIND,
                 av ? av : "?", kind ? kind : "?");
        return NULL;
    }
    field_check_known(f, root, "", object_fields);
    json_t *meta = json_object_get(root, "metadata");
    if (json_object_get(meta, "name") || json_object_get(meta, "generateName"))
        field_forbidden(f, meta, json_object_get(meta, "name") ? "name" : "generateName", "metadata.name",
                        "a token's name is its id, which the server chooses");
    json_t *spec;
    if (!field_object(f, root, "spec", "spec", true, &spec) || !spec)
        return NULL;
    field_check_known(f, spec, "spec", spec_fields);
    return spec;
}

int token_spec_from_doc(const struct intake_doc *doc, struct token_spec *out, struct api_status *st)
{
    *out = (struct token_spec){.uid = -1, .gid = -1};
    json_t *root = doc->root;
    if (!json_is_object(root))
        return api_fail(st, 400, "BadRequest", "the body must be a Token object or its spec");
    struct fields f = {doc, st, false};
    const json_t *spec = spec_holder(&f, root);
    if (spec) {
        bool role_known = parse_role(&f, spec, out);
        parse_user(&f, spec, out);
        parse_namespaces(&f, spec, out);
        parse_ids(&f, spec, role_known, out);
    }
    if (st->code == 0 && st->ncauses == 0 && out->user)
        return 0;
    token_spec_clear(out);
    if (st->code != 0)
        return -1;
    api_fail_invalid(st, "Token.caldera.io", NULL);
    api_set_details(st, TOKEN_KIND, "caldera.io", "");
    return -1;
}

/* --- the token's form ---------------------------------------------------------------------------- */

/* count characters of ALPHABET, uniformly: bytes above the largest multiple of 36 are drawn again. */
static int random_chars(char *out, size_t count)
{
    size_t have = 0;
    while (have < count) {
        unsigned char b[64];
        if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
            return -1;
        for (size_t i = 0; i < sizeof b && have < count; i++)
            if (b[i] < 252) /* 252 = 7 * 36 */
                out[have++] = ALPHABET[b[i] % ALPHABET_LEN];
    }
    return 0;
}

int token_generate(char out[TOKEN_LEN + 1])
{
    if (random_chars(out, TOKEN_ID_LEN) != 0 || random_chars(out + TOKEN_ID_LEN + 1, TOKEN_SECRET_LEN) != 0)
        return -1;
    out[TOKEN_ID_LEN] = '.';
    out[TOKEN_LEN] = '\0';
    return 0;
}

bool token_parse(const char *text, size_t len, char id[TOKEN_ID_LEN + 1])
{
    if (len != TOKEN_LEN || text[TOKEN_ID_LEN] != '.')
        return false;
    for (size_t i = 0; i < len; i++)
        if (i != TOKEN_ID_LEN && !memchr(ALPHABET, text[i], ALPHABET_LEN))
            return false;
    memcpy(id, text, TOKEN_ID_LEN);
    id[TOKEN_ID_LEN] = '\0';
    return true;
}

/* --- the object ---------------------------------------------------------------------------------- */

static json_t *render_spec(const struct token_spec *s)
{
    json_t *namespaces = json_array();
    for (size_t i = 0; s->namespaces && s->namespaces[i]; i++)
        json_array_append_new(namespaces, json_string(s->namespaces[i]));
    json_t *spec = json_pack("{s:s, s:o, s:s}", "user", s->user ? s->user : "", "namespaces", namespaces, "role",
                             token_role_name(s->role));
    if (spec && s->uid >= 0)
        json_object_set_new(spec, "uid", json_integer(s->uid));
    if (spec && s->gid >= 0)
        json_object_set_new(spec, "gid", json_integer(s->gid));
    return spec;
}

json_t *token_render(const struct token *t, const char *token_text)
{
    char created[RFC3339_LEN];
    json_t *obj = json_pack("{s:s, s:s, s:{s:s, s:s}, s:o}", "apiVersion", TOKEN_API_VERSION, "kind", TOKEN_KIND,
                            "metadata", "name", t->id, "creationTimestamp", rfc3339(t->created_ms, created), "spec",
                            render_spec(&t->spec));
    if (obj && token_text)
        json_object_set_new(obj, "status", json_pack("{s:s}", "token", token_text));
    return obj;
}

char *token_to_store_json(const struct token *t)
{
    char hex[2 * TOKEN_DIGEST_LEN + 1];
    for (int i = 0; i < TOKEN_DIGEST_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", t->digest[i]);
    json_t *obj = token_render(t, NULL);
    char *text = NULL;
    if (obj && json_object_set_new(obj, "status", json_pack("{s:s}", "sha256", hex)) == 0)
        text = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(obj);
    return text;
}

static int hex_digest(const char *hex, uint8_t out[TOKEN_DIGEST_LEN])
{
    if (!hex || strlen(hex) != 2 * TOKEN_DIGEST_LEN)
        return -1;
    for (int i = 0; i < TOKEN_DIGEST_LEN; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (uint8_t)v;
    }
    return 0;
}

int token_from_store_json(const char *json, struct token *out)
{
    *out = (struct token){.spec = {.uid = -1, .gid = -1}};
    json_t *root = json_loads(json, 0, NULL);
    json_t *meta = json_object_get(root, "metadata"), *spec = json_object_get(root, "spec");
    const char *id = json_string_value(json_object_get(meta, "name"));
    const char *user = json_string_value(json_object_get(spec, "user"));
    const char *created = json_string_value(json_object_get(meta, "creationTimestamp"));
    int role = token_role_parse(json_string_value(json_object_get(spec, "role")));
    int rc = -1;
    if (id && strlen(id) == TOKEN_ID_LEN && user && role >= 0 && created &&
        rfc3339_parse(created, &out->created_ms) == 0 &&
        hex_digest(json_string_value(json_object_get(json_object_get(root, "status"), "sha256")), out->digest) == 0) {
        memcpy(out->id, id, TOKEN_ID_LEN + 1);
        out->spec.user = strdup(user);
        out->spec.role = (enum token_role)role;
        json_t *uid = json_object_get(spec, "uid"), *gid = json_object_get(spec, "gid");
        out->spec.uid = json_is_integer(uid) ? (int32_t)json_integer_value(uid) : -1;
        out->spec.gid = json_is_integer(gid) ? (int32_t)json_integer_value(gid) : -1;
        size_t i;
        json_t *ns;
        rc = out->spec.user ? 0 : -1;
        json_array_foreach(json_object_get(spec, "namespaces"), i,
                           ns) if (rc == 0 && (!json_is_string(ns) ||
                                               strv_push(&out->spec.namespaces, json_string_value(ns)) != 0)) rc = -1;
        if (rc == 0 && !out->spec.namespaces)
            rc = strv_push(&out->spec.namespaces, TOKEN_ALL_NAMESPACES);
    }
    json_decref(root);
    if (rc != 0)
        token_clear(out);
    return rc;
}
