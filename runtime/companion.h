/* Companion processes: a program started beside a task (Jupyter, a web terminal...), in the task's
 * cgroup, as the task's user, in a session of its own, its output into a log of the server's. The
 * controller passes a plain spec; nothing here knows jobs. Also the pieces a companion needs: a
 * loopback port, a secret token and its file. */
#ifndef CALDERA_RUNTIME_COMPANION_H
#define CALDERA_RUNTIME_COMPANION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define COMPANION_TOKEN_LEN 64 /* 32 random bytes in hex */

struct companion_spec {
    const char *program; /* the resolved executable */
    char *const *argv;
    char *const *envp;
    const char *chdir_to;    /* the task's working directory */
    const char *log_path;    /* absolute; its directory is made (the server's, 0700) when missing */
    const char *cgroup_name; /* the task attempt's cgroup below caldera/, "" or NULL: none */
    int32_t uid, gid;        /* -1: the server's */
};

struct companion_proc {
    pid_t pid; /* also its process group and session */
    int pidfd; /* -1 when not watched (found again after a restart) */
    int64_t start_ticks;
};

/* Starts the companion. Returns 0, or -1 with a sentence in why. */
int companion_spawn(const struct companion_spec *spec, struct companion_proc *out, char *why, size_t why_len);
/* Signals the companion's process group, only when pid still is the process that started at
 * start_ticks (a recycled pid is never signalled). Returns true when it was signalled. */
bool companion_signal(const struct companion_proc *p, int sig);
/* Whether the companion has exited (reaped when it is this server's child): *status gets the exit
 * code or 128 + signal (-1 when unknown). A process with no pidfd is checked by pid and start time. */
bool companion_exited(struct companion_proc *p, int *status);
/* Whether the companion's process is gone, without reaping it (companion_exited does). */
bool companion_gone(const struct companion_proc *p);
/* Closes the pidfd. */
void companion_release(struct companion_proc *p);

/* 32 random bytes (getrandom) in lower-case hex. Returns 0 or -1. */
int companion_token_new(char out[COMPANION_TOKEN_LEN + 1]);
/* Writes token into path (a new file, 0600, given to uid/gid when >= 0, never through a link).
 * Returns 0, or -1 with a sentence in why. */
int companion_token_write(const char *path, const char *token, int32_t uid, int32_t gid, char *why, size_t why_len);

/* A port in [first, last] that taken() does not claim and that a bind on 127.0.0.1 accepts now, searched
 * from *next (kept for the next call); -1 when none. */
int companion_port_alloc(int first, int last, int *next, bool (*taken)(void *ctx, int port), void *ctx);

#endif
