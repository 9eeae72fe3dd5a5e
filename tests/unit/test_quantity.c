/* Unit tests for model/quantity: the Kubernetes quantity grammar, exact scaling with
 * round-up, int64 limits, error classes and canonical formatting that parses back; resource_parse's
 * answers the same when the text comes again. */
#include <inttypes.h>
#include <stdio.h>

#include "model/quantity.h"
#include "model/resource.h"
#include "tests/lib/test.h"

struct parse_case {
    const char *text;
    int scale10;
    int err;
    int64_t value; /* when err == QTY_OK */
};

static const struct parse_case parse_cases[] = {
    /* decimal SI suffixes */
    {"500m", 3, QTY_OK, 500},
    {"0.5", 3, QTY_OK, 500},
    {"2", 3, QTY_OK, 2000},
    {"1", 0, QTY_OK, 1},
    {"0", 0, QTY_OK, 0},
    {"100n", 3, QTY_OK, 1},
    {"1000000n", 3, QTY_OK, 1},
    {"1500000u", 3, QTY_OK, 1500},
    {"3u", 6, QTY_OK, 3},
    {"1k", 0, QTY_OK, 1000},
    {"1.5k", 0, QTY_OK, 1500},
    {"2M", 0, QTY_OK, 2000000},
    {"3G", 0, QTY_OK, 3000000000},
    {"4T", 0, QTY_OK, INT64_C(4000000000000)},
    {"5P", 0, QTY_OK, INT64_C(5000000000000000)},
    {"1E", 0, QTY_OK, INT64_C(1000000000000000000)},
    {"9E", 0, QTY_OK, INT64_C(9000000000000000000)},
    /* binary SI suffixes */
    {"1Ki", 0, QTY_OK, 1024},
    {"1Mi", 0, QTY_OK, 1048576},
    {"1.5Gi", 0, QTY_OK, 1610612736},
    {"1Ti", 0, QTY_OK, INT64_C(1099511627776)},
    {"1Pi", 0, QTY_OK, INT64_C(1125899906842624)},
    {"7Ei", 0, QTY_OK, INT64_C(8070450532247928832)},
    {"0.5Ki", 0, QTY_OK, 512},
    {"0.3Ki", 0, QTY_OK, 308}, /* 307.2 rounds up */
    {"1Ki", 3, QTY_OK, 1024000},
    {"0.001Ki", 3, QTY_OK, 1024},
    {"0.001Ki", 0, QTY_OK, 2},                 /* 1.024 rounds up */
    {"0.0000000000000000001Ei", 0, QTY_OK, 1}, /* 0.1152921504606846976 */
    /* exponents */
    {"2e3", 3, QTY_OK, 2000000},
    {"1E3", 0, QTY_OK, 1000},
    {"1e+3", 0, QTY_OK, 1000},
    {"1e-3", 3, QTY_OK, 1},
    {"15e-1", 0, QTY_OK, 2},
    {"1e0", 0, QTY_OK, 1},
    {"0e999999", 0, QTY_OK, 0},
    {"1e-2000000000", 0, QTY_OK, 1},
    {"1e99", 0, QTY_RANGE, 0},
    {"1e99999999999", 0, QTY_SUFFIX, 0},
    /* number forms, signs and rounding toward +infinity */
    {"1.", 0, QTY_OK, 1},
    {".5", 3, QTY_OK, 500},
    {"+1.5", 3, QTY_OK, 1500},
    {"-1", 0, QTY_OK, -1},
    {"-1.5", 0, QTY_OK, -1},
    {"-0.5", 0, QTY_OK, 0},
    {"-500m", 3, QTY_OK, -500},
    {"0.0001", 0, QTY_OK, 1},
    {"1.0000000000000000000000000000001", 0, QTY_OK, 2},
    {"0.00000000000000000000000000000000000000000000001", 3, QTY_OK, 1},
    {"000000000000000000000000000000042", 0, QTY_OK, 42},
    {"1.5", 0, QTY_OK, 2},
    {"0.1", 3, QTY_OK, 100},
    /* int64 boundaries */
    {"9223372036854775807", 0, QTY_OK, INT64_MAX},
    {"9223372036854775808", 0, QTY_RANGE, 0},
    {"-9223372036854775808", 0, QTY_OK, INT64_MIN},
    {"-9223372036854775809", 0, QTY_RANGE, 0},
    {"9223372036854775806.5", 0, QTY_OK, INT64_MAX},
    {"9223372036854775807.5", 0, QTY_RANGE, 0},
    {"9223372036854775807m", 3, QTY_OK, INT64_MAX},
    {"9223372036854775807", 3, QTY_RANGE, 0},
    {"8Ei", 0, QTY_RANGE, 0},
    {"-8Ei", 0, QTY_OK, INT64_MIN},
    {"10E", 0, QTY_RANGE, 0},
    {"123456789012345678901234567890", 0, QTY_RANGE, 0},
    {"1Ei", 3, QTY_RANGE, 0},
    /* errors */
    {"", 0, QTY_EMPTY, 0},
    {"abc", 0, QTY_SYNTAX, 0},
    {"1.2.3", 0, QTY_SYNTAX, 0},
    {"--1", 0, QTY_SYNTAX, 0},
    {"+-1", 0, QTY_SYNTAX, 0},
    {".", 0, QTY_SYNTAX, 0},
    {"-", 0, QTY_SYNTAX, 0},
    {"1 Gi", 0, QTY_SYNTAX, 0},
    {" 1", 0, QTY_SYNTAX, 0},
    {"1 ", 0, QTY_SYNTAX, 0},
    {"m", 0, QTY_SYNTAX, 0},
    {"Gi", 0, QTY_SYNTAX, 0},
    {"1e3.5", 0, QTY_SYNTAX, 0},
    {"1.5GG", 0, QTY_SUFFIX, 0},
    {"3kb", 0, QTY_SUFFIX, 0},
    {"1KiB", 0, QTY_SUFFIX, 0},
    {"5x", 0, QTY_SUFFIX, 0},
    {"1K", 0, QTY_SUFFIX, 0},
    {"1ki", 0, QTY_SUFFIX, 0},
    {"1e", 0, QTY_SUFFIX, 0},
    {"1e+", 0, QTY_SUFFIX, 0},
    {"1e3Ki", 0, QTY_SUFFIX, 0},
};

