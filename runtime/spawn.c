/* The spawner. The child shares the server's memory until it execs (CLONE_VM, as posix_spawn), so it
 * is written to touch nothing of the server's state: syscall() traps only, no allocation, no locks. */
#include "runtime/spawn.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* 32-bit ids: on i386/arm the plain calls take 16-bit ones. */
#ifdef SYS_setgroups32
#define SYS_SETGROUPS SYS_setgroups32
#define SYS_SETRESGID SYS_setresgid32
#define SYS_SETRESUID SYS_setresuid32
#else
#define SYS_SETGROUPS SYS_setgroups
#define SYS_SETRESGID SYS_setresgid
#define SYS_SETRESUID SYS_setresuid
#endif

#define SIGSET_BYTES ((_NSIG - 1) / 8) /* the kernel's sigset_t, not glibc's 128-byte one */
#define CHILD_STACK_SIZE 32768

/* What the child may do, and why:
 *  - It runs on the parent's memory while the calling thread sleeps in clone() (CLONE_VFORK) and
 *    the server's other threads keep running. So: no malloc, no stdio, no locks, nothing that
 *    writes memory the server uses, except its own stack and `struct child_frame`.
 *  - Syscalls go through syscall(), a plain trap. Its errno lands in the sleeping thread's TLS
 *    (the child has no TLS of its own); that thread reads errno only when clone() itself failed.
 *  - glibc's setuid/setgid/setgroups would signal every thread of the *server* to change its ids
 *    too; the raw syscalls change the calling task only, which here is the child alone.
 *  - _exit is intercepted by ASan (it may run the leak checker): the child leaves by exit_group.
 *  - It is not instrumented: ASan/UBSan code could report, allocate or touch shadow state that
 *    belongs to the parent; nor may the compiler turn its zeroing into a memset call, so the
 *    zero blocks it passes to the kernel are static constants.
 *  - Signals are blocked from before clone() until the child has reset every handler to the
 *    default, so none of the server's handlers can ever run in it.
 *  - Under ThreadSanitizer (make tsan) clone() is libc's own: TSan's interceptor treats every clone
 *    as a fork and resets its state in the child, which here is the server's memory (its mutexes'
 *    clocks: false races; "multi-threaded fork": the next thread the server starts dies). */
#define CHILD_CODE __attribute__((noinline, no_sanitize("address", "undefined", "thread")))

#ifdef __SANITIZE_THREAD__
#include <dlfcn.h>
typedef int clone_fn(int (*)(void *), void *, int, void *, ...);
#include <pthread.h>
static clone_fn *libc_clone_fn;
static void find_libc_clone(void)
{
    void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    libc_clone_fn = libc ? (clone_fn *)dlsym(libc, "clone") : NULL;
}
/* libc's clone, not the interceptor of the same name (looked up once, by whichever spawner is first). */
static clone_fn *libc_clone(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find_libc_clone);
    return libc_clone_fn ? libc_clone_fn : clone;
}
#define clone libc_clone()
#endif

struct child_frame {
    const struct spawn_request *req;
    bool born_in_cgroup;           /* clone3 put it into req->cgroup_dir: nothing to join */
    volatile int step, index, err; /* written by a failing child, read by the parent once it resumes */
};

#if defined(__x86_64__)
/* clone3 (Linux 5.7+) with CLONE_INTO_CGROUP: the child is born in its cgroup (cgroup v2), so it
 * never writes cgroup.procs, which takes the kernel's cgroup_mutex and, for writing, the rwsem every
 * fork on the machine reads: with several spawners, that write serialised them. glibc keeps its
 * clone3 private, so this is the same few instructions: the child starts on the new stack and
 * calls fn(arg), which never returns (exec or exit_group). Returns the pid, or -errno. */
