/* What the machine allows for a task the way Caldera promises to run one: caldera-shim started in a
 * cgroup of its own in every hierarchy (made before, removed after), running /bin/true, reaped. */
#ifndef CALDERA_SUPERVISED_LIMIT_H
#define CALDERA_SUPERVISED_LIMIT_H

/* As spawn_limit_per_s (tests/lib/spawn_limit.h), each spawn being: cgroup_create, a vforked child
 * that joins it and execs $CALDERA_SHIM (else bin/caldera-shim) running /bin/true, waitpid, and
 * cgroup_remove. Returns the tasks a second (median of rounds), or -1 when one failed (no shim, no
 * cgroups: the caller says so). */
double supervised_limit_per_s(int threads, double seconds, int rounds);

#endif
