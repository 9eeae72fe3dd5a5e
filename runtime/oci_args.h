/* The command line of a task run as an OCI container (runtimeClassName: oci): `podman run` with the
 * attempt's name, image, cgroup parent, limits, user, directories and devices, and the reading of
 * podman's own start errors back from the attempt's log. Pure: no I/O, so unit tests drive it. */
#ifndef CALDERA_RUNTIME_OCI_ARGS_H
#define CALDERA_RUNTIME_OCI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The cgroup below an OCI attempt's own where its supervisor and the podman client run: on cgroup
 * v2 a cgroup with children may hold no process, and the container's cgroup is a child. */
#define OCI_SUPERVISOR_CGROUP "oci-supervisor"
/* Labels every container carries, so that one can be found from its pod and attempt cgroup. */
#define OCI_LABEL_POD "io.caldera.pod"
#define OCI_LABEL_CGROUP "io.caldera.cgroup"
/* The nproc rlimit podman sets for itself (and so for what it starts): a container cannot have more. */
#define OCI_PODMAN_NPROC_MAX 32768

struct oci_run {
    const char *podman;          /* the program */
    const char *name;            /* the container's name (oci_container_name) */
    const char *pod;             /* for the label */
    const char *cgroup;          /* the attempt's cgroup name (the label), "" without cgroups */
    const char *cgroup_parent;   /* "/caldera/<cgroup>": the container's cgroup is made below it; NULL: none */
    const char *image;           /* never pulled: it must be present */
    const char *work_dir;        /* the job's working directory, bound at the same path */
    const char *chdir_to;        /* the container's working directory */
    const char *env_file;        /* the container's environment (oci_env_file_text) */
    int32_t uid, gid;            /* --user when uid >= 0 */
    int64_t memory;              /* bytes, 0: none (swap is not added: --memory-swap the same) */
    int64_t cpu_milli;           /* 0: none */
    int64_t pids_max;            /* 0: no limit of the container's own */
    int64_t nofile[2], nproc[2]; /* soft and hard rlimits the container gets (the server's); < 0: podman's */
    const char *const *devices;  /* --device values (CDI names "nvidia.com/gpu=<id>" or device nodes), NULL-ended */
    int nbinds;                  /* directories bound into the container: source:target[:ro] */
    const char *const *bind_sources, *const *bind_targets;
    const bool *bind_read_only;
    const char *const *tmpfs; /* --tmpfs values ("target:options"), NULL-ended; NULL: none */
    char *const *argv;        /* command ++ args; NULL or empty: the image's own entrypoint and command */
};

/* The argv of `podman run` for r (the strings are copies), NULL-terminated. Returns 0, or -1 when
 * memory ran out. */
int oci_args_build(const struct oci_run *r, char ***argv);

/* The container of an attempt is named after its cgroup name ("<pod>.<attempt>.<job uid>"), which
 * the attempt's records keep: "caldera-<pod>.<attempt>.<job uid>". */
void oci_container_name(const char *cgroup_name, char *out, size_t len);

/* The container's environment as a podman --env-file: one NAME=value a line. A value holding a
 * newline cannot be written so: -1 with a sentence in why. Returns 0 and *text (malloc'd). */
int oci_env_file_text(char *const *envp, char **text, char *why, size_t why_len);

/* What podman said when it could not start the container, from the end of the attempt's log (CRI
 * records, as the supervisor writes them): podman exits 125 (its own error), 126 (the command could
 * not be invoked) or 127 (not found) after an "Error: ..." line on stderr. */
enum oci_start_failure {
    OCI_STARTED,         /* the container ran: the exit code is the command's */
    OCI_START_ERROR,     /* podman could not create or start it */
    OCI_IMAGE_NOT_FOUND, /* the image is not present here (and is never pulled) */
};
enum oci_start_failure oci_start_error(int exit_code, const char *log_tail, char *message, size_t len);

#endif
