/* The fake NVML library's path, found from the running test's own executable: build/fake/ is three
 * folders above build/<flavour>/tests/<kind>/ (tests/lib/fake_nvml_path.h). */
#include "tests/lib/fake_nvml_path.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool fake_nvml_path(char *path, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return false;
    *slash = '\0';
    snprintf(path, len, "%s/../../../fake/libnvidia-ml.so.1", exe);
    return access(path, R_OK) == 0;
}
