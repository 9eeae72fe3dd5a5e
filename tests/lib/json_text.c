/* A JSON value as compact text with sorted keys, and a comparison against the text a test expects
 * that shows both on a mismatch. */
#include "tests/lib/json_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *json_text(const json_t *v) { return json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY); }

bool json_is_text(const json_t *v, const char *want)
{
    char *got = json_text(v);
    bool same = got && strcmp(got, want) == 0;
    if (!same)
        fprintf(stderr, "  got  %s\n  want %s\n", got ? got : "(null)", want);
    free(got);
    return same;
}
