/* Whether a companion's program is installed: its name resolved against a PATH and Caldera's own bin
 * dir (where caldera-terminal lives) to an executable file, without running anything. */
#ifndef CALDERA_COMPANION_PROGRAM_H
#define CALDERA_COMPANION_PROGRAM_H

#include <stddef.h>

/* program: an absolute path (checked as it is) or a bare name, looked up first in extra_dir (NULL:
 * none), then in each directory of path_env (NULL: "/usr/local/bin:/usr/bin:/bin"; empty and relative
 * entries, which would mean the server's current directory, are skipped). A match is a regular file with an
 * execute bit that access(X_OK) allows. Returns 0 with the path in out, or -1 with why:
 * "not installed: jupyter-notebook" (the companion is then Failed, COMPANION_NOT_INSTALLED), or
 * "program path too long: ..." when a candidate does not fit in out. No shell, no exec. */
int companion_program_resolve(const char *program, const char *path_env, const char *extra_dir, char *out,
                              size_t out_len, char *why, size_t why_len);

#endif
