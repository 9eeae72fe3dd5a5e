/* A node's GPUs as devices: each one's index (what CUDA_VISIBLE_DEVICES names), UUID, NUMA node and
 * memory (or a MIG instance of a GPU, named by UUID), which of them replicas hold, which are unhealthy
 * (a critical Xid, gone from the driver), and the pure choice of free healthy devices for a replica. */
#ifndef CALDERA_GPU_H
#define CALDERA_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A node lists at most this many devices: a replica's devices are a bit mask over the list. */
#define GPU_DEVICES_MAX 64
#define GPU_UUID_MAX 96

struct gpu_device {
    int32_t index;           /* the device's number on this machine (CUDA_VISIBLE_DEVICES, nvidia-smi -i) */
    char uuid[GPU_UUID_MAX]; /* "GPU-..." (or "MIG-..."), "" when unknown */
    int32_t numa;            /* NUMA node of its PCI device, -1 when unknown */
    int64_t memory_mib;      /* 0 when unknown */
    /* A MIG device (NVIDIA's `single` strategy: each instance is one nvidia.com/gpu): its parent's
     * UUID and its GPU and compute instance ids, which NVML's Xid events name. */
    bool mig;
    char parent_uuid[GPU_UUID_MAX];
    uint32_t gpu_instance, compute_instance;
    int32_t last_xid; /* the last critical Xid NVML reported for it, 0 for none */
};

/* A node's devices, in the order they were listed, which of them are held (bit i: devices[i]), and
 * which are unhealthy: never chosen, and not counted in the node's allocatable nvidia.com/gpu. */
struct gpu_set {
    struct gpu_device *devices; /* owned */
    int count;
    uint64_t busy;
    uint64_t unhealthy;
};

void gpu_set_clear(struct gpu_set *s);
/* Appends a device. Returns 0, or -1 when the set is full (GPU_DEVICES_MAX) or memory ran out. */
int gpu_set_add(struct gpu_set *s, const struct gpu_device *d);
/* A deep copy into out (empty first). Returns 0, or -1 out of memory. */
int gpu_set_copy(struct gpu_set *out, const struct gpu_set *s);
/* The position of the device with this index, or -1. */
int gpu_set_find_index(const struct gpu_set *s, int32_t index);
/* The position of the device with this UUID ("" matches none), or -1. */
int gpu_set_find_uuid(const struct gpu_set *s, const char *uuid);
/* Free healthy devices; healthy devices (free or held). */
int gpu_set_free_count(const struct gpu_set *s);
int gpu_set_healthy_count(const struct gpu_set *s);
/* Whether tasks must be given the devices by UUID: MIG devices cannot be named by index. */
bool gpu_set_needs_uuids(const struct gpu_set *s);

/* Chooses `want` free healthy devices of s: all from one NUMA node when one has enough (the one with the
 * fewest free that does, keeping larger groups whole), else from the NUMA nodes with the most free
 * first so the replica spans as few as it can; lowest positions first within a NUMA node. Devices
 * of unknown NUMA node count as one more node. Sets *out to their mask and returns 0, or -1 when
 * fewer than `want` are free (nothing chosen). Pure: s is not changed. */
int gpu_choose(const struct gpu_set *s, int want, uint64_t *out);
/* Marks the mask's devices held or free again. Taking a held device or freeing a free one is a bug:
 * both return -1 and change nothing; otherwise 0. */
int gpu_take(struct gpu_set *s, uint64_t mask);
int gpu_give(struct gpu_set *s, uint64_t mask);

/* The mask's devices as a comma-separated list of their indexes ("2,3"), or of their UUIDs when
 * uuids is set (a device with no UUID gives its index). "" for an empty mask. */
void gpu_format(const struct gpu_set *s, uint64_t mask, bool uuids, char *buf, size_t len);
/* The inverse for indexes: "2,3" -> the mask of the devices with those indexes. Returns 0, or -1 when
 * the text is not such a list or names a device s does not have. "" is the empty mask. */
int gpu_parse_indexes(const struct gpu_set *s, const char *text, uint64_t *mask);

/* A device of node `node` (found by UUID, else by index) became unhealthy or healthy again, as the
 * GPU threads tell the core: reason is the Node Event's ("GPUUnhealthy" for a critical Xid,
 * "GPUUnavailable" gone from the driver, "GPUAvailable" back), xid the Xid (0: none). */
struct gpu_health_change {
    char node[256];
    char uuid[GPU_UUID_MAX];
    int32_t index;
    bool healthy;
    int32_t xid;
    char reason[32];
    char message[512]; /* what happened, in a sentence; the core adds the node's count */
};

static inline int gpu_mask_count(uint64_t mask) { return __builtin_popcountll(mask); }

#endif
