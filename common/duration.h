/* Durations as Kubernetes and Volcano write them ("90s", "1h30m", "1.5h", "500ms"), or a plain
 * number of seconds. */
#ifndef CALDERA_DURATION_H
#define CALDERA_DURATION_H

#include <stdint.h>

/* Parses into milliseconds (fractions of a millisecond round down). Units: ns, us (µs), ms, s, m,
 * h; a bare number means seconds. Returns 0, or -1 when s is not a duration or is negative. */
int duration_parse_ms(const char *s, int64_t *ms);

#endif
