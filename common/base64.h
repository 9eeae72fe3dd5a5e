/* Base64 in its two alphabets (RFC 4648): standard with padding, as Go's encoding/json writes []byte
 * (a Secret's data, a ConfigMap's binaryData), and URL-safe without padding (continue tokens, the
 * bearer token a browser puts in a WebSocket subprotocol). */
#ifndef CALDERA_BASE64_H
#define CALDERA_BASE64_H

#include <stddef.h>

/* data as padded base64: a heap string (NULL when memory runs out). */
char *base64_encode(const void *data, size_t len);
/* Decodes padded base64 (a length that is a multiple of 4, '=' only at the end, as Go's StdEncoding)
 * into a heap buffer with a NUL after the bytes. Returns the number of bytes and sets *out, or -1
 * when in is not base64 (*out NULL) or memory runs out. */
long base64_decode(const char *in, size_t len, char **out);

/* data as URL-safe base64 without '=' padding: a heap string (NULL when memory runs out). */
char *base64url_encode(const void *data, size_t len);
/* Decodes base64url without padding ('-' and '_'; '=' tolerated at the end) into out (cap bytes).
 * Returns the number of bytes, or -1 when in is not base64url or does not fit. */
int base64url_decode(const char *in, size_t len, char *out, size_t cap);

#endif
