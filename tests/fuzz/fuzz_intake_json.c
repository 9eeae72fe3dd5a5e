/* libFuzzer target: any body posted as JSON (intake_parse with INTAKE_JSON), then the document
 * adapted as the gateway would, with the checks of tests/fuzz/support/adapt_checks.c; and the body
 * read in parts (adapters/intake/json_parts.c) gives what reading it whole gives. */
#include <stdint.h>
#include <string.h>

#include "adapters/intake/internal.h"
#include "common/free_later.h"
#include "tests/fuzz/support/adapt_checks.h"
#include "tests/fuzz/support/fuzz.h"

/* Read in 2 to 4 parts (the first byte says), the body gives the document or error of a whole reading,
 * and every arena goes back. */
static void check_parts(const uint8_t *data, size_t size)
{
    struct intake whole = {0}, split = {0};
    struct api_status st_whole = {0}, st_split = {0};
    json_parts_set(SIZE_MAX, 0);
    int rc_whole = intake_parse((const char *)data, size, INTAKE_JSON, &whole, &st_whole);
    json_parts_set(0, 2 + (size ? data[0] % 3 : 0));
    int rc_split = intake_parse((const char *)data, size, INTAKE_JSON, &split, &st_split);
    json_parts_set(SIZE_MAX, 0);
    FUZZ_CHECK(rc_whole == rc_split, "read whole: %s; in parts: %s", rc_whole ? st_whole.message : "ok",
               rc_split ? st_split.message : "ok");
    if (rc_whole != 0) {
        FUZZ_CHECK(strcmp(st_whole.message, st_split.message) == 0, "whole: %s; in parts: %s", st_whole.message,
                   st_split.message);
    } else {
        FUZZ_CHECK(json_equal(whole.docs[0].root, split.docs[0].root), "the document differs in parts");
        intake_free(&whole);
        intake_free(&split);
    }
    free_later_flush();
    FUZZ_CHECK(doc_arena_count() == 0, "arenas left: %d", doc_arena_count());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_parts(data, size);
    fuzz_adapt_body(data, size, INTAKE_JSON);
    return 0;
}
