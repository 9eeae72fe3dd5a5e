/* A kubeconfig read as client-go reads it: the context by name, then the cluster and user it names, each
 * checked the way clientcmd's validation checks them; every mistake a cause with its path and line. */
#include "adapters/objects/kubeconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/intake/intake.h"
#include "common/base64.h"

#define WHAT "kubeconfig"

static bool oom(struct fields *f)
{
    api_fail(f->st, 500, "InternalError", "out of memory");
    return false;
}

static bool dup_into(struct fields *f, const char *s, char **out)
{
    if (!s)
        return true;
    return (*out = strdup(s)) != NULL || oom(f);
}

/* The entry of list `key` (clusters, contexts, users) whose name is name; its index into *index. */
static json_t *named_entry(struct fields *f, const json_t *root, const char *key, const char *name, size_t *index)
{
    json_t *list = NULL;
    if (!field_array(f, root, key, key, false, &list) || !list)
        return NULL;
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        const char *n = json_is_object(e) ? json_string_value(json_object_get(e, "name")) : NULL;
        if (n && strcmp(n, name) == 0) {
            *index = i;
            return e;
        }
    }
    return NULL;
}

/* A path as written, or joined to dir when relative. */
static bool resolve_path(struct fields *f, const char *dir, const char *path, char **out)
{
    if (path[0] == '/' || !dir || !*dir)
        return dup_into(f, path, out);
    size_t n = strlen(dir) + strlen(path) + 2;
    if (!(*out = malloc(n)))
        return oom(f);
    snprintf(*out, n, "%s/%s", dir, path);
    return true;
}

/* `<file_key>` (a path) or `<data_key>` (base64), at most one, into pem. */
static bool read_pem(struct fields *f, const json_t *obj, const char *path, const char *dir, const char *file_key,
                     const char *data_key, struct kube_pem *pem)
{
    const char *file = NULL, *data = NULL;
    bool ok = field_string_in(f, obj, file_key, path, false, &file);
    ok = field_string_in(f, obj, data_key, path, false, &data) && ok;
    if (!ok)
        return false;
    char p[FIELD_PATH_MAX];
    if (file && *file && data && *data) {
        field_path(p, path, file_key);
        field_invalid(f, obj, file_key, p, "give the file or the data, not both");
        return false;
    }
    if (file && *file)
        return resolve_path(f, dir, file, &pem->file);
    if (data && *data) {
        long n = base64_decode(data, strlen(data), &pem->data);
        if (n < 0) {
            field_path(p, path, data_key);
            /* not field_invalid: the value may be a private key, never to be echoed */
            field_error(f, obj, data_key, p, "FieldValueInvalid", "Invalid value: not base64");
            return false;
        }
        pem->len = (size_t)n;
    }
    return true;
}

static bool read_cluster(struct fields *f, const json_t *entry, const char *epath, const char *dir,
                         struct kubeconfig *kc)
{
    json_t *c = NULL;
    char path[FIELD_PATH_MAX], p[FIELD_PATH_MAX];
    field_path(path, epath, "cluster");
    if (!field_object(f, entry, "cluster", path, true, &c) || !c)
        return false;
    const char *server = NULL, *sni = NULL;
    bool ok = field_string_in(f, c, "server", path, true, &server);
    if (ok && server) {
        size_t n = strlen(server);
        if (strncmp(server, "https://", 8) != 0 && strncmp(server, "http://", 7) != 0) {
            field_path(p, path, "server");
            field_invalid(f, c, "server", p, "a server's URL starts with https:// or http://");
            ok = false;
        } else if (dup_into(f, server, &kc->server)) {
            while (n > 0 && kc->server[n - 1] == '/')
                kc->server[--n] = '\0';
        } else {
            ok = false;
        }
    }
    ok = field_string_in(f, c, "tls-server-name", path, false, &sni) && dup_into(f, sni, &kc->tls_server_name) && ok;
    ok = field_bool_in(f, c, "insecure-skip-tls-verify", path, &kc->insecure) && ok;
    ok = read_pem(f, c, path, dir, "certificate-authority", "certificate-authority-data", &kc->ca) && ok;
    if (ok && kc->insecure && (kc->ca.file || kc->ca.data)) {
        field_path(p, path, "insecure-skip-tls-verify");
        field_invalid(f, c, "insecure-skip-tls-verify", p,
                      "a certificate authority and insecure-skip-tls-verify exclude each other");
        ok = false;
    }
    return ok;
}

