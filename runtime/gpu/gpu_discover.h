/* Finding this machine's NVIDIA GPUs at start-up: NVML loaded at run time (no build-time
 * dependency), else the driver's /dev and /proc files. Never fatal: a machine without GPUs has none. */
#ifndef CALDERA_RUNTIME_GPU_DISCOVER_H
#define CALDERA_RUNTIME_GPU_DISCOVER_H

#include "model/node.h"

/* Where discovery looks. nvml_library: the NVML shared object to dlopen ("libnvidia-ml.so.1"),
 * "none" to skip NVML; root: a prefix for /dev, /proc and /sys ("" for the real ones). */
struct gpu_discovery {
    const char *nvml_library;
    const char *root;
};

/* The defaults, overridden by CALDERA_NVML_LIBRARY and CALDERA_GPU_ROOT (for tests). */
struct gpu_discovery gpu_discovery_from_env(void);

/* Fills m->gpus (empty first) and m->gpu_product with what NVML reports (a GPU in MIG mode: its MIG
 * devices, and the product "<model> MIG <profile>"), or what the driver's files
 * say when NVML cannot be loaded or fails. Problems are logged; returns the number of devices found. */
int gpu_discover(const struct gpu_discovery *where, struct machine *m);

/* The two ways, for gpu_discover and tests: each returns the number found, or -1 (with a sentence in
 * err) when it cannot tell; NVML returns -2 when its library cannot be loaded (no driver). */
int gpu_discover_nvml(const struct gpu_discovery *where, struct machine *m, char *err, size_t errlen);
int gpu_discover_driver_files(const struct gpu_discovery *where, struct machine *m, char *err, size_t errlen);

/* A MIG profile's name as GPU feature discovery writes it ("1g.10gb", "1c.2g.20gb") from a MIG
 * device's GPU and compute instance slices, its memory (MB) and its parent's memory (bytes). */
void gpu_mig_profile_name(unsigned int gi_slices, unsigned int ci_slices, unsigned long long memory_mb,
                          unsigned long long parent_bytes, char *buf, size_t len);

/* The NUMA node of a PCI device ("0000:17:00.0") from <root>/sys/bus/pci/devices/<id>/numa_node,
 * -1 when unknown (the file says -1 on machines with one NUMA node). */
int gpu_pci_numa_node(const char *root, const char *bus_id);

#endif
