/* Padded standard base64: encoding into a heap string, strict decoding into a heap buffer
 * (common/base64.h). */
#include "common/base64.h"

#include <stdlib.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *base64_encode(const void *data, size_t len)
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
        out[at++] = i + 1 < len ? alphabet[v >> 6 & 63] : '=';
        out[at++] = i + 2 < len ? alphabet[v & 63] : '=';
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
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

long base64_decode(const char *in, size_t len, char **out)
{
    *out = NULL;
    if (len % 4 != 0)
        return -1;
    size_t pad = 0;
    while (pad < 2 && pad < len && in[len - 1 - pad] == '=')
        pad++;
    char *buf = malloc(len / 4 * 3 + 1);
    if (!buf)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < len; i += 4) {
        unsigned v = 0;
        for (size_t k = 0; k < 4; k++) {
            int d = i + k >= len - pad ? 0 : value_of(in[i + k]);
            if (d < 0) {
                free(buf);
                return -1;
            }
            v = v << 6 | (unsigned)d;
        }
        size_t bytes = i + 4 == len ? 3 - pad : 3;
        for (size_t k = 0; k < bytes; k++)
            buf[n++] = (char)(v >> (16 - 8 * k) & 0xff);
    }
    buf[n] = '\0';
    *out = buf;
    return (long)n;
}
