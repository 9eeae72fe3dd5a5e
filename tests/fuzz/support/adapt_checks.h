/* The body of the intake fuzzers: a request body through intake_parse, the promises intake.h makes
 * about the documents, then each document adapted as the gateway posts it (dialect_job_from_doc). */
#ifndef CALDERA_ADAPT_CHECKS_H
#define CALDERA_ADAPT_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "adapters/intake/intake.h"

/* Parses and adapts one body; aborts through fuzz_fail when a promise is broken. */
void fuzz_adapt_body(const uint8_t *data, size_t size, enum intake_format fmt);

#endif
