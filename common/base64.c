/* Base64 encoding into a heap string and decoding, in the standard alphabet with padding and the
 * URL-safe one without (common/base64.h): one codec, the alphabet and padding its parameters. */
#include "common/base64.h"

#include <stdbool.h>
#include <stdlib.h>

static const char standard[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char url_safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static char *encode(const void *data, size_t len, const char *alphabet, bool pad)
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
        if (i + 1 < len || pad)
            out[at++] = i + 1 < len ? alphabet[v >> 6 & 63] : '=';
        if (i + 2 < len || pad)
            out[at++] = i + 2 < len ? alphabet[v & 63] : '=';
    }
    out[at] = '\0';
    return out;
}

/* The value of c in the alphabet whose last two letters are c62 and c63, or -1. */
static int value_of(char c, char c62, char c63)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == c62 ? 62 : c == c63 ? 63 : -1;
}

/* Decodes len characters (no padding among them) into out (cap bytes). Returns the bytes, or -1. */
static long decode(const char *in, size_t len, char c62, char c63, char *out, size_t cap)
{
    if (len % 4 == 1)
        return -1;
    size_t n = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = value_of(in[i], c62, c63);
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
    return (long)n;
}

char *base64_encode(const void *data, size_t len) { return encode(data, len, standard, true); }

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
    long n = decode(in, len - pad, '+', '/', buf, len / 4 * 3);
    if (n < 0) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *out = buf;
    return n;
}

char *base64url_encode(const void *data, size_t len) { return encode(data, len, url_safe, false); }

int base64url_decode(const char *in, size_t len, char *out, size_t cap)
{
    while (len > 0 && in[len - 1] == '=')
        len--;
    return (int)decode(in, len, '-', '_', out, cap);
}
