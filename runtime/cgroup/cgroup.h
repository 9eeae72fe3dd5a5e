/* Cgroups for attempts: one directory per attempt below caldera/ in every v1 hierarchy that holds a
 * controller we use (memory, cpu, cpuacct, pids), or one directory in the unified (v2) hierarchy. */
#ifndef CALDERA_RUNTIME_CGROUP_H
#define CALDERA_RUNTIME_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CGROUP_MAX_HIERARCHIES 5
#define CGROUP_NAME_MAX 200
#define CGROUP_PATH_MAX 512
#define CGROUP_DIR_MODE 0755 /* tasks read their limits; only root writes them (nothing is given to a task) */

enum cgroup_mode { CGROUP_NONE, CGROUP_V1, CGROUP_V2 };

/* Controllers, as bits. */
enum { CG_MEMORY = 1, CG_CPU = 2, CG_CPUACCT = 4, CG_PIDS = 8, CG_CPUSET = 16 };

struct cgroup_hierarchy {
    char parent[CGROUP_PATH_MAX - CGROUP_NAME_MAX - 32]; /* "<mount>/caldera" */
    char label[40];                                      /* "memory", "cpu,cpuacct" (v1); "" (v2) */
    unsigned controllers;                                /* CG_* bits usable in attempt cgroups here */
};

struct cgroup_layout {
    enum cgroup_mode mode;
    int count; /* hierarchies: v1 one per mount, v2 exactly one */
    struct cgroup_hierarchy h[CGROUP_MAX_HIERARCHIES];
    char summary[256]; /* for the log: the mode, the controllers and where their caldera/ parents are */
    char warning[256]; /* "" when every limit is enforced */
    char detail[256];  /* why something did not work, for the log */
};

/* The machine's cgroups, detected on the first call (thread-safe, once): v2 when /sys/fs/cgroup
 * is cgroup2 (or $CALDERA_CGROUP2_ROOT names a cgroup2 mount to use instead), else the v1
 * mounts of /proc/self/mounts. Creates the caldera/ parents and enables the v2 controllers. */
const struct cgroup_layout *cgroup_layout(void);

/* An attempt cgroup's cgroup.procs files, open for the child to write "0" into. */
struct cgroup_join {
    int procs_fd[CGROUP_MAX_HIERARCHIES];
    int count;
};

/* An attempt's limits; 0: none. */
struct cgroup_limits {
    int64_t memory;    /* bytes: memory.max (v2), memory.limit_in_bytes (v1) */
    int64_t cpu_milli; /* millicores: cpu.max, cpu.cfs_quota_us */
    int64_t pids;      /* processes and threads: pids.max (v2, and v1's pids hierarchy) */
    const char *cpus;  /* cpuset.cpus (a cpulist), NULL: the parent's */
    const char *mems;  /* cpuset.mems, NULL: the parent's */
};

/* cpusets (cpuset.c). Asks cgroup_layout() to take the cpuset controller too (the v1 cpuset
 * hierarchy, v2's +cpuset): call before anything else uses cgroups (the static CPU manager policy). */
void cgroup_use_cpuset(void);
/* Does the layout hold the cpuset controller? */
bool cgroup_has_cpuset(void);
/* Writes an existing attempt cgroup's cpuset.cpus (and cpuset.mems when mems is not NULL).
 * Returns 0, or -1 with errno set. */
int cgroup_set_cpuset(const char *name, const char *cpus, const char *mems);
/* Reads an attempt cgroup's cpuset.cpus into buf ("" when unset). Returns 0, or -1. */
int cgroup_read_cpuset(const char *name, char *buf, size_t len);
/* For detect.c: bits, plus CG_CPUSET when cgroup_use_cpuset() was called; and a v1 cpuset parent
 * (caldera/ below mount) given its root's CPUs and memory nodes, which its children copy. */
unsigned cgroup_wanted(unsigned bits);
int cgroup_cpuset_v1_parent(const char *mount, const char *parent);

/* Creates caldera/<name> in every hierarchy with its limits and opens its cgroup.procs files
 * (close-on-exec). Returns 0, or -1 with a sentence in why (nothing is left behind). */
int cgroup_create(const char *name, const struct cgroup_limits *limits, struct cgroup_join *join, char *why,
                  size_t why_len);
