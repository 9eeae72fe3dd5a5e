/* `jobctl token create --user U --namespace N [--namespace M] --uid N --gid N --role R`, `jobctl token
 * list` and `jobctl token delete ID`: caldera.io/v1 Tokens. A created token is printed once, alone on
 * stdout, so a script can keep it; the server never shows it again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sbuf.h"
#include "tools/jobctl/api.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/output.h"

#define TOKENS_PATH CALDERA_API "/tokens"

static int usage(const struct jobctl_args *a, const char *why) { return jobctl_usage_error(a->command_def, why); }

/* A whole number, or the text as given (the server then says what is wrong with it). */
static json_t *id_value(const char *s)
{
    char *end;
    long long n = strtoll(s, &end, 10);
    return *s && !*end ? json_integer(n) : json_string(s);
}

/* The Token's spec from the flags: only what the line sets, so the server's rules and defaults apply. */
static json_t *token_document(const struct jobctl_args *a)
{
    json_t *namespaces = json_array(), *spec = json_object();
    for (int i = 0; i < a->nnamespaces; i++)
        json_array_append_new(namespaces, json_string(a->namespaces[i]));
    json_object_set_new(spec, "user", json_string(a->user));
    if (a->nnamespaces > 0)
        json_object_set_new(spec, "namespaces", namespaces);
    else
        json_decref(namespaces);
    if (a->uid)
        json_object_set_new(spec, "uid", id_value(a->uid));
    if (a->gid)
        json_object_set_new(spec, "gid", id_value(a->gid));
    if (a->role)
        json_object_set_new(spec, "role", json_string(a->role));
    return json_pack("{s:s, s:s, s:o}", "apiVersion", "caldera.io/v1", "kind", "Token", "spec", spec);
}

static int token_create(const struct jobctl_args *a)
{
    if (a->npos > 1)
        return usage(a, "token create takes no arguments: give --user, --namespace, --uid, --gid and --role");
    if (!a->user)
        return usage(a, "token create needs --user");
    json_t *doc = token_document(a), *answer = NULL;
    char *body = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    if (!body)
        return report_oom();
    struct api_body b = {body, strlen(body), "application/json"};
    int rc = api_call_json(a, "POST", TOKENS_PATH, &b, &answer);
    free(body);
    if (rc != JOBCTL_OK)
        return rc;
    if (a->json) {
        print_doc(a, answer);
    } else {
        const char *token = json_string_value(json_at(answer, "status.token"));
        fprintf(stderr, "token %s created for user %s (role %s); it is shown only now:\n",
                json_string_value(json_at(answer, "metadata.name")), json_string_value(json_at(answer, "spec.user")),
                json_string_value(json_at(answer, "spec.role")));
        printf("%s\n", token ? token : "");
    }
    json_decref(answer);
    return JOBCTL_OK;
}

static int token_delete(const struct jobctl_args *a)
{
    if (a->npos != 2)
        return usage(a, "token delete takes one ID");
    struct sbuf path = {0};
    sbuf_puts(&path, TOKENS_PATH "/");
    url_escape(&path, a->pos[1]);
    if (path.failed) {
        sbuf_free(&path);
        return report_oom();
    }
    json_t *answer;
    int rc = api_call_json(a, "DELETE", sbuf_str(&path), NULL, &answer);
    sbuf_free(&path);
    if (rc != JOBCTL_OK)
        return rc;
    if (a->json)
        print_doc(a, answer);
    else
        printf("token.caldera.io/%s deleted\n", a->pos[1]);
    json_decref(answer);
    return JOBCTL_OK;
}

int cmd_token(const struct jobctl_args *a)
{
    const char *action = a->pos[0];
    if (strcmp(action, "create") == 0)
        return token_create(a);
    if (strcmp(action, "delete") == 0)
        return token_delete(a);
    if (strcmp(action, "list") == 0)
        return a->npos > 1 ? usage(a, "token list takes no arguments")
                           : show_list(a, TOKENS_PATH, &VIEW_TOKENS, "tokens", "");
    char why[128];
    snprintf(why, sizeof why, "unknown token action \"%s\" (create, list or delete)", action);
    return usage(a, why);
}
