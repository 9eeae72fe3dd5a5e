/* `promtool check metrics` on an exposition, for the tests that lint /metrics (where promtool is
 * installed: Debian's prometheus package). */
#include "tests/lib/promtool.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs `promtool check metrics` on the text when promtool is installed: its exit status, or -1 when
 * it is not (the caller skips). */
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
    char cmd[256];
    snprintf(cmd, sizeof cmd, "promtool check metrics < %s", path);
    int rc = system(cmd);
    unlink(path);
    return rc == -1 ? 127 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}
