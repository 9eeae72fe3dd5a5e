/* A terminal's processes: its shell started on a new pty (forkpty) in a directory, and the signals
 * that end every process of the shell's session, found through /proc. */
#ifndef CALDERA_TERMINAL_PROCS_H
#define CALDERA_TERMINAL_PROCS_H

#include <sys/types.h>

/* Starts shell on a new pty of cols x rows in cwd ("" keeps ours) with TERM=xterm-256color, as the
 * leader of a new session. Returns the shell's pid with *master the pty's non-blocking, close-on-exec
 * master side, or -1 with the reason in err. */
pid_t procs_spawn_shell(const char *shell, const char *cwd, int cols, int rows, int *master, char *err, size_t errlen);
/* Sends sig to process group sid and to every process whose session is sid (the shell's jobs that
 * job control moved to groups of their own). Returns how many processes of the session were found. */
int procs_signal_session(pid_t sid, int sig);

#endif
