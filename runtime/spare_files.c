/* The spare stock: ready files and directories in two queues under a mutex, refilled by one
 * low-priority thread whenever a take leaves a queue below its target. Spares are named by kind
 * and a counter ("f-17", "d-3") in shard directories by counter ("7/f-230"): a rename locks its
 * source directory, and a take (oldest first) then rarely meets the refiller, whose creation in
 * the newest shard may hold that lock for a millisecond. At start the shards are read back. */
#include "runtime/spare_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "common/log.h"
#include "runtime/exits_reserve.h"

#define MAX_SUBDIRS 4
#define NAME_MAX_LEN 32
#define SHARDS 16
#define PER_SHARD 32 /* consecutive spares share a shard */
#define REFILL_NICE 10
/* The refill waits while spares were taken in the last PAUSE_MS (a burst of starts): on ext4 without a
 * journal each creation can cost a millisecond of CPU and hold its shard's lock, which the burst's
 * takes and tasks need more. Below a quarter of its target it refills anyway: takes that never pause
 * (a flow's chain of steps) would otherwise empty it, and every start would then create its own. */
#define PAUSE_MS 50
#define PAUSE_STEP_US 10000
/* Spares are the server's alone: a file becomes a log, a directory a job's (tasks pass through it). */
#define SPARE_FILE_MODE 0600
#define SPARE_DIR_MODE 0711
#define SPARE_SUBDIR_MODE 0700

/* A FIFO of spare numbers. */
struct stack {
    unsigned long *n;
    int head, count, target;
};

static struct {
    pthread_mutex_t mu;
    pthread_cond_t low; /* the refiller waits here */
    bool running, stopping;
    pthread_t thread;
    char dir[4096];
    const char *subdirs[MAX_SUBDIRS + 1];
    const char *dir_files[MAX_SUBDIRS + 1]; /* empty files a spare directory holds */
    struct stack files, dirs;
    unsigned long next; /* counter for new names */
    int64_t last_take_ms;
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER, .low = PTHREAD_COND_INITIALIZER};

static bool push(struct stack *s, unsigned long n)
{
    if (s->count >= s->target)
        return false;
    s->n[(s->head + s->count++) % s->target] = n;
    return true;
}

static unsigned long pop(struct stack *s)
{
    unsigned long n = s->n[s->head];
    s->head = (s->head + 1) % s->target;
    s->count--;
    return n;
}

static void spare_path(bool dir, unsigned long n, char *out, size_t len)
{
    snprintf(out, len, "%s/%lu/%c-%lu", pool.dir, n / PER_SHARD % SHARDS, dir ? 'd' : 'f', n);
}

/* Makes spare number n of a kind outside the lock; returns false on failure. */
static bool make_spare(bool dir, unsigned long n)
{
    char path[4200];
    spare_path(dir, n, path, sizeof path);
    if (!dir) {
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, SPARE_FILE_MODE);
        if (fd < 0)
            return false;
        close(fd);
        return true;
    }
    /* the umask (077) would make it 0700: the mode is set exactly */
    if (mkdir(path, SPARE_DIR_MODE) != 0)
        return false;
    if (chmod(path, SPARE_DIR_MODE) != 0) {
        rmdir(path);
        return false;
    }
    for (int i = 0; pool.subdirs[i]; i++) {
        char sub[4300];
        snprintf(sub, sizeof sub, "%s/%s", path, pool.subdirs[i]);
        if (mkdir(sub, SPARE_SUBDIR_MODE) != 0) {
            remove_tree(path);
            return false;
        }
    }
    for (int i = 0; pool.dir_files[i]; i++) {
        char file[4300];
        snprintf(file, sizeof file, "%s/%s", path, pool.dir_files[i]);
        int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, SPARE_FILE_MODE);
        if (fd < 0) {
            remove_tree(path);
            return false;
        }
        exits_file_reserve(fd, 0); /* the job's exits file: its room made here, off the core thread */
        close(fd);
    }
    return true;
}

static void *refill_main(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "spare-files");
    /* behind the core thread: spares are made in its idle time */
    setpriority(PRIO_PROCESS, (id_t)gettid(), REFILL_NICE);
    pthread_mutex_lock(&pool.mu);
    while (!pool.stopping) {
        bool want_dir = pool.dirs.count < pool.dirs.target;
        bool want_file = pool.files.count < pool.files.target;
        if (!want_dir && !want_file) {
            pthread_cond_wait(&pool.low, &pool.mu);
            continue;
        }
        const struct stack *wanted = want_dir ? &pool.dirs : &pool.files;
        bool running_low = wanted->count < wanted->target / 4; /* a long run of takes (a chain of steps) */
        if (!running_low && clock_mono_ms() - pool.last_take_ms < PAUSE_MS) {
            pthread_mutex_unlock(&pool.mu);
            usleep(PAUSE_STEP_US);
            pthread_mutex_lock(&pool.mu);
            continue;
        }
        unsigned long n = pool.next++;
        pthread_mutex_unlock(&pool.mu);
        bool made = make_spare(want_dir, n);
        pthread_mutex_lock(&pool.mu);
        if (!made) { /* the disk refuses (full?): stop trying until a take asks again */
            log_warn("spare files: cannot make one in %s: %s", pool.dir, strerror(errno));
            pthread_cond_wait(&pool.low, &pool.mu);
            continue;
        }
        push(want_dir ? &pool.dirs : &pool.files, n);
    }
    pthread_mutex_unlock(&pool.mu);
    return NULL;
}