static void test_parse_table(void)
{
    int n = (int)(sizeof parse_cases / sizeof parse_cases[0]);
    CHECK(n >= 40);
    for (int i = 0; i < n; i++) {
        const struct parse_case *c = &parse_cases[i];
        int64_t v = -12345;
        int err = quantity_parse(c->text, c->scale10, &v);
        if (err != c->err)
            test_fail(__FILE__, __LINE__, "\"%s\" scale %d: error %d, expected %d", c->text, c->scale10, err, c->err);
        else if (err == QTY_OK && v != c->value)
            test_fail(__FILE__, __LINE__, "\"%s\" scale %d: %" PRId64 ", expected %" PRId64, c->text, c->scale10, v,
                      c->value);
    }
}

static void test_error_leaves_output_alone(void)
{
    int64_t v = 77;
    CHECK_INT(quantity_parse("1.5GG", 0, &v), QTY_SUFFIX);
    CHECK_INT(v, 77);
    CHECK_INT(quantity_parse("9E", 3, &v), QTY_RANGE);
    CHECK_INT(v, 77);
}

static void test_strerror(void)
{
    CHECK_STR(quantity_strerror(QTY_SYNTAX),
              "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    CHECK_STR(quantity_strerror(QTY_SUFFIX), "unable to parse quantity's suffix");
    CHECK_STR(quantity_strerror(QTY_EMPTY), "quantity is empty");
    CHECK_STR(quantity_strerror(QTY_RANGE), "quantity is too large");
    CHECK(quantity_strerror(999) != NULL);
}

struct format_case {
    int64_t value;
    int scale10;
    bool binary;
    const char *text;
};

static const struct format_case format_cases[] = {
    {500, 3, false, "500m"},
    {2000, 3, false, "2"},
    {1500, 3, false, "1500m"},
    {0, 3, false, "0"},
    {-500, 3, false, "-500m"},
    {-2000, 3, false, "-2"},
    {1, 3, false, "1m"},
    {INT64_MAX, 3, false, "9223372036854775807m"},
    {1073741824, 0, true, "1Gi"},
    {1610612736, 0, true, "1536Mi"},
    {1000, 0, true, "1000"},
    {1024, 0, true, "1Ki"},
    {-1024, 0, true, "-1Ki"},
    {INT64_C(1) << 60, 0, true, "1Ei"},
    {INT64_MIN, 0, true, "-8Ei"},
    {INT64_MAX, 0, true, "9223372036854775807"},
    {0, 0, true, "0"},
    {1073741824, 0, false, "1073741824"},
    {1000, 0, false, "1000"},
    {-7, 0, false, "-7"},
    {1500, 6, false, "1500u"},
    {1500000, 6, false, "1500m"},
    {7, 12, false, "7e-12"},
    {5, -3, false, "5k"},
    {5, -4, false, "50k"},
};

static void test_format_table(void)
{
    for (size_t i = 0; i < sizeof format_cases / sizeof format_cases[0]; i++) {
        const struct format_case *c = &format_cases[i];
        char buf[64];
        int n = quantity_format(c->value, c->scale10, c->binary, buf, sizeof buf);
        if (n < 0 || strcmp(buf, c->text) != 0 || (size_t)n != strlen(c->text))
            test_fail(__FILE__, __LINE__, "format(%" PRId64 ", %d, %d) = %d \"%s\", expected \"%s\"", c->value,
                      c->scale10, c->binary, n, n < 0 ? "" : buf, c->text);
    }
}

static void test_format_round_trips(void)
{
    static const int64_t values[] = {0,
                                     1,
                                     -1,
                                     999,
                                     1000,
                                     1001,
                                     1023,
                                     1024,
                                     1536,
                                     -1536,
                                     1610612736,
                                     123456789,
                                     INT64_MAX,
                                     INT64_MIN,
                                     INT64_MAX - 1,
                                     INT64_MIN + 1,
                                     INT64_C(1) << 62,
                                     1000000000000,
                                     -1000000000000000000};
    static const int scales[] = {0, 3, 6, 9, 12, -3, -2};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++) {
            for (int binary = 0; binary < 2; binary++) {
                char buf[64];
                int64_t back = 0;
                int n = quantity_format(values[i], scales[s], binary, buf, sizeof buf);
                int err = n < 0 ? -1 : quantity_parse(buf, scales[s], &back);
                if (err != QTY_OK || back != values[i])
                    test_fail(__FILE__, __LINE__, "%" PRId64 " scale %d binary %d -> \"%s\" -> err %d, %" PRId64,
                              values[i], scales[s], binary, n < 0 ? "" : buf, err, back);
            }
        }
    }
}

