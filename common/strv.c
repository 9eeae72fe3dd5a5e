/* NULL-terminated string vectors (argv, envp) that own their strings.
 * Vectors are short (a command line, an environment), so pushing reallocates each time. */
#include "common/strv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t strv_len(char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return n;
}

static int push_owned(char ***v, char *s)
{
    size_t n = strv_len(*v);
    char **nv = realloc(*v, (n + 2) * sizeof *nv);
    if (!nv) {
        free(s);
        return -1;
    }
    nv[n] = s;
    nv[n + 1] = NULL;
    *v = nv;
    return 0;
}

int strv_push(char ***v, const char *s)
{
    char *copy = strdup(s);
    return copy ? push_owned(v, copy) : -1;
}

int strv_pushf(char ***v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    return n < 0 ? -1 : push_owned(v, s);
}

char **strv_dup(char *const *v)
{
    size_t n = strv_len(v);
    char **out = calloc(n + 1, sizeof *out);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!(out[i] = strdup(v[i]))) {
            strv_free(out);
            return NULL;
        }
    }
    return out;
}

int strv_setenv(char ***v, const char *assignment)
{
    const char *eq = strchr(assignment, '=');
    size_t name_len = eq ? (size_t)(eq - assignment) + 1 : strlen(assignment);
    for (size_t i = 0; *v && (*v)[i]; i++) {
        if (strncmp((*v)[i], assignment, name_len) == 0) {
            char *copy = strdup(assignment);
            if (!copy)
                return -1;
            free((*v)[i]);
            (*v)[i] = copy;
            return 0;
        }
    }
    return strv_push(v, assignment);
}

void strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

int strv_setenvf(char ***v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *assignment = NULL;
    int n = vasprintf(&assignment, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    int rc = strv_setenv(v, assignment);
    free(assignment);
    return rc;
}
