/* fuzz_fail: a promise of the code under test was broken by this input; libFuzzer catches the abort,
 * keeps the input under its artifact prefix and prints the stack. */
#include "tests/fuzz/support/fuzz.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz: broken promise: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}
