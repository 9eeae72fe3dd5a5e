/* Wall and monotonic clocks in milliseconds, and RFC 3339 timestamps as Kubernetes prints them.
 * Placement code never reads a clock: the core passes "now" into it. */
#ifndef CALDERA_CLOCK_H
#define CALDERA_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#define RFC3339_LEN 32

#include <time.h>

int64_t clock_wall_ms(void);
int64_t clock_mono_ms(void);
/* The time ms from now on clock (CLOCK_MONOTONIC, CLOCK_REALTIME) as pthread_cond_timedwait takes it. */
struct timespec clock_deadline(clockid_t clock, int64_t ms);

/* "2026-11-22T08:15:00Z" (seconds) into buf of at least RFC3339_LEN bytes. */
const char *rfc3339(int64_t wall_ms, char *buf);
/* "2026-11-22T08:15:00.123Z" (milliseconds, as Kubernetes' MicroTime shortened). */
const char *rfc3339_ms(int64_t wall_ms, char *buf);
/* Parses either form (and numeric offsets); returns 0 and sets *wall_ms, or -1. */
int rfc3339_parse(const char *s, int64_t *wall_ms);

#endif
