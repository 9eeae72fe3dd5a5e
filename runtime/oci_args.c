/* `podman run` for an attempt, its --env-file, its container's name, and podman's start errors
 * read back from the log (oci_args.h). */
#include "runtime/oci_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strv.h"

/* A JSON array of one string: --entrypoint takes one that way, whatever the string holds. */
static char *json_one_string(const char *s)
{
    size_t cap = strlen(s) * 6 + 5, at = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    out[at++] = '[';
    out[at++] = '"';
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') {
            out[at++] = '\\';
            out[at++] = (char)*c;
        } else if (*c < 0x20) {
            at += (size_t)snprintf(out + at, cap - at, "\\u%04x", *c);
        } else {
            out[at++] = (char)*c;
        }
    }
    out[at++] = '"';
    out[at++] = ']';
    out[at] = '\0';
    return out;
}

static int push_limits(char ***v, const struct oci_run *r)
{
    int rc = 0;
    if (r->memory > 0) /* no swap beyond the limit, as kubelet's containers */
        rc |= strv_pushf(v, "--memory=%lld", (long long)r->memory) |
              strv_pushf(v, "--memory-swap=%lld", (long long)r->memory);
    if (r->cpu_milli > 0)
        rc |= strv_pushf(v, "--cpus=%lld.%03lld", (long long)(r->cpu_milli / 1000), (long long)(r->cpu_milli % 1000));
    rc |= strv_pushf(v, "--pids-limit=%lld", r->pids_max > 0 ? (long long)r->pids_max : -1LL);
    if (r->nofile[0] >= 0 && r->nofile[1] >= 0)
        rc |= strv_pushf(v, "--ulimit=nofile=%lld:%lld", (long long)r->nofile[0], (long long)r->nofile[1]);
    if (r->nproc[0] >= 0 && r->nproc[1] >= 0)
        rc |= strv_pushf(v, "--ulimit=nproc=%lld:%lld", (long long)r->nproc[0], (long long)r->nproc[1]);
    return rc;
}

int oci_args_build(const struct oci_run *r, char ***argv)
{
    char **v = NULL;
    /* cgroupfs: the container's cgroup is a directory below the attempt's, whatever manages the rest
     * of the machine; events to a file: no journald or systemd needed. */
    int rc = strv_push(&v, r->podman) | strv_push(&v, "--cgroup-manager=cgroupfs") |
             strv_push(&v, "--events-backend=file") | strv_push(&v, "run") | strv_push(&v, "--rm") |
             strv_push(&v, "--pull=never") | strv_pushf(&v, "--name=%s", r->name) |
             strv_pushf(&v, "--label=" OCI_LABEL_POD "=%s", r->pod ? r->pod : "") |
             strv_pushf(&v, "--label=" OCI_LABEL_CGROUP "=%s", r->cgroup ? r->cgroup : "") |
             strv_push(&v, "--network=host") |
             /* the container's stdout and stderr are the supervisor's pipes themselves */
             strv_push(&v, "--log-driver=passthrough");
    if (r->cgroup_parent)
        rc |= strv_pushf(&v, "--cgroup-parent=%s", r->cgroup_parent);
    rc |= push_limits(&v, r);
    if (r->uid > 0) /* a set-user-id program of the image makes no one root */
        rc |= strv_push(&v, "--security-opt=no-new-privileges");
    if (r->uid >= 0)
        rc |= r->gid >= 0 ? strv_pushf(&v, "--user=%d:%d", (int)r->uid, (int)r->gid)
                          : strv_pushf(&v, "--user=%d", (int)r->uid);
    if (r->work_dir)
        rc |= strv_pushf(&v, "--volume=%s:%s", r->work_dir, r->work_dir);
    for (int i = 0; i < r->nbinds; i++)
        rc |= strv_pushf(&v, "--volume=%s:%s%s", r->bind_sources[i], r->bind_targets[i],
                         r->bind_read_only && r->bind_read_only[i] ? ":ro" : "");
    if (r->chdir_to)
        rc |= strv_pushf(&v, "--workdir=%s", r->chdir_to);
    if (r->env_file)
        rc |= strv_pushf(&v, "--env-file=%s", r->env_file);
    for (size_t i = 0; r->devices && r->devices[i]; i++)
        rc |= strv_pushf(&v, "--device=%s", r->devices[i]);
    for (size_t i = 0; r->tmpfs && r->tmpfs[i]; i++)
        rc |= strv_pushf(&v, "--tmpfs=%s", r->tmpfs[i]);
    bool command = r->argv && r->argv[0];
    if (command) {
        char *entry = json_one_string(r->argv[0]);
        rc |= entry ? strv_pushf(&v, "--entrypoint=%s", entry) : -1;
        free(entry);
    }
    rc |= strv_push(&v, "--") | strv_push(&v, r->image); /* an image named "-x" is not an option */
    for (size_t i = 1; command && r->argv[i]; i++)
        rc |= strv_push(&v, r->argv[i]);
    if (rc != 0) {
        strv_free(v);
        return -1;
    }
    *argv = v;
    return 0;
}

void oci_container_name(const char *cgroup_name, char *out, size_t len)
{
    snprintf(out, len, "caldera-%s", cgroup_name);
}

int oci_env_file_text(char *const *envp, char **text, char *why, size_t why_len)
{
    size_t total = 1;
    for (size_t i = 0; envp && envp[i]; i++) {
        if (strchr(envp[i], '\n')) {
            snprintf(why, why_len, "env %.*s: a value holding a newline cannot be passed to an OCI container",
                     (int)strcspn(envp[i], "="), envp[i]);
            return -1;
        }
        total += strlen(envp[i]) + 1;
    }
    char *out = malloc(total), *at = out;
    if (!out) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    for (size_t i = 0; envp && envp[i]; i++) {
        size_t n = strlen(envp[i]);
        memcpy(at, envp[i], n);
        at[n] = '\n';
        at += n + 1;
    }
    *at = '\0';
    *text = out;
    return 0;
}

/* The last "<time> stderr F Error: ..." record of the tail: podman's last word. */
static const char *last_error_record(const char *tail, size_t *n)
{
    const char *found = NULL;
    for (const char *p = tail; (p = strstr(p, " stderr ")); p++) {
        const char *line = p + 8;
        if ((line[0] == 'F' || line[0] == 'P') && strncmp(line + 1, " Error: ", 8) == 0)
            found = line + 2;
    }
    if (found)
        *n = strcspn(found, "\n");
    return found;
}

enum oci_start_failure oci_start_error(int exit_code, const char *log_tail, char *message, size_t len)
{
    if (len)
        message[0] = '\0';
    if ((exit_code != 125 && exit_code != 126 && exit_code != 127) || !log_tail)
        return OCI_STARTED;
    size_t n = 0;
    const char *said = last_error_record(log_tail, &n);
    if (!said)
        return OCI_STARTED; /* the command's own exit code */
    snprintf(message, len, "%.*s", (int)n, said);
    bool missing = exit_code == 125 && (strstr(message, "image not known") || strstr(message, "no such image"));
    return missing ? OCI_IMAGE_NOT_FOUND : OCI_START_ERROR;
}
