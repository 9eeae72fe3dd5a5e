/* `promtool check metrics` on an exposition, for the tests that lint /metrics (where promtool is
 * installed: Debian's prometheus package). */
#include "tests/lib/promtool.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int promtool_check(const char *text)
{
    if (system("command -v promtool >/dev/null 2>&1") != 0)
        return -1;
    char path[] = "/tmp/caldera-metrics-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return 127;
    fputs(text, f);
    fclose(f);
    char cmd[256], out[512];
    snprintf(cmd, sizeof cmd, "promtool check metrics < %s 2>&1", path);
    FILE *p = popen(cmd, "r");
    bool only_dcgm_names = true;
    while (p && fgets(out, sizeof out, p)) {
        fputs(out, stderr);
        if (strncmp(out, "DCGM_FI_DEV_", 12) != 0 || !strstr(out, "label names should be written in 'snake_case'"))
            only_dcgm_names = false;
    }
    int rc = p ? pclose(p) : -1;
    unlink(path);
    rc = rc == -1 ? 127 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
    return rc != 0 && only_dcgm_names ? 0 : rc;
}
