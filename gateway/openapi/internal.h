/* What the files of the OpenAPI document share: the builders of components.schemas,
 * components.parameters and components.responses (the operations are the routes' own rows). */
#ifndef CALDERA_OPENAPI_INTERNAL_H
#define CALDERA_OPENAPI_INTERNAL_H

#include <jansson.h>

#include "gateway/router/route_doc.h"

/* components.schemas, components.parameters, components.responses: new references, NULL when
 * memory runs out. */
json_t *openapi_schemas(void);
json_t *openapi_parameters(void);
json_t *openapi_error_responses(void);

/* {"$ref": "#/components/<section>/<name>"} */
json_t *openapi_ref(const char *section, const char *name);
/* The query parameters of flags, as references, appended to params. */
void openapi_add_query_params(json_t *params, unsigned flags);
/* The error responses of flags (and "default"), as references, set in responses. */
void openapi_add_error_responses(json_t *responses, unsigned flags);

#endif