struct clone3_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};
long caldera_clone3(struct clone3_args *args, size_t size, int (*fn)(void *), void *arg);
__asm__(
    ".text\n"
    ".globl caldera_clone3\n"
    ".hidden caldera_clone3\n"
    ".type caldera_clone3,@function\n"
    "caldera_clone3:\n"
    "    mov %rdx, %r8\n" /* fn and arg survive the syscall in the child's copy of the registers */
    "    mov %rcx, %r9\n"
    "    mov $435, %eax\n" /* SYS_clone3 */
    "    syscall\n"
    "    test %rax, %rax\n"
    "    jnz 1f\n"
    "    xor %ebp, %ebp\n"
    "    mov %r9, %rdi\n"
    "    call *%r8\n"
    "    mov %eax, %edi\n"
    "    mov $231, %eax\n" /* exit_group */
    "    syscall\n"
    "    hlt\n"
    "1:  ret\n"
    ".size caldera_clone3, .-caldera_clone3\n");
#define CLONE3_INTO_CGROUP 0x200000000ULL
#define HAVE_CLONE3 1
#endif

/* SIG_DFL, no flags, empty mask: all zeroes in every architecture's struct k_sigaction. */
static const unsigned long default_action[8];
static const unsigned long empty_mask[4];

CHILD_CODE __attribute__((noreturn)) static void child_fail(struct child_frame *f, enum spawn_step step, int index)
{
    f->err = errno;
    f->index = index;
    f->step = (int)step;
    syscall(SYS_exit_group, 127);
    __builtin_unreachable();
}

CHILD_CODE static long bind_read_only(const char *source, const char *target)
{
    if (syscall(SYS_mount, source, target, 0, MS_BIND, 0) != 0)
        return -1;
    return syscall(SYS_mount, 0, target, 0, MS_BIND | MS_REMOUNT | MS_RDONLY, 0);
}

/* The mount point, one name at a time from the child's own root, never through a symbolic link
 * (O_NOFOLLOW; the last name is checked, since O_PATH opens a link itself). -1 with errno. */
CHILD_CODE static long child_open_target(const struct spawn_mount *m)
{
    long fd = syscall(SYS_openat, AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    const char *name = m->target_names;
    for (int i = 0; i < m->ntarget_names && fd >= 0; i++) {
        int flags = O_PATH | O_NOFOLLOW | O_CLOEXEC | (i + 1 < m->ntarget_names ? O_DIRECTORY : 0);
        long next = syscall(SYS_openat, fd, name, flags);
        syscall(SYS_close, fd);
        fd = next;
        while (*name)
            name++;
        name++;
    }
    struct stat st;
    if (fd >= 0 && (syscall(SYS_fstat, fd, &st) != 0 || S_ISLNK(st.st_mode))) {
        syscall(SYS_close, fd);
        errno = ELOOP;
        return -1;
    }
    return fd;
}

/* A detached mount: a clone of the source's tree, or a new tmpfs (nosuid, nodev). -1 with errno. */
CHILD_CODE static long child_new_mount(const struct spawn_mount *m)
{
    if (m->source)
        return syscall(SYS_open_tree, AT_FDCWD, m->source,
                       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE |
                           (m->source_nofollow ? AT_SYMLINK_NOFOLLOW : 0));
    long fs = syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
    if (fs < 0)
        return -1;
    long mnt = -1;
    if ((!m->tmpfs_size || syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "size", m->tmpfs_size, 0) == 0) &&
        syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0700", 0) == 0 &&
        (!m->tmpfs_uid || syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "uid", m->tmpfs_uid, 0) == 0) &&
        (!m->tmpfs_gid || syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "gid", m->tmpfs_gid, 0) == 0) &&
        syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, 0, 0, 0) == 0)
        mnt = syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
    syscall(SYS_close, fs);
    return mnt;
}

static const struct mount_attr read_only_attr = {.attr_set = MOUNT_ATTR_RDONLY};

