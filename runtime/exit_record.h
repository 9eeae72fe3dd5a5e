/* The exits file's record of one supervised attempt: where its line will be, and that line read
 * back (how the attempt ended). */
#ifndef CALDERA_RUNTIME_EXIT_RECORD_H
#define CALDERA_RUNTIME_EXIT_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "runtime/attempt.h"

/* An exit record for process_start and process_adopt (malloc'd), NULL when out of memory. Reading
 * one back fills ex (exit code or signal, end time; exec_errno for an exec failure) and returns
 * true, or sets ex->unknown (exit_code -1) when the file says nothing of it (exit_record.c). */
char *process_exit_record(const char *exits_path, const char *pod, uint32_t attempt, pid_t pid);
bool process_read_exit_record(const char *record, struct replica_exit *ex);
/* A supervised process (its exit record, or NULL) that exited 127: ex->exec_errno from its exits
 * file when the task could not be executed. */
void process_read_exec_error(const char *record, struct replica_exit *ex);

#endif
