/* Where podman is, how GPUs reach a container, and the cleaner that removes ended OCI attempts'
 * containers and cgroups (oci_runtime.h). */
#include "runtime/oci_runtime.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/strv.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/oci_args.h"
#include "runtime/task_setup.h"

#define FALLBACK_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define CGROUP_FS "/sys/fs/cgroup"
#define REMOVE_TRIES 6 /* podman rm, 100 ms to 3.2 s apart */

static char podman_path[4096];
static char unavailable[512];

const char *oci_runtime_configure(const char *path)
{
    const char *server_path = getenv("PATH");
    char env_path[8192];
    snprintf(env_path, sizeof env_path, "PATH=%s", server_path && server_path[0] ? server_path : FALLBACK_PATH);
    char *envp[] = {env_path, NULL};
    char why[512];
    podman_path[0] = unavailable[0] = '\0';
    if (task_resolve_command(path ? path : "podman", envp, podman_path, sizeof podman_path, why, sizeof why) != 0) {
        podman_path[0] = '\0';
        if (path)
            snprintf(unavailable, sizeof unavailable, "podman is not installed (--oci-runtime %s: %s)", path,
                     strerror(errno ? errno : ENOENT));
        else
            snprintf(unavailable, sizeof unavailable, "podman is not installed");
        return unavailable;
    }
    return NULL;
}

const char *oci_runtime_path(void) { return podman_path[0] ? podman_path : NULL; }

/* Whether a CDI spec of the machine's names kind ("nvidia.com/gpu": nvidia-ctk cdi generate). */
static bool cdi_spec_names(const char *kind)
{
    static const char *const dirs[] = {"/etc/cdi", "/var/run/cdi", NULL};
    bool found = false;
    for (int i = 0; dirs[i] && !found; i++) {
        DIR *d = opendir(dirs[i]);
        struct dirent *e;
        while (d && !found && (e = readdir(d))) {
            const char *dot = strrchr(e->d_name, '.');
            if (e->d_name[0] == '.' || !dot || (strcmp(dot, ".json") != 0 && strcmp(dot, ".yaml") != 0))
                continue;
            char file[4096], buf[1 << 16];
            snprintf(file, sizeof file, "%s/%s", dirs[i], e->d_name);
            int fd = open(file, O_RDONLY | O_CLOEXEC);
            ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
            if (fd >= 0)
                close(fd);
            if (n > 0) {
                buf[n] = '\0';
                found = strstr(buf, kind) != NULL;
            }
        }
        if (d)
            closedir(d);
    }
    return found;
}

int oci_gpu_devices(int n, const int32_t *index, const char *const *uuid, char ***devices, bool *cdi)
{
    *devices = NULL;
    *cdi = n > 0 && cdi_spec_names("nvidia.com/gpu");
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (*cdi && uuid && uuid[i] && uuid[i][0])
            rc |= strv_pushf(devices, "nvidia.com/gpu=%s", uuid[i]);
        else if (*cdi)
            rc |= strv_pushf(devices, "nvidia.com/gpu=%d", (int)index[i]);
        else
            rc |= strv_pushf(devices, "/dev/nvidia%d", (int)index[i]);
    }
    static const char *const control[] = {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", NULL};
    for (int i = 0; n > 0 && !*cdi && control[i]; i++)
        if (access(control[i], F_OK) == 0)
            rc |= strv_push(devices, control[i]);
    if (rc != 0) {
        strv_free(*devices);
        *devices = NULL;
        return -1;
    }
    return 0;
}

