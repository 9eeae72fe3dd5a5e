/* A JSON value as compact text with sorted keys, so a test compares a rendered object with the text
 * it expects and prints both when they differ. */
#ifndef CALDERA_TEST_JSON_TEXT_H
#define CALDERA_TEST_JSON_TEXT_H

#include <jansson.h>
#include <stdbool.h>

/* The JSON text of a value (compact, keys sorted), freed by the caller; NULL when out of memory. */
char *json_text(const json_t *v);
/* Whether v's text is want; when not, prints "got" and "want" on stderr. */
bool json_is_text(const json_t *v, const char *want);

#endif
