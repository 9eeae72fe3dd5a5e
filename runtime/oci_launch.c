/* An attempt as an OCI container: podman's command line and the container's environment file,
 * prepared in the parent before the supervisor is spawned (oci_launch.h). */
#include "runtime/oci_launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/strv.h"
#include "runtime/oci_args.h"
#include "runtime/oci_runtime.h"

#define PODMAN_PATH "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* The container sees only its own devices, so an index-based CUDA_VISIBLE_DEVICES ("2,5") would name
 * devices it does not have: there they are 0..n-1 (UUIDs stay as they are). */
static int container_env(const struct attempt_spec *spec, char ***env)
{
    *env = strv_dup(spec->envp);
    if (!*env)
        return -1;
    bool uuids = spec->ngpus > 0;
    for (int i = 0; i < spec->ngpus && uuids; i++)
        uuids = spec->gpu_uuid && spec->gpu_uuid[i] && spec->gpu_uuid[i][0];
    if (spec->ngpus == 0 || uuids)
        return 0;
    char list[64 * 4] = "";
    for (int i = 0; i < spec->ngpus && i < 64; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i ? "," : "", i);
    return strv_setenvf(env, "CUDA_VISIBLE_DEVICES=%s", list);
}

/* Written anew (never through a link a task planted: the log directory is the server's anyway). */
static int write_env_file(const char *path, const char *text, char *why, size_t why_len)
{
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    size_t len = strlen(text), done = 0;
    while (fd >= 0 && done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    int err = errno;
    if (fd >= 0)
        close(fd);
    if (fd < 0 || done < len) {
        snprintf(why, why_len, "cannot write the container's environment to %s: %s", path, strerror(err));
        unlink(path);
        return -1;
    }
    return 0;
}

/* The server's own rlimits, as a process task inherits them: podman would otherwise ask for more
 * than a server without CAP_SYS_RESOURCE may give, and cannot give more nproc than it keeps itself. */
static void server_limits(int resource, int64_t cap, int64_t out[2])
{
    struct rlimit rl;
    out[0] = out[1] = -1;
    if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_max == RLIM_INFINITY)
        return;
    out[0] = (int64_t)rl.rlim_cur;
    out[1] = (int64_t)rl.rlim_max;
    if (cap > 0 && out[1] > cap)
        out[1] = cap;
    if (out[0] > out[1])
        out[0] = out[1];
}

