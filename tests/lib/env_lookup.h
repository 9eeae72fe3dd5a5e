/* Looking into an environment vector ("NAME=value" strings, NULL-terminated) in unit tests: the value
 * a task would see for a name. Header-only: the job plugins' and training adapter's tests share it. */
#ifndef CALDERA_TEST_ENV_LOOKUP_H
#define CALDERA_TEST_ENV_LOOKUP_H

#include <string.h>

/* The value of name in env (which may be NULL), or NULL. */
static inline const char *env_get(char **env, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; env && env[i]; i++)
        if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
            return env[i] + n + 1;
    return NULL;
}

#endif