bool oci_cgroup_is_container(const char *cgroup_name)
{
    const struct cgroup_layout *L = cgroup_layout();
    if (L->mode == CGROUP_NONE || L->count == 0 || !cgroup_name[0])
        return false;
    char dir[CGROUP_PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/%s/" OCI_SUPERVISOR_CGROUP, L->h[0].parent, cgroup_name);
    return access(dir, F_OK) == 0;
}

/* ---- the cleaner ---- */

struct removal {
    struct removal *next;
    char container[CGROUP_NAME_MAX + 16];
    char cgroup[CGROUP_NAME_MAX];
    char env_file[4200];
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER, idle = PTHREAD_COND_INITIALIZER;
static struct removal *head, *tail;
static bool busy, started;

/* podman rm -f: stops what is left of the container (nothing, after the cgroup's SIGKILL) and
 * forgets it; a container --rm removed already is no error (--ignore). Returns its exit status. */
static int podman_rm(const char *podman, const char *container)
{
    char *argv[] = {(char *)podman,
                    "--cgroup-manager=cgroupfs",
                    "--events-backend=file",
                    "rm",
                    "--force",
                    "--ignore",
                    "--time=0",
                    (char *)container,
                    NULL};
    char *envp[] = {"PATH=" FALLBACK_PATH, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int err = posix_spawn(&pid, podman, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    if (err != 0) {
        log_warn("cannot run %s rm for container %s: %s", podman, container, strerror(err));
        return -1;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A container whose podman client was killed mid-stop stays "Stopping" a moment, and rm refuses it
 * (exit 2) until podman sees its processes gone: asked again, a few times, waiting longer each. */
static void podman_remove(const char *container)
{
    const char *podman = oci_runtime_path();
    if (!podman)
        return;
    int status = -1;
    for (int attempt = 0, wait_ms = 100; attempt < REMOVE_TRIES; attempt++, wait_ms *= 2) {
        if ((status = podman_rm(podman, container)) == 0)
            return;
        struct timespec pause = {wait_ms / 1000, (long)(wait_ms % 1000) * 1000000L};
        nanosleep(&pause, NULL);
    }
    log_warn("%s rm --force %s failed (exit status %d, %d tries): the container may be left", podman, container, status,
             REMOVE_TRIES);
}

/* rmdir below dir, children first (cgroup directories: only empty ones go). */
static void rmdir_tree(const char *dir, int depth)
{
    DIR *d = depth < 8 ? opendir(dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_type == DT_DIR && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            char sub[CGROUP_PATH_MAX * 2];
            snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
            rmdir_tree(sub, depth + 1);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* On cgroup v1 podman (runc, conmon) makes caldera/<name> in every hierarchy, Caldera's or not. */
static void remove_v1_leftovers(const char *cgroup)
{
    if (cgroup_layout()->mode != CGROUP_V1)
        return;
    DIR *d = opendir(CGROUP_FS);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_type == DT_DIR && e->d_name[0] != '.') {
            char dir[CGROUP_PATH_MAX * 2];
            snprintf(dir, sizeof dir, CGROUP_FS "/%s/caldera/%s", e->d_name, cgroup);
            if (access(dir, F_OK) == 0)
                rmdir_tree(dir, 0);
        }
    if (d)
        closedir(d);
}

static void *cleaner_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    for (;;) {
        while (!head) {
            busy = false;
            pthread_cond_broadcast(&idle);
            pthread_cond_wait(&work, &mu);
        }
        struct removal *r = head;
        head = r->next;
        if (!head)
            tail = NULL;
        busy = true;
        pthread_mutex_unlock(&mu);
        if (r->cgroup[0])
            cgroup_signal(r->cgroup, SIGKILL, 0);
        podman_remove(r->container);
        if (r->cgroup[0]) {
            cgroup_remove(r->cgroup);
            remove_v1_leftovers(r->cgroup);
        }
        if (r->env_file[0])
            unlink(r->env_file);
        free(r);
        pthread_mutex_lock(&mu);
    }
    return NULL;
}

void oci_remove_async(const char *container, const char *cgroup_name, const char *env_file)
{
    struct removal *r = calloc(1, sizeof *r);
    if (!r) {
        log_warn("out of memory: cgroup %s is removed without its container", cgroup_name ? cgroup_name : "");
        if (cgroup_name && cgroup_name[0])
            cgroup_remove_async(cgroup_name);
        return;
    }
    snprintf(r->cgroup, sizeof r->cgroup, "%s", cgroup_name ? cgroup_name : "");
    if (container)
        snprintf(r->container, sizeof r->container, "%s", container);
    else
        oci_container_name(r->cgroup, r->container, sizeof r->container);
    snprintf(r->env_file, sizeof r->env_file, "%s", env_file ? env_file : "");
    pthread_mutex_lock(&mu);
    if (!started) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        started = pthread_create(&t, &attr, cleaner_main, NULL) == 0;
        pthread_attr_destroy(&attr);
    }
    if (!started) {
        pthread_mutex_unlock(&mu);
        log_warn("cannot start the OCI cleaner: container %s is left", r->container);
        if (r->cgroup[0])
            cgroup_remove_async(r->cgroup);
        free(r);
        return;
    }
    if (tail)
        tail->next = r;
    else
        head = r;
    tail = r;
    busy = true;
    pthread_cond_signal(&work);
    pthread_mutex_unlock(&mu);
}

void oci_or_cgroup_remove_async(const char *cgroup_name)
{
    if (oci_cgroup_is_container(cgroup_name))
        oci_remove_async(NULL, cgroup_name, NULL);
    else
        cgroup_remove_async(cgroup_name);
}

int oci_cleanup_flush(int timeout_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    int rc = 0;
    pthread_mutex_lock(&mu);
    while (busy && rc == 0)
        rc = pthread_cond_timedwait(&idle, &mu, &until) == 0 ? 0 : -1;
    pthread_mutex_unlock(&mu);
    return rc;
}
