/* Where the fake libnvidia-ml.so.1 (tests/fakes/fake_nvml.c) is: build/fake/, beside the build
 * folder of the running test (build/asan/tests/unit, build/tsan/tests/integration...). */
#ifndef CALDERA_TEST_FAKE_NVML_PATH_H
#define CALDERA_TEST_FAKE_NVML_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* The fake library's path into path; false when it is not there (`make` builds it with the GPU
 * tests). */
bool fake_nvml_path(char *path, size_t len);

#endif
