/* What /proc says of a process the tests started: a field of /proc/<pid>/status in KiB, its
 * threads, and the count of /proc/<pid>/fd. */
#include "tests/lib/proc_stats.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number after "field:" in /proc/<pid>/status, -1 when unreadable. */
static long status_number(pid_t pid, const char *field)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long value = -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0 && line[n] == ':') {
            value = strtol(line + n + 1, NULL, 10);
            break;
        }
    fclose(f);
    return value;
}

long proc_status_kib(pid_t pid, const char *field) { return status_number(pid, field); }

int proc_threads(pid_t pid) { return (int)status_number(pid, "Threads"); }

int proc_open_fds(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}
