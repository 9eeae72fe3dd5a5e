/* Ages as kubectl prints them (k8s.io/apimachinery's HumanDuration): "45s", "2m5s", "3h20m", "2d",
 * for jobctl's tables and the server's Table cells alike. Pure: the caller passes the time. */
#ifndef CALDERA_AGE_H
#define CALDERA_AGE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* A duration as kubectl prints it (HumanDuration): "45s", "2m5s", "12m", "3h20m", "12h", "2d",
 * "3y". Small negative skews read "0s"; below -1 s it is "<invalid>". */
const char *human_age(int64_t ms, char *buf, size_t len);
/* The age of an RFC 3339 timestamp at now_ms; "<unknown>" when ts is missing or unparsable. */
const char *age_since(const json_t *ts, int64_t now_ms, char *buf, size_t len);

#endif
