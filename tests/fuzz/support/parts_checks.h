/* What the intake fuzzers check of reading a body in parts (adapters/intake/yaml_parts.c,
 * json_parts.c): the same documents, offsets and errors as a whole reading, and every arena back. */
#ifndef CALDERA_PARTS_CHECKS_H
#define CALDERA_PARTS_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "adapters/intake/intake.h"

/* Reads the body whole, then in 2 to 4 parts (its first byte says); aborts through fuzz_fail when the
 * two differ. */
void fuzz_check_parts(const uint8_t *data, size_t size, enum intake_format fmt);

#endif
