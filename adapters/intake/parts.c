/* How many parts a big body is read in, YAML (yaml_parts.c) or JSON (json_parts.c): from
 * INTAKE_PARTS_MIN_BODY on, one per CPU and none under INTAKE_PART_MIN_BYTES, or what a test set; and
 * how many bodies were read in parts. */
#include <stdatomic.h>

#include "adapters/intake/internal.h"
#include "common/parallel.h"

static _Atomic size_t parts_min_body = INTAKE_PARTS_MIN_BODY;
static _Atomic int parts_wanted;            /* 0: as the CPUs allow */
static _Atomic unsigned long bodies_joined; /* read in parts, their pieces joined */

void intake_parts_set(size_t min_body, int parts)
{
    parts_min_body = min_body;
    parts_wanted = parts;
}

unsigned long intake_parts_joined(void) { return bodies_joined; }

int intake_parts_for(size_t len)
{
    if (len < parts_min_body)
        return 1;
    return parts_wanted ? parts_wanted : parallel_parts(len, INTAKE_PART_MIN_BYTES);
}

void intake_parts_count_joined(void) { bodies_joined++; }
