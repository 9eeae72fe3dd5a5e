/* Go's strconv.ParseBool: the twelve spellings it accepts, nothing else (no "yes", no surrounding
 * spaces, no other capitalisation). */
#include "common/parse_bool.h"

#include <stddef.h>
#include <string.h>

int parse_bool(const char *text, bool *out)
{
    static const char *const yes[] = {"1", "t", "T", "true", "TRUE", "True"};
    static const char *const no[] = {"0", "f", "F", "false", "FALSE", "False"};
    if (!text)
        return -1;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcmp(text, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcmp(text, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return -1;
}
