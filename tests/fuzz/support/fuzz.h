/* What every libFuzzer target here shares: libFuzzer's entry points (declared, for -Wmissing-prototypes)
 * and fuzz_fail, which reports a broken promise and aborts so libFuzzer keeps the input as a crash. */
#ifndef CALDERA_FUZZ_H
#define CALDERA_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Prints "fuzz: broken promise: ..." and aborts. */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#define FUZZ_CHECK(cond, ...)       \
    do {                            \
        if (!(cond))                \
            fuzz_fail(__VA_ARGS__); \
    } while (0)

#endif
