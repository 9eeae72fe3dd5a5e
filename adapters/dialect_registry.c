/* The list of dialects the gateway serves at their own paths; each lives in its own file. */
#include "adapters/dialect.h"

extern const struct dialect dialect_rayjob;
extern const struct dialect dialect_spark;

const struct dialect *const dialects[] = {
    &dialect_rayjob,
    &dialect_spark,
    NULL,
};
