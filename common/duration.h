/* Durations as Kubernetes and Volcano write them: a number of seconds (90, 1.5, "90") or a Go-style
 * duration ("90s", "5m", "1h30m", "250ms"), exact to the millisecond. Pure: no I/O, no clock. */
#ifndef CALDERA_DURATION_H
#define CALDERA_DURATION_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The longest duration accepted: 100 years. */
#define DURATION_MAX_MS (100LL * 365 * 24 * 3600 * 1000)

/* Parses text into milliseconds. A bare number is seconds ("90", "0.5"); otherwise one or more
 * <number><unit> parts with units h, m, s, ms ("1h30m", "1.5h", "250ms"), as Go's
 * time.ParseDuration reads them, without signs. Returns 0, or -1 with a Kubernetes-style detail in
 * *why ("must be a whole number of milliseconds"). */
int duration_parse(const char *text, int64_t *ms, const char **why);

/* Go's time.ParseDuration, as Kubernetes reads a metav1.Duration (a Volcano policy's timeout,
 * runningEstimate): "0", or one or more <decimal><unit> with units ns, us (µs, μs), ms, s, m, h
 * ("1h30m", "1.5h", "300ms"); a bare number other than 0 has no unit and is refused, as Go does.
 * Negative durations and parts finer than a millisecond (Caldera's clock) are refused too. Returns
 * 0, or -1 with Go's wording in why (`time: missing unit in duration "90"`). */
int duration_parse_go(const char *text, int64_t *ms, char *why, size_t why_len);

/* The same for a JSON scalar: an integer or real number of seconds, or a string as above. */
int duration_from_json(const json_t *v, int64_t *ms, const char **why);

/* Milliseconds as seconds for messages: "60s", "62.5s", "0.001s". Returns buf. */
const char *duration_text(int64_t ms, char *buf, size_t len);

#endif
