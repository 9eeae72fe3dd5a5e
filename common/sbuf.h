/* A growable, always NUL-terminated byte buffer for building strings and collecting request bodies.
 * An allocation failure sets `failed` and later appends do nothing, so callers check once at the end. */
#ifndef CALDERA_SBUF_H
#define CALDERA_SBUF_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf {
    char *data; /* NULL until the first append */
    size_t len;
    size_t cap;
    bool failed;
};

void sbuf_append(struct sbuf *b, const void *data, size_t len);
void sbuf_puts(struct sbuf *b, const char *s);
void sbuf_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The string so far ("" when empty); valid until the next append. */
const char *sbuf_str(const struct sbuf *b);
/* Hands the heap string to the caller (never NULL unless failed) and resets the buffer. */
char *sbuf_take(struct sbuf *b);
void sbuf_free(struct sbuf *b);

#endif
