/* UTF-8 as JSON needs it: whether bytes are well-formed UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF), and text repaired so that it is. */
#ifndef CALDERA_UTF8_H
#define CALDERA_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the len bytes at s are well-formed UTF-8 (NUL bytes count as characters). */
bool utf8_valid(const char *s, size_t len);
/* The NUL-terminated s with every byte that is not part of a well-formed character replaced by '?'
 * (a message cut in the middle of a character, a name a client sent): caller frees; NULL when memory
 * runs out. */
char *utf8_repaired(const char *s);

#endif
