/* The proxy's resolver backed by the core: where a companion is (CORE_COMPANION_TARGET) and its
 * traffic (CORE_COMPANION_TOUCH, posted without waiting). */
#ifndef CALDERA_GATEWAY_PROXY_CORE_RESOLVER_H
#define CALDERA_GATEWAY_PROXY_CORE_RESOLVER_H

#include "gateway/proxy/proxy.h"

struct core;

/* Fills *out with functions that ask core (which must outlive the resolver's use). */
void proxy_core_resolver(struct proxy_resolver *out, struct core *core);

#endif
