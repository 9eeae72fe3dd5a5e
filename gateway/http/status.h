/* Kubernetes `Status` objects: how every failed request is answered (and successful deletes), with
 * field causes and the Retry-After a refusal may carry. */
#ifndef CALDERA_STATUS_H
#define CALDERA_STATUS_H

#include <jansson.h>

#include "common/api_status.h"

/* {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":...,"reason":...,
 *  "details":{"name","group","kind","causes":[{"reason","message","field"}]},"code":...} */
json_t *status_render(const struct api_status *st);
/* The same, serialised (caller frees); NULL when memory runs out. */
char *json_dumps_status(const struct api_status *st);

/* The Retry-After (seconds) an answer with this HTTP code carries: hint_s when positive, else 1,
 * for 429 and 503; 0 (no header) for every other code. */
int retry_after_seconds(int code, int hint_s);

#endif
