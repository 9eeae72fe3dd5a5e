/* Reading this machine: host name and uname's architecture, the CPUs of this process's affinity,
 * /proc/meminfo and its cgroup's memory limit, statvfs of the data directory, its GPUs (runtime/gpu/). */
#include "runtime/host.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/log.h"
#include "runtime/gpu/gpu_discover.h"

static int64_t read_int_file(const char *path)
{
    char *data = NULL;
    int64_t v = -1;
    if (read_file(path, 64, &data, NULL) == 0) {
        char *end;
        long long n = strtoll(data, &end, 10);
        if (end != data)
            v = n;
    }
    free(data);
    return v;
}

/* The memory limit of this process's cgroup (v2 memory.max or v1 memory.limit_in_bytes), or -1. */
static int64_t cgroup_memory_limit(void)
{
    char *cg = NULL;
    int64_t limit = -1;
    if (read_file("/proc/self/cgroup", 1 << 16, &cg, NULL) != 0)
        return -1;
    for (char *line = strtok(cg, "\n"); line; line = strtok(NULL, "\n")) {
        char path[4096];
        char *rest = strchr(line, ':');
        char *cpath = rest ? strchr(rest + 1, ':') : NULL;
        if (!cpath)
            continue;
        *cpath++ = '\0';
        if (strcmp(rest + 1, "memory") == 0)
            snprintf(path, sizeof path, "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", cpath);
        else if (rest[1] == '\0' && strncmp(line, "0", 1) == 0)
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", cpath);
        else
            continue;
        int64_t v = read_int_file(path);
        if (v > 0 && (limit < 0 || v < limit))
            limit = v;
    }
    free(cg);
    return limit;
}

static int64_t mem_total(void)
{
    char *data = NULL;
    int64_t kib = -1;
    if (read_file("/proc/meminfo", 1 << 16, &data, NULL) == 0) {
        const char *p = strstr(data, "MemTotal:");
        if (p)
            kib = strtoll(p + 9, NULL, 10);
    }
    free(data);
    return kib > 0 ? kib * 1024 : -1;
}

void host_identify(struct machine *out)
{
    snprintf(out->name, sizeof out->name, "localhost");
    gethostname(out->name, sizeof out->name - 1);
    out->name[sizeof out->name - 1] = '\0';
    struct utsname u;
    uname(&u);
    const char *arch = strcmp(u.machine, "x86_64") == 0    ? "amd64"
                       : strcmp(u.machine, "aarch64") == 0 ? "arm64"
                                                           : u.machine;
    snprintf(out->arch, sizeof out->arch, "%s", arch);
}

int host_resources(struct machine *out, const char *data_dir, char *err, size_t errlen)
{
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    int64_t mem = mem_total(), limit = cgroup_memory_limit();
    if (limit > 0 && (mem < 0 || limit < mem))
        mem = limit;
    if (cpus <= 0 || mem <= 0) {
        snprintf(err, errlen, "cannot read this machine's CPU count or memory from /proc");
        return -1;
    }
    struct statvfs fs;
    out->storage = statvfs(data_dir, &fs) == 0 ? (int64_t)fs.f_blocks * (int64_t)fs.f_frsize : 0;
    out->cpus = cpus;
    out->memory = mem;
    return 0;
}

void host_gpus(struct machine *out)
{
    struct gpu_discovery where = gpu_discovery_from_env();
    int found = gpu_discover(&where, out);
    if (found > 0)
        log_info("GPU discovery: %d GPU%s%s%s", found, found == 1 ? "" : "s", out->gpu_product[0] ? ", " : "",
                 out->gpu_product);
}
