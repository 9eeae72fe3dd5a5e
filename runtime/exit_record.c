/* The supervisors' exits file read back: the line caldera-shim appended for one attempt (how it
 * ended, when), for adopted attempts and for a task the supervisor could not execute. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "runtime/exit_record.h"

#define EXITS_FILE_MAX (64u << 20)

/* The last line of the exits file that starts with prefix ("<pod> <attempt> <pid> "), parsed into
 * ex (an exec failure as exec_errno with exit code 127). Returns true when there is one. */
static bool read_exit_line(const char *path, const char *prefix, struct replica_exit *ex)
{
    char *data = NULL;
    size_t len = 0;
    if (read_file(path, EXITS_FILE_MAX, &data, &len) != 0)
        return false;
    size_t plen = strlen(prefix);
    const char *found = NULL;
    for (const char *line = data; line && *line;) {
        if (strncmp(line, prefix, plen) == 0)
            found = line + plen;
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : NULL;
    }
    char what[16];
    int value;
    long long ms = 0;
    bool ok = found && sscanf(found, "%15s %d %lld", what, &value, &ms) >= 2;
    if (ok) {
        if (strcmp(what, "signal") == 0) {
            ex->signal = value;
            ex->exit_code = 128 + value;
        } else if (strcmp(what, "exit") == 0) {
            ex->exit_code = value;
        } else if (strcmp(what, "exec-error") == 0) {
            ex->exit_code = 127;
            ex->exec_errno = value;
        } else {
            ok = false;
        }
        if (ok && ms > 0)
            ex->end_ms = ms;
    }
    free(data);
    return ok;
}

char *process_exit_record(const char *exits_path, const char *pod, uint32_t attempt, pid_t pid)
{
    char *rec = NULL;
    if (asprintf(&rec, "%s\n%s %u %d ", exits_path ? exits_path : "", pod, attempt, (int)pid) < 0)
        return NULL;
    return rec;
}

bool process_read_exit_record(const char *record, struct replica_exit *ex)
{
    const char *nl = strchr(record, '\n');
    char path[4200];
    snprintf(path, sizeof path, "%.*s", nl ? (int)(nl - record) : 0, record);
    if (nl && path[0] && read_exit_line(path, nl + 1, ex))
        return true;
    ex->unknown = true;
    ex->exit_code = -1;
    return false;
}

void process_read_exec_error(const char *record, struct replica_exit *ex)
{
    if (!record || ex->exit_code != 127 || ex->signal)
        return;
    struct replica_exit line = {0};
    if (process_read_exit_record(record, &line) && line.exec_errno)
        ex->exec_errno = line.exec_errno;
}
