/* Standard base64 with padding (RFC 4648 section 4), as Go's encoding/json writes []byte: a Secret's
 * data and a ConfigMap's binaryData. */
#ifndef CALDERA_BASE64_H
#define CALDERA_BASE64_H

#include <stddef.h>

/* data as padded base64: a heap string (NULL when memory runs out). */
char *base64_encode(const void *data, size_t len);
/* Decodes padded base64 (a length that is a multiple of 4, '=' only at the end, as Go's StdEncoding)
 * into a heap buffer with a NUL after the bytes. Returns the number of bytes and sets *out, or -1
 * when in is not base64 (*out NULL) or memory runs out. */
long base64_decode(const char *in, size_t len, char **out);

#endif
