/* Preparing an attempt in the parent, before the spawn: its command on its own PATH, its directories
 * (the job's and its logs the server's, the work directory the task's), its log and exits file opened
 * beneath them, and where its ssh directory is bound. */
#ifndef CALDERA_RUNTIME_TASK_SETUP_H
#define CALDERA_RUNTIME_TASK_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/attempt.h"

#define TASK_TRAVERSE_MODE 0711 /* jobs/<uid>, volumes/<ns>: tasks pass through to their own */
#define TASK_PRIVATE_MODE 0700  /* logs/ (the server's), work/ and each volume (the task's) */
#define TASK_LOG_MODE 0600      /* logs and the exits file: the server's; the task holds a descriptor */

/* The job's directory and its logs/, open: every file of the attempt is opened beneath these. */
struct task_dirs {
    int job_fd, logs_fd;
};

/* argv[0] as execvp would find it, but on the attempt's PATH rather than the server's. Returns 0,
 * or -1 with `exec: "x": executable file not found in $PATH` (or the access error) in why. */
int task_resolve_command(const char *cmd, char *const *envp, char *out, size_t len, char *why, size_t why_len);
/* HOME, USER and LOGNAME of a task run as uid (-1: as the server) into env, as Slurm sets them: a
 * user other than root with a passwd entry gets the home directory the passwd database names (only
 * read: nothing is made or given there), its name as USER and LOGNAME. Root keeps HOME = work_dir
 * (every root task of a machine would otherwise share, and could plant files in, /root), with
 * USER=root; a uid without a passwd entry keeps HOME = work_dir and gets no USER. Returns 0, or -1
 * out of memory. */
int task_user_env(int32_t uid, const char *work_dir, char ***env);
/* Opens the job's directory (the parent of the log's directory; made when missing, the server's, 0711)
 * and its logs/ (the server's, 0700) into dirs, and makes the work directory beside them (0700, given
 * to spec's uid/gid when chown_to_user); no name in them is followed. Whether chdir_to exists is the
 * child's to find, as the task's user. Returns 0, or -1 with a sentence in why (dirs closed). */
int task_prepare_dirs(const struct attempt_spec *spec, bool chown_to_user, struct task_dirs *dirs, char *why,
                      size_t why_len);
void task_dirs_close(struct task_dirs *dirs);
/* The Job's volumes: each directory made when missing in a parent of the server's (0711), 0700 and
 * given to spec's uid/gid when chown_to_user and it was made now (a shared claim keeps the owner its
 * first user gave it); a symbolic link in a volume's place is refused. binds[] gets, for each
 * volume whose mount path is a directory on the node, its index (how many in *nbinds). Returns 0, or
 * -1 with a sentence in why. */
int task_prepare_volumes(const struct attempt_spec *spec, bool chown_to_user, int *binds, int *nbinds, char *why,
                         size_t why_len);
/* Opens the attempt's log beneath dirs->logs_fd for appending: the server's, 0600, one link (a name
 * planted there is replaced, never followed); the task inherits the descriptor, it does not own the
 * file. Returns a close-on-exec descriptor >= 3, or -1 with a sentence in why. */
int task_open_log(const struct attempt_spec *spec, const struct task_dirs *dirs, char *why, size_t why_len);
/* The same for the supervisors' exits file beneath dirs->job_fd. Returns a descriptor >= 3, or -1. */
int task_open_exits(const struct attempt_spec *spec, const struct task_dirs *dirs);
/* The ~/.ssh of the user the task runs as (uid -1: the server's; /root/.ssh for root), created when
 * missing and then given to the user, through the home's descriptor: a symbolic link there is
 * refused. Returns 0, or -1 with a sentence in why. */
int task_ssh_target(int32_t uid, int32_t gid, char *out, size_t len, char *why, size_t why_len);

#endif
