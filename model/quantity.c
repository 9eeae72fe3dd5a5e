/* Kubernetes resource quantities parsed exactly: the decimal digits are scaled with integer arithmetic,
 * never floating point, so "0.1" of a cpu is 100 millicores and not 100.00000000000001. */
#include "model/quantity.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Magnitudes live in 128 bits and are never allowed past 2^63 (the size of INT64_MIN), so every
 * multiplication below works on a value that fits and cannot wrap. */
typedef unsigned __int128 u128;
#define MAG_LIMIT ((u128)1 << 63)

/* <signedNumber> split into its digit runs; the digits are read in place from the input. */
struct number {
    bool negative;
    const char *int_digits;
    size_t int_len;
    const char *frac_digits;
    size_t frac_len;
};

/* The value of a suffix: multiply by 10^exp10 and by 2^exp2. */
struct suffix {
    int exp10;
    int exp2;
};

static const struct {
    const char *text;
    struct suffix value;
} known_suffixes[] = {
    {"n", {-9, 0}},  {"u", {-6, 0}},  {"m", {-3, 0}},  {"", {0, 0}},    {"k", {3, 0}},   {"M", {6, 0}},
    {"G", {9, 0}},   {"T", {12, 0}},  {"P", {15, 0}},  {"E", {18, 0}},  {"Ki", {0, 10}}, {"Mi", {0, 20}},
    {"Gi", {0, 30}}, {"Ti", {0, 40}}, {"Pi", {0, 50}}, {"Ei", {0, 60}},
};

static size_t digit_run(const char *s)
{
    size_t n = 0;
    while (s[n] >= '0' && s[n] <= '9')
        n++;
    return n;
}

/* Reads <signedNumber> from the front of s; returns where the suffix starts, or NULL when s does
 * not begin with a number (at least one digit on either side of the point). */
static const char *scan_number(const char *s, struct number *n)
{
    *n = (struct number){0};
    if (*s == '+' || *s == '-')
        n->negative = *s++ == '-';
    n->int_digits = s;
    n->int_len = digit_run(s);
    s += n->int_len;
    if (*s == '.') {
        s++;
        n->frac_digits = s;
        n->frac_len = digit_run(s);
        s += n->frac_len;
    }
    return n->int_len + n->frac_len > 0 ? s : NULL;
}

/* "e3", "E-2", "e+5": an exponent written as a suffix. Kubernetes reads it as a 32-bit integer. */
static bool parse_exponent_suffix(const char *s, struct suffix *out)
{
    if (*s != 'e' && *s != 'E')
        return false;
    s++;
    bool negative = *s == '-';
    if (*s == '+' || *s == '-')
        s++;
    size_t len = digit_run(s);
    if (len == 0 || s[len] != '\0')
        return false;
    long long e = 0;
    for (size_t i = 0; i < len; i++) {
        e = e * 10 + (s[i] - '0');
        if (e > INT32_MAX)
            return false;
    }
    *out = (struct suffix){negative ? -(int)e : (int)e, 0};
    return true;
}

/* Text after a number that only uses suffix-like characters is an unknown suffix ("3kb", "1KiB");
 * anything else ("1.2.3", "1 Gi") means the whole string is not a quantity. */
static bool looks_like_suffix(const char *s)
{
    for (; *s; s++) {
        char c = *s;
        bool ascii_alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!ascii_alnum && c != '+' && c != '-')
            return false;
    }
    return true;
}

static int parse_suffix(const char *s, struct suffix *out)
{
    for (size_t i = 0; i < sizeof known_suffixes / sizeof known_suffixes[0]; i++) {
        if (strcmp(s, known_suffixes[i].text) == 0) {
            *out = known_suffixes[i].value;
            return QTY_OK;
        }
    }
    if (parse_exponent_suffix(s, out))
        return QTY_OK;
    return looks_like_suffix(s) ? QTY_SUFFIX : QTY_SYNTAX;
}

/* Digit i of the number's digits read as one integer (integer part, then fraction). */
static int digit_at(const struct number *n, size_t i)
{
    return i < n->int_len ? n->int_digits[i] - '0' : n->frac_digits[i - n->int_len] - '0';
}

static bool append_digits(u128 *mag, const struct number *n, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        *mag = *mag * 10 + (u128)digit_at(n, i);
        if (*mag > MAG_LIMIT)
            return false;
    }
    return true;
}

static bool shift_left(u128 *mag, int bits)
{
    *mag <<= bits; /* mag <= 2^63 and bits <= 60: at most 2^123 */
    return *mag <= MAG_LIMIT;
}

/* |value| = D * 2^exp2 * 10^exp10 where D is the number's digits read as an integer and exp10 >= 0:
 * the result is a whole number. */
static int scale_up(const struct number *n, long long exp10, int exp2, u128 *mag)
{
    *mag = 0;
    if (!append_digits(mag, n, 0, n->int_len + n->frac_len))
        return QTY_RANGE;
    for (long long i = 0; i < exp10 && *mag != 0; i++) {
        *mag *= 10;
        if (*mag > MAG_LIMIT)
            return QTY_RANGE;
    }
    return shift_left(mag, exp2) ? QTY_OK : QTY_RANGE;
}

/* |value| = D * 2^exp2 / 10^k with k > 0. The leading digits form the integer part I; the last k
 * (with implicit leading zeros when there are fewer) form a fraction F < 1. F * 2^exp2 is computed
 * right to left like long multiplication: the carry out of the top digit is its integer part, and
 * any non-zero product digit left behind means the value is not whole. */