static void test_format_buffer_too_small(void)
{
    char buf[5] = "xxxx";
    CHECK_INT(quantity_format(1500, 3, false, buf, sizeof buf), -1); /* "1500m" needs 6 bytes */
    CHECK_INT(quantity_format(1500, 3, false, buf, 0), -1);
    char fits[6];
    CHECK_INT(quantity_format(1500, 3, false, fits, sizeof fits), 5);
    CHECK_STR(fits, "1500m");
}

/* resource_parse remembers the last texts it read (a big job repeats "1" and "1Gi"): the same text
 * read again, or for another resource, or after others, gets the same answer, refusals included. */
static void test_resource_parse_repeated(void)
{
    static const struct {
        int index;
        const char *text;
        int rc;
        int64_t value;
        const char *why;
    } reads[] = {
        {RES_CPU, "1.5", 0, 1500, NULL},
        {RES_PODS, "1.5", -1, 2, "must be a whole number"},
        {RES_MEMORY, "1Gi", 0, (int64_t)1 << 30, NULL},
        {RES_MEMORY, "-1", -1, -1, "must be greater than or equal to 0"},
        {RES_CPU, "1.5GG", -1, 77, NULL},
        {RES_CPU, "1", 0, 1000, NULL},
        {RES_MEMORY, "1", 0, 1, NULL},
    };
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < sizeof reads / sizeof *reads; i++) {
            int64_t v = 77;
            const char *why = NULL;
            CHECK_INT(resource_parse(reads[i].index, reads[i].text, &v, &why), reads[i].rc);
            CHECK_INT(v, reads[i].value); /* a text that is no quantity leaves it alone */
            if (reads[i].why)
                CHECK_STR(why, reads[i].why);
            else if (reads[i].rc != 0)
                CHECK(why != NULL && *why);
        }
    }
}

TEST_MAIN(TEST_CASE(test_parse_table), TEST_CASE(test_resource_parse_repeated),
          TEST_CASE(test_error_leaves_output_alone), TEST_CASE(test_strerror), TEST_CASE(test_format_table),
          TEST_CASE(test_format_round_trips), TEST_CASE(test_format_buffer_too_small))
