/* The list of dialects the gateway serves at their own paths; each lives in its own file. */
#include "adapters/dialect.h"

extern const struct dialect training_dialect;

const struct dialect *const dialects[] = {
    &training_dialect,
    NULL,
};
