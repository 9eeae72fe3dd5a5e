/* GPU discovery without NVML: the driver's /proc/driver/nvidia/gpus/<bus id>/information files
 * (Model, GPU UUID, Bus Location), numbered in PCI order as NVML numbers them, else the bare
 * /dev/nvidia<N> device files. Also where discovery's choices are made: NVML first, then these. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "common/log.h"
#include "runtime/gpu/gpu_discover.h"

#define PROC_GPUS "/proc/driver/nvidia/gpus"

struct gpu_discovery gpu_discovery_from_env(void)
{
    const char *lib = getenv("CALDERA_NVML_LIBRARY"), *root = getenv("CALDERA_GPU_ROOT");
    return (struct gpu_discovery){.nvml_library = lib && *lib ? lib : "libnvidia-ml.so.1", .root = root ? root : ""};
}

int gpu_pci_numa_node(const char *root, const char *bus_id)
{
    char path[4096], *data = NULL;
    snprintf(path, sizeof path, "%s/sys/bus/pci/devices/%s/numa_node", root, bus_id);
    int numa = -1;
    if (read_file(path, 64, &data, NULL) == 0) {
        char *end;
        long v = strtol(data, &end, 10);
        if (end != data && v >= 0 && v < 1024)
            numa = (int)v;
    }
    free(data);
    return numa;
}

/* The value of "Key:   value" in an information file, trimmed, into out ("" when absent). */
static void info_value(const char *info, const char *key, char *out, size_t len)
{
    out[0] = '\0';
    size_t klen = strlen(key);
    for (const char *line = info; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, key, klen) != 0 || line[klen] != ':')
            continue;
        const char *v = line + klen + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t n = strcspn(v, "\n");
        while (n > 0 && isspace((unsigned char)v[n - 1]))
            n--;
        snprintf(out, len, "%.*s", (int)n, v);
        return;
    }
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The entries of dir whose names pass keep, sorted; *names is freed by the caller (each, then it). */
static int list_dir(const char *dir, int (*keep)(const char *name), char ***names)
{
    *names = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < GPU_DEVICES_MAX) {
        if (!keep(de->d_name))
            continue;
        char **grown = realloc(*names, (size_t)(n + 1) * sizeof *grown);
        if (!grown || !(grown[n] = strdup(de->d_name))) {
            *names = grown ? grown : *names;
            break;
        }
        *names = grown;
        n++;
    }
    closedir(d);
    if (n > 0)
        qsort(*names, (size_t)n, sizeof **names, by_name);
    return n;
}

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static int is_bus_id(const char *name) { return name[0] != '.'; }

/* nvidia0, nvidia1...: not nvidiactl, nvidia-uvm, nvidia-modeset. */
static int is_device_file(const char *name)
{
    if (strncmp(name, "nvidia", 6) != 0 || !name[6])
        return 0;
    for (const char *p = name + 6; *p; p++)
        if (!isdigit((unsigned char)*p))
            return 0;
    return 1;
}

static int from_proc(const struct gpu_discovery *where, struct machine *m, char *err, size_t errlen)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s%s", where->root, PROC_GPUS);
    char **ids;
    int n = list_dir(dir, is_bus_id, &ids);
    if (n < 0)
        return -1;
    int found = 0;
    for (int i = 0; i < n; i++) {
        char path[8192], *info = NULL, location[64], model[128];
        snprintf(path, sizeof path, "%s/%s/information", dir, ids[i]);
        if (read_file(path, 1 << 16, &info, NULL) != 0) {
            log_warn("GPU discovery: cannot read %s", path);
            continue;
        }
        struct gpu_device d = {.index = found, .numa = -1};
        info_value(info, "GPU UUID", d.uuid, sizeof d.uuid);
        info_value(info, "Bus Location", location, sizeof location);
        info_value(info, "Model", model, sizeof model);
        free(info);
        for (char *p = location; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        d.numa = gpu_pci_numa_node(where->root, location[0] ? location : ids[i]);
        if (model[0] && !m->gpu_product[0])
            snprintf(m->gpu_product, sizeof m->gpu_product, "%s", model);
        if (gpu_set_add(&m->gpus, &d) != 0) {
            snprintf(err, errlen, "out of memory");
            free_names(ids, n);
            return -1;
        }
        found++;
    }
    free_names(ids, n);
    return found;
}

/* Only the device files: their numbers, nothing else known. */
static int from_dev(const struct gpu_discovery *where, struct machine *m, char *err, size_t errlen)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/dev", where->root);
    char **names;
    int n = list_dir(dir, is_device_file, &names);
    if (n < 0) {
        snprintf(err, errlen, "cannot read %s", dir);
        return -1;
    }
    int32_t minors[GPU_DEVICES_MAX];
    for (int i = 0; i < n; i++)
        minors[i] = (int32_t)atoi(names[i] + 6);
    free_names(names, n);
    for (int i = 0; i < n; i++) /* nvidia10 sorts before nvidia2 by name: order by number */
        for (int j = i + 1; j < n; j++)
            if (minors[j] < minors[i]) {
                int32_t t = minors[i];
                minors[i] = minors[j];
                minors[j] = t;
            }
    for (int i = 0; i < n; i++) {
        struct gpu_device d = {.index = minors[i], .numa = -1};
        if (gpu_set_add(&m->gpus, &d) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    return n;
}

int gpu_discover_driver_files(const struct gpu_discovery *where, struct machine *m, char *err, size_t errlen)
{
    gpu_set_clear(&m->gpus);
    m->gpu_product[0] = '\0';
    int found = from_proc(where, m, err, errlen);
    if (found <= 0) {
        gpu_set_clear(&m->gpus);
        found = from_dev(where, m, err, errlen);
    }
    if (found < 0)
        gpu_set_clear(&m->gpus);
    return found;
}

int gpu_discover(const struct gpu_discovery *where, struct machine *m)
{
    char err[512] = "";
    int found = -1;
    if (strcmp(where->nvml_library, "none") != 0) {
        found = gpu_discover_nvml(where, m, err, sizeof err);
        if (found == -2)
            log_debug("GPU discovery: %s; reading the driver's files instead", err);
        else if (found < 0)
            log_warn("GPU discovery: %s; reading the driver's files instead", err);
    }
    if (found < 0) {
        found = gpu_discover_driver_files(where, m, err, sizeof err);
        if (found < 0) {
            log_debug("GPU discovery: %s: no GPU", err);
            found = 0;
        }
    }
    return found;
}