static bool read_user(struct fields *f, const json_t *entry, const char *epath, const char *dir, struct kubeconfig *kc)
{
    json_t *u = NULL;
    char path[FIELD_PATH_MAX], p[FIELD_PATH_MAX];
    field_path(path, epath, "user");
    if (!field_object(f, entry, "user", path, false, &u))
        return false;
    if (!u)
        return true; /* an anonymous user: no credentials */
    bool ok = true;
    static const char *const plugins[] = {"exec", "auth-provider", NULL};
    for (int i = 0; plugins[i]; i++) {
        if (json_object_get(u, plugins[i])) {
            field_path(p, path, plugins[i]);
            field_forbidden(f, u, plugins[i], p,
                            "credential plugins are not supported: give a token, a tokenFile or a client certificate");
            ok = false;
        }
    }
    const char *token = NULL, *token_file = NULL, *username = NULL, *password = NULL;
    ok = field_string_in(f, u, "token", path, false, &token) && dup_into(f, token, &kc->token) && ok;
    ok = field_string_in(f, u, "tokenFile", path, false, &token_file) && ok;
    if (token_file && *token_file)
        ok = resolve_path(f, dir, token_file, &kc->token_file) && ok;
    ok = field_string_in(f, u, "username", path, false, &username) && dup_into(f, username, &kc->username) && ok;
    ok = field_string_in(f, u, "password", path, false, &password) && dup_into(f, password, &kc->password) && ok;
    ok = read_pem(f, u, path, dir, "client-certificate", "client-certificate-data", &kc->cert) && ok;
    ok = read_pem(f, u, path, dir, "client-key", "client-key-data", &kc->key) && ok;
    if (!ok)
        return false;
    bool has_cert = kc->cert.file || kc->cert.data, has_key = kc->key.file || kc->key.data;
    if (has_cert != has_key) {
        const char *key = has_cert ? "client-key" : "client-certificate";
        field_path(p, path, key);
        field_error(f, u, key, p, "FieldValueRequired", "Required value: a client certificate needs its key");
        return false;
    }
    if ((kc->token || kc->token_file) && (kc->username || kc->password)) {
        field_path(p, path, "username");
        field_invalid(f, u, "username", p, "more than one authentication method: a token and basic auth");
        return false;
    }
    return true;
}

/* The context's namespace, cluster and user, then those two entries. */
static void read_context(struct fields *f, const json_t *root, const char *name, const json_t *name_at,
                         const char *name_key, const char *dir, struct kubeconfig *kc)
{
    size_t i = 0;
    char epath[FIELD_PATH_MAX], path[FIELD_PATH_MAX];
    json_t *entry = named_entry(f, root, "contexts", name, &i);
    if (!entry) {
        if (!api_ok(f->st))
            return;
        if (name_at)
            field_error(f, name_at, name_key, name_key, "FieldValueNotFound",
                        "Not found: \"%s\": no context of that name", name);
        else
            api_fail(f->st, 404, "NotFound", "kubeconfig: no context named \"%s\"", name);
        return;
    }
    if (!dup_into(f, name, &kc->context))
        return;
    snprintf(epath, sizeof epath, "contexts[%zu]", i);
    json_t *ctx = NULL;
    field_path(path, epath, "context");
    if (!field_object(f, entry, "context", path, true, &ctx) || !ctx)
        return;
    const char *cluster = NULL, *user = NULL, *ns = NULL;
    bool ok = field_string_in(f, ctx, "cluster", path, true, &cluster);
    ok = field_string_in(f, ctx, "user", path, false, &user) && ok;
    ok = field_string_in(f, ctx, "namespace", path, false, &ns) && ok;
    if (!ok || !dup_into(f, cluster, &kc->cluster_name) || !dup_into(f, user, &kc->user_name) ||
        !dup_into(f, ns && *ns ? ns : "default", &kc->ns))
        return;
    char p[FIELD_PATH_MAX];
    json_t *c = named_entry(f, root, "clusters", cluster, &i);
    if (c) {
        snprintf(epath, sizeof epath, "clusters[%zu]", i);
        read_cluster(f, c, epath, dir, kc);
    } else if (api_ok(f->st)) {
        field_path(p, path, "cluster");
        field_error(f, ctx, "cluster", p, "FieldValueNotFound", "Not found: \"%s\": no cluster of that name", cluster);
    }
    if (!user || !*user)
        return;
    json_t *u = named_entry(f, root, "users", user, &i);
    if (u) {
        snprintf(epath, sizeof epath, "users[%zu]", i);
        read_user(f, u, epath, dir, kc);
    } else if (api_ok(f->st)) {
        field_path(p, path, "user");
        field_error(f, ctx, "user", p, "FieldValueNotFound", "Not found: \"%s\": no user of that name", user);
    }
}

int kubeconfig_parse(const char *data, size_t len, const char *dir, const char *context, struct kubeconfig *out,
                     struct api_status *st)
{
    memset(out, 0, sizeof *out);
    struct intake in;
    int found = intake_parse_config(data, len, "a kubeconfig is one YAML mapping", &in, st);
    if (found < 0)
        return -1;
    if (found == 0)
        return api_fail(st, 400, "BadRequest", "the kubeconfig is empty");
    struct fields f = {&in.docs[0], st, false};
    json_t *root = in.docs[0].root;
    const char *kind = NULL, *current = NULL;
    field_string(&f, root, "kind", "kind", false, &kind);
    if (kind && strcmp(kind, "Config") != 0)
        field_invalid(&f, root, "kind", "kind", "a kubeconfig's kind is Config");
    if (context && *context) {
        read_context(&f, root, context, NULL, NULL, dir, out);
    } else if (field_string(&f, root, "current-context", "current-context", false, &current)) {
        if (current && *current)
            read_context(&f, root, current, root, "current-context", dir, out);
        else
            field_required(&f, root, "current-context", "current-context");
    }
    intake_free(&in);
    if (st->ncauses > 0 || !api_ok(st)) {
        kubeconfig_free(out);
        return api_ok(st) ? api_fail_causes(st, 400, "BadRequest", WHAT, "", "is invalid") : -1;
    }
    return 0;
}
