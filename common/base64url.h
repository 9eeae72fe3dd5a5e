/* URL-safe base64 without padding (RFC 4648 section 5): the continue tokens of paged lists and the
 * bearer token a browser puts in a WebSocket subprotocol. */
#ifndef CALDERA_BASE64URL_H
#define CALDERA_BASE64URL_H

#include <stddef.h>

/* data as URL-safe base64 without '=' padding: a heap string (NULL when memory runs out). */
char *base64url_encode(const void *data, size_t len);
/* Decodes base64url without padding ('-' and '_'; '=' tolerated at the end) into out (cap bytes).
 * Returns the number of bytes, or -1 when in is not base64url or does not fit. */
int base64url_decode(const char *in, size_t len, char *out, size_t cap);

#endif