void cgroup_join_close(struct cgroup_join *join);
/* On cgroup v2, a descriptor of the attempt's directory (O_PATH, close-on-exec) for a child to be
 * born in (spawn.h, cgroup_dir); -1 on v1, without cgroups, or when it cannot be opened. */
int cgroup_open_dir(const char *name);
/* Opens the cgroup.procs files of an attempt cgroup that exists already (a companion joins its task's).
 * Returns 0, or -1 with a sentence in why. */
int cgroup_join_existing(const char *name, struct cgroup_join *join, char *why, size_t why_len);
/* "memory:/caldera/<name>" for hierarchy i (v2: "/caldera/<name>"), for error messages. */
void cgroup_join_label(int i, const char *name, char *out, size_t len);
/* Where an attempt runs, as /proc/<pid>/cgroup would say it: "memory,cpu,cpuacct,pids:/caldera/<name>"
 * (v1) or "0::/caldera/<name>" (v2). */
void cgroup_describe(const char *name, char *out, size_t len);

struct cgroup_usage {
    int64_t oom_kills;   /* the kernel OOM killer's kills in the cgroup */
    int64_t peak_memory; /* bytes; 0 when the kernel does not say */
    int64_t cpu_usec;
};
void cgroup_read_usage(const char *name, struct cgroup_usage *u);

/* Sends sig to every process of the cgroup (v2 SIGKILL: cgroup.kill), skipping members of process
 * group skip_pgid (> 0) that the caller signalled already. */
void cgroup_signal(const char *name, int sig, pid_t skip_pgid);
/* Kills what is left in the cgroup, waits (bounded) for it to empty and removes its directories and
 * the parents it leaves empty. A cgroup that will not empty in time is retried later. */
void cgroup_remove(const char *name);
/* cgroup_remove on the cleaner thread (cleaner.c), in order; the caller goes on at once. */
void cgroup_remove_async(const char *name);
/* cgroup_create tells the cleaner a cgroup was just made: its removals wait out a burst of starts. */
void cgroup_note_create(void);
/* Whether cgroup_create made one in the last ms milliseconds (a burst of starts going on). */
bool cgroup_made_within(int ms);
/* A stock of empty cgroups made ahead while starts pause (stock.c), on v1 only (v2 cannot rename a
 * cgroup): cgroup_create renames one to the attempt's flat name instead of making its directories.
 * It holds as many as attempts were made so far, at most `most`; stock of a server that is gone is
 * removed at the start, the server's own at the stop. Returns 0, or -1 when the thread cannot start. */
int cgroup_stock_start(int most);
void cgroup_stock_stop(void);
/* Renames a stock cgroup to name in every hierarchy. Returns 0, or -1 (none left, a nested name, or a
 * rename failed: nothing of the stock is left under name then). */
int cgroup_stock_take(const char *name);
/* cgroup_create tells the stock an attempt's cgroup was made: it counts toward the stock's size (the
 * refill pauses on cgroup_made_within). */
void cgroup_stock_note_create(void);
int cgroup_stock_count(void);
/* Waits until every removal queued so far is done (or retried later). Returns 0, or -1 on timeout. */
int cgroup_cleaner_flush(int timeout_ms);
/* Leaves the removal to cgroup_retry_removals() (a lost task just killed: no need to wait now). */
void cgroup_remove_later(const char *name);
/* Retries removals that could not finish; cheap when there are none. */
void cgroup_retry_removals(void);
/* The attempt cgroup (below caldera/) a live process runs in. Returns 0, or -1 when none. */
int cgroup_name_of_pid(pid_t pid, char *name, size_t len);

/* Control files (files.c). Each returns 0, or -1 with errno set. */
/* mkdir of a cgroup directory, readable by its tasks (they may read their own limits, as in a
 * container) whatever the server's umask (077); its files stay root's to write. */
int cgroup_make_dir(const char *dir);
int cgroup_write(const char *dir, const char *file, const char *value);
/* Reads a small control file into buf (NUL-terminated). */
int cgroup_read(const char *dir, const char *file, char *buf, size_t len);
/* Enables the controllers (CG_* bits) for dir's children: "+memory +cpu +pids" into its
 * cgroup.subtree_control. */
int cgroup_enable_controllers(const char *dir, unsigned bits);
/* The number after "key " in a flat-keyed file ("oom_kill 3"), or -1. */
int64_t cgroup_read_key(const char *dir, const char *file, const char *key);
/* A file holding a single number, or -1. */
int64_t cgroup_read_number(const char *dir, const char *file);

#endif