CHILD_CODE static void child_mount_volumes(struct child_frame *f, const struct spawn_request *r)
{
    for (int i = 0; i < r->mount_count; i++) {
        const struct spawn_mount *m = &r->mounts[i];
        long target = child_open_target(m);
        if (target < 0)
            child_fail(f, SPAWN_MOUNT_TARGET, i);
        long mnt = child_new_mount(m);
        if (mnt < 0 ||
            (m->read_only && syscall(SYS_mount_setattr, mnt, "", AT_EMPTY_PATH | AT_RECURSIVE, &read_only_attr,
                                     sizeof read_only_attr) != 0) ||
            syscall(SYS_move_mount, mnt, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
            child_fail(f, SPAWN_MOUNT_VOLUME, i);
        syscall(SYS_close, mnt);
        syscall(SYS_close, target);
    }
}

CHILD_CODE static void child_isolate(struct child_frame *f, const struct spawn_request *r)
{
    if (syscall(SYS_unshare, CLONE_NEWNS) != 0)
        child_fail(f, SPAWN_UNSHARE, 0);
    /* Private first, or the binds below would propagate back into the server's namespace. */
    if (syscall(SYS_mount, "none", "/", 0, MS_REC | MS_PRIVATE, 0) != 0)
        child_fail(f, SPAWN_MOUNT_PRIVATE, 0);
    if (r->hosts_file && bind_read_only(r->hosts_file, "/etc/hosts") != 0)
        child_fail(f, SPAWN_BIND_HOSTS, 0);
    if (r->ssh_dir && bind_read_only(r->ssh_dir, r->ssh_target) != 0)
        child_fail(f, SPAWN_BIND_SSH, 0);
    for (int i = 0; i < r->bind_count; i++)
        if (syscall(SYS_mount, r->bind_sources[i], r->bind_targets[i], 0, MS_BIND | MS_REC, 0) != 0)
            child_fail(f, SPAWN_BIND_VOLUME, i);
    child_mount_volumes(f, r);
}

CHILD_CODE static void child_redirect(struct child_frame *f, const struct spawn_request *r)
{
    long null_fd = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY);
    if (null_fd < 0)
        child_fail(f, SPAWN_STDIN, 0);
    if (null_fd != 0) {
        if (syscall(SYS_dup3, null_fd, 0, 0) < 0)
            child_fail(f, SPAWN_STDIN, 0);
        syscall(SYS_close, null_fd);
    }
    if (syscall(SYS_dup3, r->log_fd, 1, 0) < 0 || syscall(SYS_dup3, r->log_fd, 2, 0) < 0)
        child_fail(f, SPAWN_STDOUT, 0);
    /* Whatever the server opened without O_CLOEXEC stays out of the task (Linux 5.9; the
     * server's own descriptors are close-on-exec anyway, so an older kernel loses nothing). */
    syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
    /* The supervisor's exits file, the one descriptor beyond stdio that survives exec. */
    if (r->exits_fd == 3) {
        if (syscall(SYS_fcntl, 3, F_SETFD, 0) != 0)
            child_fail(f, SPAWN_EXITS_FD, 0);
    } else if (r->exits_fd >= 0 && syscall(SYS_dup3, r->exits_fd, 3, 0) < 0) {
        child_fail(f, SPAWN_EXITS_FD, 0);
    }
}

CHILD_CODE static void child_switch_user(struct child_frame *f, const struct spawn_request *r)
{
    if (r->gid >= 0) {
        unsigned int groups[1] = {(unsigned int)r->gid};
        if (syscall(SYS_SETGROUPS, 1, groups) != 0)
            child_fail(f, SPAWN_SETGROUPS, 0);
        if (syscall(SYS_SETRESGID, r->gid, r->gid, r->gid) != 0)
            child_fail(f, SPAWN_SETGID, 0);
    } else if (syscall(SYS_SETGROUPS, 0, 0) != 0) { /* no supplementary groups of root's */
        child_fail(f, SPAWN_SETGROUPS, 0);
    }
    if (r->uid >= 0 && syscall(SYS_SETRESUID, r->uid, r->uid, r->uid) != 0)
        child_fail(f, SPAWN_SETUID, 0);
}

/* Default handlers. A task gets an empty mask (last: a signal pending since clone() meets the default
 * action). The supervisor keeps everything blocked through exec and after (it installs no handler, so
 * these defaults are its task's): a stop sent before its task exists stays pending, and it hands what
 * is pending to its task (tools/shim/shim.c). */
CHILD_CODE static void child_reset_signals(struct child_frame *f, bool supervisor)
{
    for (int sig = 1; sig < _NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP && syscall(SYS_rt_sigaction, sig, default_action, 0, SIGSET_BYTES) != 0)
            child_fail(f, SPAWN_SIGNALS, 0);
    if (!supervisor && syscall(SYS_rt_sigprocmask, SIG_SETMASK, empty_mask, 0, SIGSET_BYTES) != 0)
        child_fail(f, SPAWN_SIGNALS, 0);
}

CHILD_CODE static int child_main(void *arg)
{
    struct child_frame *f = arg;
    const struct spawn_request *r = f->req;
    if (syscall(SYS_setsid) < 0)
        child_fail(f, SPAWN_SETSID, 0);
    /* Into the cgroups before anything else runs: from here on every page and every fork counts. */
    for (int i = 0; !f->born_in_cgroup && i < r->cgroup_count; i++)
        if (syscall(SYS_write, r->cgroup_procs[i], "0", 1) != 1)
            child_fail(f, SPAWN_JOIN_CGROUP, i);
    bool isolate = r->hosts_file || r->ssh_dir || r->bind_count > 0 || r->mount_count > 0;
    if (isolate)
        child_isolate(f, r);
    child_redirect(f, r);
    if (r->switch_user)
        child_switch_user(f, r);
    /* A task whose mounts differ from the node's (a volume bound where it chose, over /etc say) must
     * not run a set-user-id program against them. */
    if (r->switch_user && isolate && syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        child_fail(f, SPAWN_NO_NEW_PRIVS, 0);
    /* As the task's user: it cannot start in a directory it may not enter. */
    if (syscall(SYS_chdir, r->chdir_to) != 0)
        child_fail(f, SPAWN_CHDIR, 0);
    syscall(SYS_umask, 022); /* the server's is 077; tasks get the usual one */
    child_reset_signals(f, r->exits_fd >= 0);
    syscall(SYS_execve, r->path, r->argv, r->envp);
    child_fail(f, SPAWN_EXEC, 0);
}

int spawn_process(const struct spawn_request *req, pid_t *pid_out, int *pidfd_out, struct spawn_failure *failure)
{
    /* The child's stack is this array: the frame lives until clone() returns, and clone() returns
     * only once the child has exec'd or exited (CLONE_VFORK). */
    _Alignas(16) char stack[CHILD_STACK_SIZE];
    struct child_frame frame = {.req = req, .step = SPAWN_OK};
    unsigned long all[4], saved[4];
    for (int i = 0; i < 4; i++)
        all[i] = ~0UL;
    /* Raw, so glibc's internal signals are blocked too (pthread_sigmask leaves them open). */
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, all, saved, SIGSET_BYTES);
    int pidfd = -1;
    pid_t pid = -1;
    int clone_err = ENOSYS;
#ifdef HAVE_CLONE3
    if (req->cgroup_dir >= 0) {
        frame.born_in_cgroup = true;
        struct clone3_args args = {.flags = CLONE_VM | CLONE_VFORK | CLONE_PIDFD | CLONE3_INTO_CGROUP,
                                   .pidfd = (uint64_t)(uintptr_t)&pidfd,
                                   .exit_signal = SIGCHLD,
                                   .stack = (uint64_t)(uintptr_t)stack,
                                   .stack_size = sizeof stack,
                                   .cgroup = (uint64_t)req->cgroup_dir};
        long rc = caldera_clone3(&args, sizeof args, child_main, &frame);
        pid = rc < 0 ? -1 : (pid_t)rc;
        clone_err = rc < 0 ? (int)-rc : 0;
        frame.born_in_cgroup = pid >= 0;
    }
#endif
    if (pid < 0 && (clone_err == ENOSYS || clone_err == E2BIG || clone_err == EINVAL || clone_err == EOPNOTSUPP)) {
        /* an older kernel, or no cgroup to be born in: join by cgroup.procs */
        pid = clone(child_main, stack + sizeof stack, CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, &frame, &pidfd);
        clone_err = errno;
    }
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, saved, 0, SIGSET_BYTES);
    if (pid < 0) {
        *failure = (struct spawn_failure){SPAWN_CLONE, 0, clone_err};
        return -1;
    }
    if (frame.step != SPAWN_OK) {
        siginfo_t info;
        waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED); /* it has left exec's way: reap it now */
        close(pidfd);
        *failure = (struct spawn_failure){(enum spawn_step)frame.step, frame.index, frame.err};
        return -1;
    }
    *pid_out = pid;
    *pidfd_out = pidfd;
    return 0;
}
