/* Backend kinds by name (model/backend_kind.h): what --backend, the --backends file and a job's stored
 * status (controlledResources caldera.io/backend) say. */
#include "model/backend_kind.h"

#include <string.h>

static const char *const kind_names[BACKEND_KIND_COUNT] = {"local", "kubernetes", "slurm"};

const char *backend_kind_name(enum backend_kind k)
{
    return (unsigned)k < BACKEND_KIND_COUNT ? kind_names[k] : "unknown";
}

int backend_kind_parse(const char *s)
{
    for (int k = 0; s && k < BACKEND_KIND_COUNT; k++)
        if (strcmp(s, kind_names[k]) == 0)
            return k;
    return -1;
}
