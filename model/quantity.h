/* Kubernetes resource quantities ("500m", "1.5Gi", "2e3", "1Ki") parsed exactly into integers.
 * Grammar and rounding follow k8s.io/apimachinery's resource.Quantity: values round up. */
#ifndef CALDERA_QUANTITY_H
#define CALDERA_QUANTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum quantity_error {
    QTY_OK = 0,
    QTY_EMPTY,  /* "" */
    QTY_SYNTAX, /* not <signedNumber><suffix> */
    QTY_SUFFIX, /* a suffix Kubernetes does not know, e.g. "1.5GG", "3kb" */
    QTY_RANGE,  /* the scaled value does not fit in int64 */
};

/* Parses s and stores ceil(value * 10^scale10) in *out. scale10 is 3 for milli-units (cpu),
 * 0 for whole units (memory bytes). Negative values are allowed by the grammar (callers that
 * need non-negative amounts check). Returns a quantity_error. */
int quantity_parse(const char *s, int scale10, int64_t *out);

/* A sentence for an error code, e.g. "quantities must match the regular expression ...". */
const char *quantity_strerror(int err);

/* Formats value (in units of 10^-scale10) canonically: scale 3 gives "500m" or "2";
 * scale 0 with binary gives the largest exact binary suffix ("1536Mi", "1Gi") else plain digits.
 * Returns the length written (excluding NUL), or -1 when len is too small. */
int quantity_format(int64_t value, int scale10, bool binary, char *buf, size_t len);

#endif
