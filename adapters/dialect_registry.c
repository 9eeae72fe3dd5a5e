/* The list of dialects the gateway serves at their own paths; each lives in its own file. */
#include "adapters/dialect.h"

const struct dialect *const dialects[] = {
    NULL,
};
