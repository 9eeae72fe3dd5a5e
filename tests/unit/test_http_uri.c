/* Unit tests of the request hygiene helpers: UTF-8 well-formedness and repair (common/utf8.c), the
 * raw URI check (gateway/http/uri.c), and a Status that still encodes when its text is not UTF-8. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "gateway/http/uri.h"
#include "gateway/http/status.h"
#include "tests/lib/test.h"

static void utf8_well_formedness_follows_rfc_3629(void)
{
    static const struct {
        const char *bytes;
        bool valid;
    } cases[] = {
        {"plain ascii", true},
        {"\xc3\xa9t\xc3\xa9", true}, /* é */
        {"\xe2\x82\xac", true},      /* € */
        {"\xf0\x9f\x98\x80", true},  /* U+1F600 */
        {"\xf4\x8f\xbf\xbf", true},  /* U+10FFFF, the last */
        {"\xff", false},
        {"\xc3", false},             /* cut short */
        {"\xc3\x28", false},         /* a continuation missing */
        {"\xc0\xaf", false},         /* overlong '/' */
        {"\xe0\x80\xaf", false},     /* overlong, three bytes */
        {"\xed\xa0\x80", false},     /* a surrogate */
        {"\xf4\x90\x80\x80", false}, /* past U+10FFFF */
        {"\x80", false},             /* a lone continuation */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (utf8_valid(cases[i].bytes, strlen(cases[i].bytes)) != cases[i].valid)
            test_fail(__FILE__, __LINE__, "case %zu: expected %s", i, cases[i].valid ? "valid" : "invalid");
    char *r = utf8_repaired("a\xffz\xc3\xa9\xc3");
    CHECK_STR(r, "a?z\xc3\xa9?");
    free(r);
}

static void raw_uris_are_checked_by_part(void)
{
    static const struct {
        const char *uri;
        int code;
        const char *says;
    } cases[] = {
        {"/apis/x/jobs/a-b", 0, NULL},
        {"/apis/x/jobs/%C3%A9?labelSelector=app%3Dweb&limit=5", 0, NULL},
        {"/jobs/100%", 400, "path has a '%' not followed"},
        {"/jobs/%f", 400, "path has a '%' not followed"},
        {"/jobs/%zz", 400, "path has a '%' not followed"},
        {"/jobs/%ff", 400, "path has bytes that are not UTF-8"},
        {"/jobs/a%00b", 400, "path has an encoded NUL"},
        {"/jobs/\xff", 400, "path has bytes that are not UTF-8"}, /* sent raw */
        {"/jobs?labelSelector=%ff", 400, "query parameter \"labelSelector\" has bytes"},
        {"/jobs?a=1&%ff=2", 400, "query parameter 2 has bytes"}, /* a key that cannot be named */
        {"/jobs?a=%2", 400, "query parameter \"a\" has a '%'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[256] = "";
        size_t n;
        int code = http_uri_check(cases[i].uri, &n, why, sizeof why);
        if (code != cases[i].code || (cases[i].says && !strstr(why, cases[i].says)))
            test_fail(__FILE__, __LINE__, "%s: %d \"%s\"", cases[i].uri, code, why);
    }
    char uri[8192] = "/healthz?";
    for (int i = 0; i < HTTP_MAX_QUERY_PARAMS; i++)
        strcat(uri, i ? "&a=1" : "a=1");
    char why[256];
    size_t n = 0;
    CHECK_INT(http_uri_check(uri, &n, why, sizeof why), 0);
    CHECK_INT(n, HTTP_MAX_QUERY_PARAMS);
    strcat(uri, "&b");
    CHECK_INT(http_uri_check(uri, &n, why, sizeof why), 414);
    CHECK_CONTAINS(why, "101 parameters");
}

static void a_status_with_text_that_is_not_utf8_still_encodes(void)
{
    struct api_status st = {0};
    api_fail(&st, 403, "Forbidden", "requests from %s are not allowed", "http://\xff\xc3");
    api_add_cause(&st, "name\xff", "FieldValueInvalid", 0, 0, "bad \xc3");
    char *text = json_dumps_status(&st);
    CHECK(text != NULL);
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;
    CHECK_STR(json_string_value(json_object_get(j, "message")), "requests from http://?? are not allowed");
    CHECK_INT(json_integer_value(json_object_get(j, "code")), 403);
    json_decref(j);
    free(text);
}

TEST_MAIN(TEST_CASE(utf8_well_formedness_follows_rfc_3629), TEST_CASE(raw_uris_are_checked_by_part),
          TEST_CASE(a_status_with_text_that_is_not_utf8_still_encodes))
