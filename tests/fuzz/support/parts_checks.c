/* Reading a fuzzed body whole and in parts, and comparing: documents, their lines and offsets, the
 * error's words, and the arenas left once everything is freed. */
#include "tests/fuzz/support/parts_checks.h"

#include <string.h>

#include "adapters/intake/internal.h"
#include "common/free_later.h"
#include "tests/fuzz/support/fuzz.h"

void fuzz_check_parts(const uint8_t *data, size_t size, enum intake_format fmt)
{
    struct intake whole = {0}, split = {0};
    struct api_status st_whole = {0}, st_split = {0};
    intake_parts_set(SIZE_MAX, 0);
    int rc_whole = intake_parse((const char *)data, size, fmt, &whole, &st_whole);
    intake_parts_set(0, 2 + (size ? data[0] % 3 : 0));
    int rc_split = intake_parse((const char *)data, size, fmt, &split, &st_split);
    intake_parts_set(SIZE_MAX, 0);
    FUZZ_CHECK(rc_whole == rc_split, "read whole: %s; in parts: %s", rc_whole ? st_whole.message : "ok",
               rc_split ? st_split.message : "ok");
    if (rc_whole != 0) {
        FUZZ_CHECK(strcmp(st_whole.message, st_split.message) == 0, "whole: %s; in parts: %s", st_whole.message,
                   st_split.message);
    } else {
        FUZZ_CHECK(whole.ndocs == split.ndocs, "%d documents whole, %d in parts", whole.ndocs, split.ndocs);
        for (int i = 0; i < whole.ndocs; i++) {
            const struct intake_doc *w = &whole.docs[i], *s = &split.docs[i];
            FUZZ_CHECK(json_equal(w->root, s->root), "document %d differs in parts", i);
            FUZZ_CHECK(w->first_line == s->first_line && w->start_offset == s->start_offset &&
                           w->end_offset == s->end_offset,
                       "document %d: line %d, %zu-%zu whole; line %d, %zu-%zu in parts", i, w->first_line,
                       w->start_offset, w->end_offset, s->first_line, s->start_offset, s->end_offset);
        }
        intake_free(&whole);
        intake_free(&split);
    }
    free_later_flush();
    FUZZ_CHECK(doc_arena_count() == 0, "arenas left: %d", doc_arena_count());
}