int oci_launch_prepare(const struct attempt_spec *spec, const char *cgroup, int64_t pids_max,
                       const struct pod_mounts *mounts, struct oci_launch *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    const char *podman = oci_runtime_path();
    if (!podman) {
        snprintf(why, why_len, "RuntimeClass \"oci\": podman is not installed");
        return -1;
    }
    if (geteuid() != 0) {
        snprintf(why, why_len, "RuntimeClass \"oci\" runs rootful podman: the job server is not root");
        return -1;
    }
    snprintf(out->program, sizeof out->program, "%s", podman);
    out->envp[0] = PODMAN_PATH;
    oci_container_name(cgroup[0]           ? cgroup
                       : spec->cgroup_name ? spec->cgroup_name
                                           : spec->pod,
                       out->name, sizeof out->name);
    snprintf(out->env_file, sizeof out->env_file, "%s.env", spec->log_path);
    char **env = NULL, *text = NULL;
    if (container_env(spec, &env) != 0) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    int rc = oci_env_file_text(env, &text, why, why_len);
    strv_free(env);
    if (rc != 0 || write_env_file(out->env_file, text, why, why_len) != 0) {
        free(text);
        return -1;
    }
    free(text);
    char **devices = NULL;
    bool cdi = false;
    if (oci_gpu_devices(spec->ngpus, spec->gpu_index, spec->gpu_uuid, &devices, &cdi) != 0) {
        snprintf(why, why_len, "out of memory");
        unlink(out->env_file);
        return -1;
    }
    const char *sources[ATTEMPT_VOLUMES_MAX + ATTEMPT_MOUNTS_MAX + 1],
        *targets[ATTEMPT_VOLUMES_MAX + ATTEMPT_MOUNTS_MAX + 1];
    bool read_only[ATTEMPT_VOLUMES_MAX + ATTEMPT_MOUNTS_MAX + 1];
    char tmpfs_text[ATTEMPT_MOUNTS_MAX][4200];
    const char *tmpfs[ATTEMPT_MOUNTS_MAX + 1];
    int nbinds = 0, ntmpfs = 0;
    for (int i = 0; i < spec->nvolumes && i < ATTEMPT_VOLUMES_MAX; i++)
        if (spec->volume_dirs && spec->volume_targets && spec->volume_dirs[i] && spec->volume_targets[i]) {
            sources[nbinds] = spec->volume_dirs[i];
            targets[nbinds] = spec->volume_targets[i];
            read_only[nbinds++] = false;
        }
    if (spec->hosts_file) { /* the job's hosts file, as a process task gets it */
        sources[nbinds] = spec->hosts_file;
        targets[nbinds] = "/etc/hosts";
        read_only[nbinds++] = true;
    }
    for (int i = 0; mounts && i < mounts->count && i < spec->nmounts; i++) { /* the pod's own volumes */
        const struct spawn_mount *m = &mounts->mounts[i];
        if (m->source) {
            sources[nbinds] = m->source;
            targets[nbinds] = spec->mounts[i].target;
            read_only[nbinds++] = m->read_only;
        } else { /* emptyDir medium Memory */
            snprintf(tmpfs_text[ntmpfs], sizeof tmpfs_text[ntmpfs], "%s:rw,nosuid,nodev%s%s%s%s%s%s",
                     spec->mounts[i].target, m->tmpfs_size ? ",size=" : "", m->tmpfs_size ? m->tmpfs_size : "",
                     m->tmpfs_uid ? ",uid=" : "", m->tmpfs_uid ? m->tmpfs_uid : "", m->tmpfs_gid ? ",gid=" : "",
                     m->tmpfs_gid ? m->tmpfs_gid : "");
            if (strchr(spec->mounts[i].target, ':') || strchr(spec->mounts[i].target, ',')) {
                snprintf(why, why_len, "%s: a path holding ':' or ',' cannot be a tmpfs in an OCI container",
                         spec->mounts[i].target);
                strv_free(devices);
                unlink(out->env_file);
                return -1;
            }
            tmpfs[ntmpfs] = tmpfs_text[ntmpfs];
            ntmpfs++;
        }
    }
    tmpfs[ntmpfs] = NULL;
    /* podman reads "source:target:options": a ':' in a path would add options (U chowns the source) */
    for (int i = -1; i < nbinds; i++) {
        const char *src = i < 0 ? spec->work_dir : sources[i], *dst = i < 0 ? spec->work_dir : targets[i];
        if ((src && strchr(src, ':')) || (dst && strchr(dst, ':'))) {
            snprintf(why, why_len, "%s: a path holding ':' cannot be bound into an OCI container",
                     src && strchr(src, ':') ? src : dst);
            strv_free(devices);
            unlink(out->env_file);
            return -1;
        }
    }
    char parent[300];
    snprintf(parent, sizeof parent, "/caldera/%s", cgroup);
    struct oci_run run = {
        .podman = podman,
        .name = out->name,
        .pod = spec->pod,
        .cgroup = cgroup,
        .cgroup_parent = cgroup[0] ? parent : NULL,
        .image = spec->oci_image,
        .work_dir = spec->work_dir,
        .chdir_to = spec->chdir_to,
        .env_file = out->env_file,
        .uid = spec->uid,
        .gid = spec->gid,
        .memory = spec->memory_limit,
        .cpu_milli = spec->cpu_limit_milli,
        .pids_max = pids_max,
        .devices = (const char *const *)devices,
        .nbinds = nbinds,
        .bind_sources = sources,
        .bind_targets = targets,
        .bind_read_only = read_only,
        .tmpfs = tmpfs,
        .argv = spec->argv,
    };
    server_limits(RLIMIT_NOFILE, 0, run.nofile);
    server_limits(RLIMIT_NPROC, OCI_PODMAN_NPROC_MAX, run.nproc);
    rc = oci_args_build(&run, &out->argv);
    strv_free(devices);
    if (rc != 0) {
        snprintf(why, why_len, "out of memory");
        unlink(out->env_file);
        return -1;
    }
    return 0;
}

void oci_launch_release(struct oci_launch *l)
{
    strv_free(l->argv);
    l->argv = NULL;
}

#define LOG_TAIL_BYTES 16384

void oci_read_start_failure(const char *log_path, struct replica_exit *ex)
{
    if (ex->exit_code != 125 && ex->exit_code != 126 && ex->exit_code != 127)
        return;
    int fd = open(log_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    char tail[LOG_TAIL_BYTES + 1];
    off_t end = lseek(fd, 0, SEEK_END);
    off_t from = end > LOG_TAIL_BYTES ? end - LOG_TAIL_BYTES : 0;
    ssize_t n = end >= 0 ? pread(fd, tail, LOG_TAIL_BYTES, from) : -1;
    close(fd);
    if (n <= 0)
        return;
    tail[n] = '\0';
    ex->oci_failure = (uint8_t)oci_start_error(ex->exit_code, tail, ex->oci_message, sizeof ex->oci_message);
}
