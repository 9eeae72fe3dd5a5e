/* What ran on this machine at one moment: the live process ids and the attempts' cgroups, read in one
 * scan each, so that a restart finds its thousands of lost attempts gone without a lookup for each. */
#ifndef CALDERA_RUNTIME_CENSUS_H
#define CALDERA_RUNTIME_CENSUS_H

#include <stdbool.h>
#include <sys/types.h>

struct process_census;

/* Scans /proc and the first hierarchy's caldera/ parent. NULL when memory runs out; a scan that
 * cannot be read leaves its half unknown (every question about it answers "maybe"). */
struct process_census *process_census_take(void);
void process_census_free(struct process_census *c);
/* False only when the census knows the pid was not running when it was taken (a process that has
 * ended never comes back, so its attempt is not there to adopt); true when it ran, or is unknown. */
bool process_census_may_run(const struct process_census *c, pid_t pid);
/* False only when the census knows no cgroup of that name (directly below caldera/) existed when it was
 * taken; attempts' cgroups are made by attempts' starts, and none starts before recovery is over. */
bool process_census_may_have_cgroup(const struct process_census *c, const char *name);

#endif