static int scale_down(const struct number *n, long long k, int exp2, u128 *mag, bool *inexact)
{
    size_t total = n->int_len + n->frac_len;
    size_t int_count = (unsigned long long)k < total ? total - (size_t)k : 0;
    *mag = 0;
    *inexact = false;
    if (!append_digits(mag, n, 0, int_count) || !shift_left(mag, exp2))
        return QTY_RANGE;
    u128 carry = 0;
    for (size_t i = total; i > int_count; i--) {
        u128 t = ((u128)digit_at(n, i - 1) << exp2) + carry;
        *inexact |= t % 10 != 0;
        carry = t / 10;
    }
    long long implicit_zeros = k - (long long)(total - int_count);
    for (long long z = 0; z < implicit_zeros && carry != 0; z++) {
        *inexact |= carry % 10 != 0;
        carry /= 10;
    }
    *mag += carry;
    return *mag <= MAG_LIMIT ? QTY_OK : QTY_RANGE;
}

/* Rounds toward +infinity, as Kubernetes' ScaledValue does: 100n is 1m, and -1.5 is -1. */
static int round_up_signed(u128 mag, bool negative, bool inexact, int64_t *out)
{
    if (negative) {
        *out = mag == MAG_LIMIT ? INT64_MIN : -(int64_t)mag;
        return QTY_OK;
    }
    mag += inexact;
    if (mag > (u128)INT64_MAX)
        return QTY_RANGE;
    *out = (int64_t)mag;
    return QTY_OK;
}

int quantity_parse(const char *s, int scale10, int64_t *out)
{
    if (!s || !*s)
        return QTY_EMPTY;
    struct number n;
    const char *rest = scan_number(s, &n);
    if (!rest)
        return QTY_SYNTAX;
    struct suffix sfx;
    int err = parse_suffix(rest, &sfx);
    if (err != QTY_OK)
        return err;
    long long exp10 = (long long)sfx.exp10 + scale10 - (long long)n.frac_len;
    u128 mag;
    bool inexact = false;
    err = exp10 >= 0 ? scale_up(&n, exp10, sfx.exp2, &mag) : scale_down(&n, -exp10, sfx.exp2, &mag, &inexact);
    if (err != QTY_OK)
        return err;
    return round_up_signed(mag, n.negative, inexact, out);
}

const char *quantity_strerror(int err)
{
    switch (err) {
    case QTY_OK: return "quantity is valid";
    case QTY_EMPTY: return "quantity is empty";
    case QTY_SYNTAX:
        return "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    case QTY_SUFFIX: return "unable to parse quantity's suffix";
    case QTY_RANGE: return "quantity is too large";
    default: return "unknown quantity error";
    }
}

/* The largest binary suffix that divides value exactly, so 1536Mi rather than 1.5Gi. */
static bool format_binary(int64_t value, char *tmp, size_t cap)
{
    static const char *const names[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    for (int i = 6; i >= 1; i--) {
        int64_t unit = INT64_C(1) << (10 * i);
        if (value % unit == 0) {
            snprintf(tmp, cap, "%" PRId64 "%s", value / unit, names[i]);
            return true;
        }
    }
    return false;
}

static int64_t pow10_i64(int e) /* 0 <= e <= 18 */
{
    int64_t p = 1;
    while (e-- > 0)
        p *= 10;
    return p;
}

/* value * 10^exp10 with a decimal SI suffix: the largest one not above units (or above exp10 when
 * the scale is coarser than units) that keeps the mantissa whole, e.g. "1500m", "2", "5k". */
static void format_decimal(int64_t value, int exp10, char *tmp, size_t cap)
{
    static const struct {
        int exp;
        const char *text;
    } si[] = {{18, "E"}, {15, "P"}, {12, "T"}, {9, "G"}, {6, "M"}, {3, "k"}, {0, ""}, {-3, "m"}, {-6, "u"}, {-9, "n"}};
    int top = exp10 > 0 ? exp10 : 0;
    for (size_t i = 0; i < sizeof si / sizeof si[0]; i++) {
        if (si[i].exp > top)
            continue;
        int shift = exp10 - si[i].exp;
        int64_t mantissa;
        if (shift >= 0 && shift <= 18 && !__builtin_mul_overflow(value, pow10_i64(shift), &mantissa)) {
            snprintf(tmp, cap, "%" PRId64 "%s", mantissa, si[i].text);
            return;
        }
        if (shift < 0 && shift >= -18 && value % pow10_i64(-shift) == 0) {
            snprintf(tmp, cap, "%" PRId64 "%s", value / pow10_i64(-shift), si[i].text);
            return;
        }
    }
    snprintf(tmp, cap, "%" PRId64 "e%d", value, exp10); /* exact for any scale, and parses back */
}

int quantity_format(int64_t value, int scale10, bool binary, char *buf, size_t len)
{
    char tmp[64];
    if (scale10 < -1000 || scale10 > 1000) /* no unit is that fine or coarse; keeps -scale10 defined */
        return -1;
    if (value == 0)
        snprintf(tmp, sizeof tmp, "0");
    else if (!(scale10 == 0 && binary && format_binary(value, tmp, sizeof tmp)))
        format_decimal(value, -scale10, tmp, sizeof tmp);
    size_t n = strlen(tmp);
    if (n >= len)
        return -1;
    memcpy(buf, tmp, n + 1);
    return (int)n;
}
