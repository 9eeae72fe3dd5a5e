/* A node's GPU devices and the choice of free ones for a replica; see gpu.h. Pure: no I/O, no
 * clock, so placement benchmarks and unit tests run it as the controller does. */
#include "model/gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gpu_set_clear(struct gpu_set *s)
{
    free(s->devices);
    memset(s, 0, sizeof *s);
}

int gpu_set_add(struct gpu_set *s, const struct gpu_device *d)
{
    if (s->count >= GPU_DEVICES_MAX)
        return -1;
    struct gpu_device *grown = realloc(s->devices, (size_t)(s->count + 1) * sizeof *grown);
    if (!grown)
        return -1;
    s->devices = grown;
    s->devices[s->count++] = *d;
    return 0;
}

int gpu_set_copy(struct gpu_set *out, const struct gpu_set *s)
{
    memset(out, 0, sizeof *out);
    if (s->count == 0)
        return 0;
    out->devices = malloc((size_t)s->count * sizeof *out->devices);
    if (!out->devices)
        return -1;
    memcpy(out->devices, s->devices, (size_t)s->count * sizeof *out->devices);
    out->count = s->count;
    out->busy = s->busy;
    out->unhealthy = s->unhealthy;
    return 0;
}

int gpu_set_find_index(const struct gpu_set *s, int32_t index)
{
    for (int i = 0; i < s->count; i++)
        if (s->devices[i].index == index)
            return i;
    return -1;
}

static uint64_t all_devices(const struct gpu_set *s)
{
    return s->count >= GPU_DEVICES_MAX ? ~0ULL : (1ULL << s->count) - 1;
}

static uint64_t free_devices(const struct gpu_set *s) { return all_devices(s) & ~s->busy & ~s->unhealthy; }

int gpu_set_free_count(const struct gpu_set *s) { return gpu_mask_count(free_devices(s)); }

int gpu_set_healthy_count(const struct gpu_set *s) { return gpu_mask_count(all_devices(s) & ~s->unhealthy); }

int gpu_set_find_uuid(const struct gpu_set *s, const char *uuid)
{
    for (int i = 0; uuid[0] && i < s->count; i++)
        if (strcmp(s->devices[i].uuid, uuid) == 0)
            return i;
    return -1;
}

bool gpu_set_needs_uuids(const struct gpu_set *s)
{
    for (int i = 0; i < s->count; i++)
        if (s->devices[i].mig)
            return true;
    return false;
}

/* The lowest `want` devices of mask. */
static uint64_t lowest(uint64_t mask, int want)
{
    uint64_t out = 0;
    for (; want > 0 && mask; want--) {
        uint64_t bit = mask & -mask;
        out |= bit;
        mask &= ~bit;
    }
    return out;
}

int gpu_choose(const struct gpu_set *s, int want, uint64_t *out)
{
    *out = 0;
    uint64_t avail = free_devices(s);
    if (want < 0 || gpu_mask_count(avail) < want)
        return -1;
    if (want == 0)
        return 0;
    /* the free devices by NUMA node */
    int32_t numa[GPU_DEVICES_MAX];
    uint64_t group[GPU_DEVICES_MAX];
    int ngroups = 0;
    for (uint64_t m = avail; m; m &= m - 1) {
        int i = __builtin_ctzll(m);
        int g = 0;
        while (g < ngroups && numa[g] != s->devices[i].numa)
            g++;
        if (g == ngroups) {
            numa[ngroups] = s->devices[i].numa;
            group[ngroups++] = 0;
        }
        group[g] |= 1ULL << i;
    }
    int best = -1;
    for (int g = 0; g < ngroups; g++) {
        int n = gpu_mask_count(group[g]);
        if (n >= want && (best < 0 || n < gpu_mask_count(group[best])))
            best = g;
    }
    if (best >= 0) {
        *out = lowest(group[best], want);
        return 0;
    }
    /* no NUMA node has enough: the fullest first, so the replica spans as few as it can */
    while (want > 0) {
        int most = 0;
        for (int g = 1; g < ngroups; g++)
            if (gpu_mask_count(group[g]) > gpu_mask_count(group[most]))
                most = g;
        uint64_t taken = lowest(group[most], want);
        *out |= taken;
        group[most] &= ~taken;
        want -= gpu_mask_count(taken);
    }
    return 0;
}

int gpu_take(struct gpu_set *s, uint64_t mask)
{
    if ((mask & ~free_devices(s)) != 0)
        return -1;
    s->busy |= mask;
    return 0;
}

int gpu_give(struct gpu_set *s, uint64_t mask)
{
    if ((mask & ~s->busy) != 0) /* an unhealthy device is given back too; it stays out of the choice */
        return -1;
    s->busy &= ~mask;
    return 0;
}

void gpu_format(const struct gpu_set *s, uint64_t mask, bool uuids, char *buf, size_t len)
{
    size_t used = 0;
    if (len > 0)
        buf[0] = '\0';
    for (int i = 0; i < s->count && used < len; i++) {
        if (!(mask & (1ULL << i)))
            continue;
        const struct gpu_device *d = &s->devices[i];
        int n = uuids && d->uuid[0] ? snprintf(buf + used, len - used, "%s%s", used ? "," : "", d->uuid)
                                    : snprintf(buf + used, len - used, "%s%d", used ? "," : "", (int)d->index);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

int gpu_parse_indexes(const struct gpu_set *s, const char *text, uint64_t *mask)
{
    *mask = 0;
    const char *p = text;
    while (*p) {
        char *end;
        long index = strtol(p, &end, 10);
        if (end == p || index < 0 || index > INT32_MAX || (*end != ',' && *end != '\0'))
            return -1;
        int pos = gpu_set_find_index(s, (int32_t)index);
        if (pos < 0)
            return -1;
        *mask |= 1ULL << pos;
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}
