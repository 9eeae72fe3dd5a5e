/* An API server's error answer read back as Kubernetes clients read it: the `Status` object's code,
 * reason, message and details into struct api_status, or, for an answer that is not one (a proxy's
 * page), a reason from the HTTP code as client-go's NewGenericServerResponse gives it. Pure. */
#ifndef CALDERA_KUBE_STATUS_H
#define CALDERA_KUBE_STATUS_H

#include <jansson.h>
#include <stddef.h>

#include "common/api_status.h"

/* Fills st from an error answer (http_code >= 300) of body[len]. Returns -1, for `return`. */
int kube_status_from_answer(long http_code, const char *body, size_t len, struct api_status *st);
/* Fills st from a Status object (a watch's ERROR event); http_code stands in when it has no code. */
int kube_status_from_object(const json_t *status, long http_code, struct api_status *st);

#endif
