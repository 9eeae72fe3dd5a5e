/* libFuzzer target: any body posted as YAML (intake_parse with INTAKE_YAML), then each document
 * adapted as the gateway would, with the checks of tests/fuzz/support/adapt_checks.c; and the body
 * read in parts gives what reading it whole gives (tests/fuzz/support/parts_checks.c). */
#include "tests/fuzz/support/adapt_checks.h"
#include "tests/fuzz/support/fuzz.h"
#include "tests/fuzz/support/parts_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_check_parts(data, size, INTAKE_YAML);
    fuzz_adapt_body(data, size, INTAKE_YAML);
    return 0;
}
