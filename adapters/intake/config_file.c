/* A server's configuration file (--companions, --images): one YAML mapping, or a file that says nothing
 * (blank lines and comments only), which intake_parse alone would refuse as an empty body. */
#include <ctype.h>

#include "adapters/intake/intake.h"

/* Blank lines and comments only. */
static bool only_comments(const char *data, size_t len)
{
    bool comment = false;
    for (size_t i = 0; i < len; i++) {
        if (data[i] == '\n')
            comment = false;
        else if (data[i] == '#')
            comment = true;
        else if (!comment && !isspace((unsigned char)data[i]))
            return false;
    }
    return true;
}

int intake_parse_config(const char *data, size_t len, const char *shape, struct intake *in, struct api_status *st)
{
    if (only_comments(data, len))
        return 0;
    if (intake_parse(data, len, INTAKE_YAML, in, st) != 0)
        return -1;
    if (in->ndocs == 0) {
        intake_free(in);
        return 0;
    }
    if (in->ndocs != 1 || !json_is_object(in->docs[0].root)) {
        intake_free(in);
        return api_fail(st, 400, "BadRequest", "%s", shape);
    }
    return 1;
}
