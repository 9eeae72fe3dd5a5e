/* Time zones from the TZ database's compiled files (TZif, RFC 8536): the UTC offset in force at an
 * instant, so a CronJob's timeZone is honoured without touching the process's TZ. Only the
 * transitions the file lists are used (its POSIX footer is not read): Debian's files list them to 2037. */
#ifndef CALDERA_TZFILE_H
#define CALDERA_TZFILE_H

#include <stddef.h>
#include <stdint.h>

#define TZ_MAX_TRANSITIONS 2048
#define TZ_MAX_TYPES 64

struct tz_zone {
    int ntransitions;
    int64_t at[TZ_MAX_TRANSITIONS];      /* seconds since the epoch, ascending */
    uint8_t type_of[TZ_MAX_TRANSITIONS]; /* the local time type from each transition on */
    int ntypes;
    int32_t offset_s[TZ_MAX_TYPES]; /* seconds east of UTC */
    int32_t first_offset_s;         /* before the first transition */
};

/* UTC: no transitions, offset 0. */
void tz_utc(struct tz_zone *z);
/* Decodes a TZif file's bytes (version 1, or the 64-bit part of version 2 and later). Returns 0, or
 * -1 with why. */
int tz_decode(const unsigned char *data, size_t len, struct tz_zone *z, char *why, size_t why_len);
/* Loads a zone by its IANA name ("Europe/Berlin", "UTC") from dir (NULL: /usr/share/zoneinfo, or
 * $TZDIR). Names with "..", a leading '/' or odd characters are refused. Returns 0, or -1 with why. */
int tz_load(const char *dir, const char *name, struct tz_zone *z, char *why, size_t why_len);
/* Seconds east of UTC in force at unix time t. */
int32_t tz_offset_at(const struct tz_zone *z, int64_t t);

#endif
