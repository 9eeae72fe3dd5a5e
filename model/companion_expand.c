/* Placeholders in companion templates: checking a template when the configuration is read, and
 * expanding argv, environment, headers and paths for one companion. Pure: no I/O. */
#include "model/companion.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sbuf.h"
#include "common/strv.h"

/* Indexes into companion_placeholders, in its order. */
enum {
    PH_PORT,
    PH_BASE_URL,
    PH_BASE_PATH,
    PH_TOKEN,
    PH_TOKEN_FILE,
    PH_WORKDIR,
    PH_LOGDIR,
    PH_JOB,
    PH_NS,
    PH_COMPANION
};

const char *const companion_placeholders[] = {"port",   "base_url", "base_path", "token",     "token_file", "workdir",
                                              "logdir", "job",      "namespace", "companion", NULL};

static int placeholder_index(const char *name, size_t len)
{
    for (int i = 0; companion_placeholders[i]; i++)
        if (strlen(companion_placeholders[i]) == len && memcmp(companion_placeholders[i], name, len) == 0)
            return i;
    return -1;
}

static int fail(char *why, size_t why_len, const char *fmt, const char *arg, int len)
{
    snprintf(why, why_len, fmt, len, arg);
    return -1;
}

/* The value of placeholder i, into out; -1 with why when it has none. */
static int put_value(struct sbuf *out, int i, const struct companion_values *v, char *why, size_t why_len)
{
    const char *s = NULL;
    switch (i) {
    case PH_PORT:
        if (v->port < 1 || v->port > 65535)
            return fail(why, why_len, "no value for {%.*s}", "port", 4);
        sbuf_printf(out, "%d", v->port);
        return 0;
    case PH_BASE_URL:
    case PH_BASE_PATH: {
        const char *b = v->base_url;
        if (!b || b[0] != '/')
            return fail(why, why_len, "%.*s: the base URL must start with '/'", companion_placeholders[i],
                        (int)strlen(companion_placeholders[i]));
        size_t n = strlen(b);
        while (n > 0 && b[n - 1] == '/')
            n--;
        sbuf_append(out, b, n);
        if (i == PH_BASE_URL)
            sbuf_puts(out, "/");
        return 0;
    }
    case PH_TOKEN: s = v->token; break;
    case PH_TOKEN_FILE: s = v->token_file; break;
    case PH_WORKDIR: s = v->workdir; break;
    case PH_LOGDIR: s = v->logdir; break;
    case PH_JOB: s = v->job; break;
    case PH_NS: s = v->ns; break;
    case PH_COMPANION: s = v->companion; break;
    }
    if (!s)
        return fail(why, why_len, "no value for {%.*s}", companion_placeholders[i],
                    (int)strlen(companion_placeholders[i]));
    sbuf_puts(out, s);
    return 0;
}

/* Walks a template: checks it (out NULL) or expands it into out. */
static int walk(const char *tmpl, const struct companion_values *v, struct sbuf *out, char *why, size_t why_len)
{
    const char *p = tmpl;
    while (*p) {
        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
            if (out)
                sbuf_append(out, p, 1);
            p += 2;
        } else if (*p == '{') {
            const char *end = strchr(p + 1, '}');
            if (!end)
                return fail(why, why_len, "unclosed '{' in \"%.*s\"", tmpl, (int)strlen(tmpl));
            int i = placeholder_index(p + 1, (size_t)(end - p - 1));
            if (i < 0)
                return fail(why, why_len,
                            "unknown placeholder {%.*s} (known: port, base_url, base_path, token, token_file, workdir, "
                            "logdir, job, namespace, companion; {{ and }} for a brace)",
                            p + 1, (int)(end - p - 1));
            if (out && put_value(out, i, v, why, why_len) != 0)
                return -1;
            p = end + 1;
        } else {
            size_t n = strcspn(p, "{}");
            n += n == 0; /* a lone '}' is itself */
            if (out)
                sbuf_append(out, p, n);
            p += n;
        }
    }
    return 0;
}

int companion_template_check(const char *tmpl, char *why, size_t why_len)
{
    return walk(tmpl, NULL, NULL, why, why_len);
}

int companion_expand(const char *tmpl, const struct companion_values *v, char **out, char *why, size_t why_len)
{
    struct sbuf b = {0};
    *out = NULL;
    if (walk(tmpl, v, &b, why, why_len) != 0) {
        sbuf_free(&b);
        return -1;
    }
    sbuf_puts(&b, ""); /* an empty expansion is still a string */
    if (b.failed) {
        sbuf_free(&b);
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    *out = sbuf_take(&b);
    return 0;
}

/* Expands every template of v into *out (NULL when v is NULL). */
static int expand_all(char *const *tmpls, const struct companion_values *v, char ***out, char *why, size_t why_len)
{
    *out = NULL;
    for (size_t i = 0; tmpls && tmpls[i]; i++) {
        char *s;
        if (companion_expand(tmpls[i], v, &s, why, why_len) != 0)
            goto failed;
        int rc = strv_push(out, s);
        free(s);
        if (rc != 0) {
            snprintf(why, why_len, "out of memory");
            goto failed;
        }
    }
    return 0;
failed:
    strv_free(*out);
    *out = NULL;
    return -1;
}

int companion_command(const struct companion_type *t, const struct companion_values *v, char ***argv, char ***env,
                      char *why, size_t why_len)
{
    *env = NULL;
    if (!t->argv || !t->argv[0]) {
        snprintf(why, why_len, "%s: no command", t->name);
        *argv = NULL;
        return -1;
    }
    if (expand_all(t->argv, v, argv, why, why_len) != 0)
        return -1;
    if (expand_all(t->env, v, env, why, why_len) != 0) {
        strv_free(*argv);
        *argv = NULL;
        return -1;
    }
    return 0;
}

int companion_headers(const struct companion_type *t, const struct companion_values *v, char ***headers, char *why,
                      size_t why_len)
{
    if (expand_all(t->headers, v, headers, why, why_len) != 0)
        return -1;
    for (size_t i = 0; *headers && (*headers)[i]; i++) {
        if (strpbrk((*headers)[i], "\r\n")) {
            snprintf(why, why_len, "%s: a header's value holds a line break", t->name);
            strv_free(*headers);
            *headers = NULL;
            return -1;
        }
    }
    return 0;
}
