/* CORS origins: the exact origins (scheme://host[:port]) whose pages may call the API from a
 * browser. No wildcard: a browser from any other origin gets no CORS header and cannot read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/limits/limits.h"

#define CORS_ORIGIN_MAX 256

int cors_origin_check(const char *origin, char *err, size_t errlen)
{
    const char *host = strncmp(origin, "https://", 8) == 0  ? origin + 8
                       : strncmp(origin, "http://", 7) == 0 ? origin + 7
                                                            : NULL;
    const char *why = NULL;
    if (!host)
        why = "it must start with http:// or https://";
    else if (!*host || *host == ':')
        why = "it names no host";
    else if (strlen(origin) >= CORS_ORIGIN_MAX)
        why = "it is too long";
    else if (strpbrk(host, "/?#"))
        why = "an origin has no path: scheme://host[:port], as a browser sends it";
    else if (strpbrk(host, "* \t\r\n,"))
        why = "origins are matched exactly: no wildcard, space or list";
    if (!why)
        return 0;
    snprintf(err, errlen, "--cors-origin wants an origin such as https://ui.example.com:8443, not \"%s\": %s", origin,
             why);
    return -1;
}

int cors_origins_add(struct cors_origins *c, const char *origin)
{
    const char **list = realloc(c->list, sizeof *list * (size_t)(c->n + 1));
    if (!list)
        return -1;
    list[c->n++] = origin;
    c->list = list;
    return 0;
}

void cors_origins_free(struct cors_origins *c)
{
    free(c->list);
    *c = (struct cors_origins){0};
}

const char *cors_origin_match(const struct cors_origins *c, const char *origin)
{
    if (!origin)
        return NULL;
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->list[i], origin) == 0)
            return c->list[i];
    return NULL;
}
