/* Reading the server's OpenAPI document in tests: local $refs resolved, and a JSON answer held
 * against a schema (every field documented, of the documented type and values). */
#ifndef CALDERA_TEST_OPENAPI_CHECK_H
#define CALDERA_TEST_OPENAPI_CHECK_H

#include <jansson.h>

/* What a local reference ("#/components/schemas/Job") points at in doc, or NULL. */
json_t *openapi_resolve(json_t *doc, const char *ref);
/* v, or what its $ref points at (a described reference, {"allOf":[{"$ref"}]}, too). */
json_t *openapi_deref(json_t *doc, json_t *v);
/* Fails the running test case for every field of value the schema does not document, and every
 * value of another type or outside its enum; where names value in the messages. Returns how many. */
int openapi_conform(json_t *doc, json_t *value, json_t *schema, const char *where);

#endif
