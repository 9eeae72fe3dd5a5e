/* Booleans as Go's strconv.ParseBool reads them, which is how Kubernetes reads every boolean query
 * parameter (watch, pretty, follow...) and Volcano its plugins' flags. */
#ifndef CALDERA_PARSE_BOOL_H
#define CALDERA_PARSE_BOOL_H

#include <stdbool.h>

/* "1", "t", "T", "TRUE", "true", "True" are true; "0", "f", "F", "FALSE", "false", "False" are
 * false. Returns 0 with *out set, or -1 (*out unchanged) for anything else, "" and "yes" included. */
int parse_bool(const char *text, bool *out);

#endif
