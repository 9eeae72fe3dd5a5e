/* A ConfigMap's or Secret's memory: the names and the manifest are its own.
 * (Parsing and rendering are adapters/objects/config_object.c's.) */
#include "model/config_object.h"

#include <stdlib.h>

void config_object_free(struct config_object *o)
{
    if (!o)
        return;
    free(o->ns);
    free(o->name);
    json_decref(o->manifest);
    free(o);
}