/* "f-<n>" or "d-<n>": a spare's name; returns its kind ('f', 'd') and number, 0 otherwise. */
static char spare_kind(const char *name, unsigned long *n)
{
    char *end;
    if ((name[0] != 'f' && name[0] != 'd') || name[1] != '-' || name[2] < '0' || name[2] > '9')
        return 0;
    *n = strtoul(name + 2, &end, 10);
    return *end ? 0 : name[0];
}

/* Spares an earlier run left are used first; more than the stock wants are removed. */
static void adopt_existing(void)
{
    for (int shard = 0; shard < SHARDS; shard++) {
        char sdir[4200];
        snprintf(sdir, sizeof sdir, "%s/%d", pool.dir, shard);
        DIR *d = opendir(sdir);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            unsigned long n;
            char kind = spare_kind(e->d_name, &n);
            if (!kind)
                continue;
            if (n >= pool.next)
                pool.next = n + 1;
            if (n / PER_SHARD % SHARDS != (unsigned long)shard || !push(kind == 'd' ? &pool.dirs : &pool.files, n)) {
                char path[4400];
                snprintf(path, sizeof path, "%s/%s", sdir, e->d_name);
                remove_tree(path);
            }
        }
        closedir(d);
    }
}

int spare_files_start(const char *dir, int nfiles, int ndirs, const char *const *subdirs, const char *const *dir_files)
{
    pthread_mutex_lock(&pool.mu);
    if (pool.running || mkdir_p(dir, 0700) != 0) {
        pthread_mutex_unlock(&pool.mu);
        return -1;
    }
    snprintf(pool.dir, sizeof pool.dir, "%s", dir);
    for (int shard = 0; shard < SHARDS; shard++) {
        char sdir[4200];
        snprintf(sdir, sizeof sdir, "%s/%d", dir, shard);
        if (mkdir(sdir, 0700) != 0 && errno != EEXIST) {
            pthread_mutex_unlock(&pool.mu);
            return -1;
        }
    }
    for (int i = 0; subdirs && subdirs[i] && i < MAX_SUBDIRS; i++)
        pool.subdirs[i] = subdirs[i];
    for (int i = 0; dir_files && dir_files[i] && i < MAX_SUBDIRS; i++)
        pool.dir_files[i] = dir_files[i];
    pool.files = (struct stack){calloc((size_t)nfiles + 1, sizeof(unsigned long)), 0, 0, nfiles};
    pool.dirs = (struct stack){calloc((size_t)ndirs + 1, sizeof(unsigned long)), 0, 0, ndirs};
    pool.next = 1;
    pool.stopping = false;
    adopt_existing();
    pool.running = pool.files.n && pool.dirs.n && pthread_create(&pool.thread, NULL, refill_main, NULL) == 0;
    pthread_mutex_unlock(&pool.mu);
    return pool.running ? 0 : -1;
}

void spare_files_stop(void)
{
    pthread_mutex_lock(&pool.mu);
    bool running = pool.running;
    pool.stopping = true;
    pthread_cond_signal(&pool.low);
    pthread_mutex_unlock(&pool.mu);
    if (running)
        pthread_join(pool.thread, NULL);
    pthread_mutex_lock(&pool.mu);
    pool.running = false;
    free(pool.files.n);
    free(pool.dirs.n);
    pool.files = pool.dirs = (struct stack){0};
    pthread_mutex_unlock(&pool.mu);
}

static int take(struct stack *s, bool dir, int dir_fd, const char *path)
{
    pthread_mutex_lock(&pool.mu);
    if (!pool.running || s->count == 0) {
        pthread_mutex_unlock(&pool.mu);
        return -1;
    }
    unsigned long n = pop(s);
    pool.last_take_ms = clock_mono_ms();
    pthread_cond_signal(&pool.low);
    pthread_mutex_unlock(&pool.mu);
    char from[4200];
    spare_path(dir, n, from, sizeof from);
    if (renameat2(AT_FDCWD, from, dir_fd, path, RENAME_NOREPLACE) == 0)
        return 0;
    int err = errno;
    if (err == EEXIST || (err == ENOENT && access(from, F_OK) == 0)) { /* path there, or its directory missing */
        pthread_mutex_lock(&pool.mu);
        push(s, n);
        pthread_mutex_unlock(&pool.mu);
    }
    return -1;
}

int spare_take_file(const char *path) { return take(&pool.files, false, AT_FDCWD, path); }
int spare_take_file_at(int dir_fd, const char *name) { return take(&pool.files, false, dir_fd, name); }
int spare_take_dir(const char *path) { return take(&pool.dirs, true, AT_FDCWD, path); }
