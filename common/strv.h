/* NULL-terminated string vectors (argv, envp) that own their strings: built, appended to, copied
 * and freed as one. */
#ifndef CALDERA_STRV_H
#define CALDERA_STRV_H

#include <stddef.h>

size_t strv_len(char *const *v);
/* Appends a copy of s; returns 0 or -1 (out of memory, *v unchanged). */
int strv_push(char ***v, const char *s);
int strv_pushf(char ***v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char **strv_dup(char *const *v);
/* Sets "NAME=value" in an environment vector, replacing an earlier NAME; returns 0 or -1. */
int strv_setenv(char ***v, const char *assignment);
/* strv_setenv of a formatted "NAME=value". */
int strv_setenvf(char ***v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strv_free(char **v);

#endif
