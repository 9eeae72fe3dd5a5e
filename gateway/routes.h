/* The route table: every route the server answers (routes.c), terminated by a NULL pattern. The
 * daemon hands it to the gateway (struct gateway's routes); the router, OpenAPI and discovery read it there. */
#ifndef CALDERA_ROUTES_H
#define CALDERA_ROUTES_H

#include "gateway/router/router.h"

extern const struct route gateway_routes[];

#endif
