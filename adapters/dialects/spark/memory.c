/* Spark's memory sizes ("512m", "2g", "1024") read as Spark reads them, and the overhead Spark on
 * Kubernetes adds to a pod's memory (spark.kubernetes.memoryOverheadFactor, at least 384 MiB). */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "adapters/dialects/spark/spark.h"

#define MIN_OVERHEAD_MIB 384 /* Spark's MEMORY_OVERHEAD_MIN_MIB */

/* The unit's size in KiB powers: b -1 (bytes), k 0, m 1, g 2, t 3, p 4; -2 when unknown. */
static int unit_power(const char *unit)
{
    static const char *const units[] = {"k", "m", "g", "t", "p"};
    if (strcmp(unit, "b") == 0)
        return -1;
    for (int i = 0; i < 5; i++) {
        size_t n = strlen(units[i]);
        if (strncmp(unit, units[i], n) == 0 && (unit[n] == 0 || (unit[n] == 'b' && unit[n + 1] == 0)))
            return i;
    }
    return -2;
}

bool spark_size_mib(const char *text, char default_unit, int64_t *mib, const char **why)
{
    char lower[64];
    size_t n = strlen(text), digits = 0;
    *why = NULL;
    if (n == 0 || n >= sizeof lower) {
        *why = "must be a size such as 512m or 2g";
        return false;
    }
    for (size_t i = 0; i <= n; i++)
        lower[i] = (char)tolower((unsigned char)text[i]);
    while (isdigit((unsigned char)lower[digits]))
        digits++;
    if (digits == 0 || (lower[digits] == '.' && isdigit((unsigned char)lower[digits + 1]))) {
        *why = digits ? "fractional values are not supported (Spark reads whole numbers of a unit)"
                      : "must be a size such as 512m or 2g";
        return false;
    }
    char unit[8] = {default_unit, 0};
    if (lower[digits]) {
        if (strlen(lower + digits) >= sizeof unit) {
            *why = "unknown unit: use b, k, m, g, t or p (optionally followed by b)";
            return false;
        }
        strcpy(unit, lower + digits);
    }
    int power = unit_power(unit);
    if (power == -2) {
        *why = "unknown unit: use b, k, m, g, t or p (optionally followed by b)";
        return false;
    }
    int64_t value = 0;
    for (size_t i = 0; i < digits; i++) {
        if (value > (INT64_MAX - 9) / 10) {
            *why = "too large";
            return false;
        }
        value = value * 10 + (lower[i] - '0');
    }
    /* To MiB: bytes and KiB truncate, as Spark's ByteUnit conversion does. */
    if (power <= 1)
        *mib = power == -1 ? value / (1024 * 1024) : power == 0 ? value / 1024 : value;
    else {
        *mib = value;
        for (int p = 1; p < power; p++) {
            if (*mib > INT64_MAX / 1024 / 1024 / 1024) {
                *why = "too large";
                return false;
            }
            *mib *= 1024;
        }
    }
    if (*mib > INT64_MAX / 1024 / 1024 / 2) {
        *why = "too large";
        return false;
    }
    return true;
}

int64_t spark_overhead_mib(int64_t heap_mib, double factor)
{
    int64_t scaled = (int64_t)(factor * (double)heap_mib); /* Spark's .toInt truncates */
    return scaled > MIN_OVERHEAD_MIB ? scaled : MIN_OVERHEAD_MIB;
}
