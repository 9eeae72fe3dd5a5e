/* URL-safe base64 without padding: encoding into a heap string, decoding into a caller's buffer
 * (common/base64url.h). */
#include "common/base64url.h"

#include <stdlib.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

char *base64url_encode(const void *data, size_t len)
{
    size_t at = 0;
    char *out = malloc(4 * ((len + 2) / 3) + 1);
    if (!out)
        return NULL;
    const unsigned char *s = data;
    for (size_t i = 0; i < len; i += 3) {
        unsigned v = (unsigned)s[i] << 16 | (i + 1 < len ? (unsigned)s[i + 1] << 8 : 0) | (i + 2 < len ? s[i + 2] : 0);
        out[at++] = alphabet[v >> 18 & 63];
        out[at++] = alphabet[v >> 12 & 63];
        if (i + 1 < len)
            out[at++] = alphabet[v >> 6 & 63];
        if (i + 2 < len)
            out[at++] = alphabet[v & 63];
    }
    out[at] = '\0';
    return out;
}

static int value_of(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '-' ? 62 : c == '_' ? 63 : -1;
}

int base64url_decode(const char *in, size_t len, char *out, size_t cap)
{
    while (len > 0 && in[len - 1] == '=')
        len--;
    if (len % 4 == 1)
        return -1;
    size_t n = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = value_of(in[i]);
        if (v < 0)
            return -1;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (n >= cap)
                return -1;
            out[n++] = (char)((acc >> bits) & 0xff);
        }
    }
    return (int)n;
}
