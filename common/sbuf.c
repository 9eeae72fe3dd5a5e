/* A growable, always NUL-terminated byte buffer for building strings and collecting request bodies.
 * Capacity doubles, so appending n bytes one at a time costs O(n). */
#include "common/sbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

static bool reserve(struct sbuf *b, size_t extra)
{
    if (b->failed)
        return false;
    if (GROW(b->data, b->cap, b->len + extra + 1, 64) != 0) {
        b->failed = true;
        return false;
    }
    return true;
}

void sbuf_append(struct sbuf *b, const void *data, size_t len)
{
    if (!reserve(b, len))
        return;
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void sbuf_puts(struct sbuf *b, const char *s) { sbuf_append(b, s, strlen(s)); }

void sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        sbuf_append(b, small, (size_t)n);
        return;
    }
    if (!reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *sbuf_str(const struct sbuf *b) { return b->data ? b->data : ""; }

char *sbuf_take(struct sbuf *b)
{
    if (b->failed) {
        sbuf_free(b);
        return NULL;
    }
    char *s = b->data ? b->data : strdup("");
    *b = (struct sbuf){0};
    return s;
}

void sbuf_free(struct sbuf *b)
{
    free(b->data);
    *b = (struct sbuf){0};
}
