/* PATCH's parts shared by its files: server-side apply (patch_apply.c) beside the other patch
 * types (patch.c). */
#ifndef CALDERA_GATEWAY_PATCH_H
#define CALDERA_GATEWAY_PATCH_H

#include <jansson.h>

#include "common/api_status.h"
#include "gateway/http/http.h"

/* An apply's query: fieldManager required, force true or false. 0, or -1 with a 400 in st. */
int patch_apply_check(struct http_req *req, struct api_status *st);
/* The stored object with the applied configuration (the body) merged in and managedFields brought
 * up to date, or NULL with the Status in st (409 for conflicts without force). */
json_t *patch_apply_merge(struct http_req *req, const json_t *stored, struct api_status *st);
/* For an object that does not exist yet: the body becomes the applied object with its managedFields,
 * for the kind's create. 0, or -1 with the Status in st (400 when it does not name url_name). */
int patch_apply_body(struct http_req *req, const char *url_name, struct api_status *st);

#endif
