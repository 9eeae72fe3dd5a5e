/* UTF-8 as JSON needs it: well-formedness (RFC 3629, table 3-7 of the Unicode standard) and repair.
 * Jansson refuses a string that is not UTF-8, so text from a client goes through here first. */
#include "common/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The length of the well-formed character at s (at most left bytes), or 0 when it is not one. */
static size_t char_length(const uint8_t *s, size_t left)
{
    uint8_t b = s[0];
    if (b < 0x80)
        return 1;
    size_t n = b < 0xC2 ? 0 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : b < 0xF5 ? 4 : 0;
    if (n == 0 || n > left)
        return 0;
    /* The second byte's range depends on the first: no overlong forms, surrogates or > U+10FFFF. */
    uint8_t lo = b == 0xE0 ? 0xA0 : b == 0xF0 ? 0x90 : 0x80, hi = b == 0xED ? 0x9F : b == 0xF4 ? 0x8F : 0xBF;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

bool utf8_valid(const char *s, size_t len)
{
    const uint8_t *p = (const uint8_t *)s;
    for (size_t i = 0; i < len;) {
        size_t n = char_length(p + i, len - i);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

char *utf8_repaired(const char *s)
{
    size_t len = strlen(s);
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    const uint8_t *p = (const uint8_t *)s;
    for (size_t i = 0; i < len;) {
        size_t n = char_length(p + i, len - i);
        if (n == 0) {
            out[i++] = '?';
        } else {
            memcpy(out + i, s + i, n);
            i += n;
        }
    }
    out[len] = '\0';
    return out;
}
