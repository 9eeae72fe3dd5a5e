/* Priority classes built into every Kubernetes cluster. The table is constant; classes created
 * through the API (a later step) will be held by the core beside it. */
#include "model/priority.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int32_t value;
} builtin_classes[] = {
    {"system-node-critical", 2000001000},
    {"system-cluster-critical", 2000000000},
};

bool priority_class_value(const char *name, int32_t *value)
{
    for (size_t i = 0; i < sizeof builtin_classes / sizeof builtin_classes[0]; i++) {
        if (strcmp(builtin_classes[i].name, name) == 0) {
            *value = builtin_classes[i].value;
            return true;
        }
    }
    return false;
}

void priority_class_free(struct priority_class *pc)
{
    if (!pc)
        return;
    free(pc->name);
    json_decref(pc->manifest);
    free(pc);
}
