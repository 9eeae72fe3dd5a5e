/* Preparing an attempt in the parent, before the spawn: its command on its own PATH, its directories
 * and log owned by the user it runs as, and where its ssh directory is bound. */
#ifndef CALDERA_RUNTIME_TASK_SETUP_H
#define CALDERA_RUNTIME_TASK_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scheduler/controller/controller.h"

/* argv[0] as execvp would find it, but on the attempt's PATH rather than the server's. Returns 0,
 * or -1 with `exec: "x": executable file not found in $PATH` (or the access error) in why. */
int task_resolve_command(const char *cmd, char *const *envp, char *out, size_t len, char *why, size_t why_len);
/* Creates the work and log directories, given to spec's uid/gid when chown_to_user, and checks
 * that chdir_to exists. Returns 0, or -1 with a sentence in why. */
int task_prepare_dirs(const struct attempt_spec *spec, bool chown_to_user, char *why, size_t why_len);
/* The Job's volumes: each directory made when missing (given to spec's uid/gid when chown_to_user
 * and it was made now: a shared claim keeps the owner its first user gave it); binds[] gets, for each
 * volume whose mount path is a directory on the node, its index (how many in *nbinds). Returns 0, or
 * -1 with a sentence in why. */
int task_prepare_volumes(const struct attempt_spec *spec, bool chown_to_user, int *binds, int *nbinds, char *why,
                         size_t why_len);
/* Opens the attempt's log for appending (created 0644, given to the user when chown_to_user).
 * Returns a close-on-exec descriptor >= 3, or -1 with a sentence in why. */
int task_open_log(const struct attempt_spec *spec, bool chown_to_user, char *why, size_t why_len);
/* The ~/.ssh of the user the task runs as (uid -1: the server's; /root/.ssh for root), created
 * when missing. Returns 0, or -1 with a sentence in why. */
int task_ssh_target(int32_t uid, int32_t gid, char *out, size_t len, char *why, size_t why_len);

#endif
