/* What /proc says of a process the tests started (a server, a shell): a field of its status in KiB
 * (VmRSS, VmHWM), how many threads it runs and how many descriptors it holds. */
#ifndef CALDERA_TEST_PROC_STATS_H
#define CALDERA_TEST_PROC_STATS_H

#include <sys/types.h>

/* The field ("VmRSS", "VmHWM") of /proc/<pid>/status in KiB, -1 when unreadable. */
long proc_status_kib(pid_t pid, const char *field);
/* The number of its threads (/proc/<pid>/status Threads), -1 when unreadable. */
int proc_threads(pid_t pid);
/* The number of open descriptors of pid (/proc/<pid>/fd), 0 when unreadable. */
int proc_open_fds(pid_t pid);

#endif
