/* JSON documents written as YAML through libyaml's emitter (never by hand): keys in the order the
 * server sent them, strings YAML would read as something else (true, 1.5, null, ~) quoted. */
#ifndef CALDERA_JOBCTL_YAML_OUT_H
#define CALDERA_JOBCTL_YAML_OUT_H

#include <jansson.h>

/* v as one YAML document (no "---" marker; a list of documents stays one sequence). Heap string,
 * NULL when memory runs out or the emitter fails. */
char *yaml_from_json(const json_t *v);

#endif
