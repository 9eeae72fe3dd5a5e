/* Finding this machine's GPUs: through NVML (a fake libnvidia-ml.so.1 the Makefile builds, with
 * fixed answers), through the driver's /proc and /dev files (a fake tree under a root prefix), the
 * fallback from a failing NVML to the files, a machine with neither, and the default node made of
 * what was found (nvidia.com/gpu and GPU feature discovery's labels). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapters/objects/node.h"
#include "common/fs.h"
#include "runtime/gpu/gpu_discover.h"
#include "tests/lib/test.h"

#define UUID_A "GPU-11111111-2222-3333-4444-555555555555"
#define UUID_B "GPU-66666666-7777-8888-9999-000000000000"

static char root[64];

static void put(const char *rel, const char *text)
{
    char path[PATH_MAX], dir[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    mkdir_p(dir, 0755);
    write_file_atomic(path, text, strlen(text), 0644);
}

/* Two GPUs as the driver shows them (listed out of PCI order), their NUMA nodes, their device files. */
static void make_tree(bool with_proc)
{
    snprintf(root, sizeof root, "/tmp/caldera-gpu-XXXXXX");
    if (!mkdtemp(root))
        return;
    if (with_proc) {
        put("proc/driver/nvidia/gpus/0000:65:00.0/information",
            "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 120\nGPU UUID: \t " UUID_B
            "\nBus Type: \t PCIe\nBus Location: \t 0000:65:00.0\nDevice Minor: \t 1\n");
        put("proc/driver/nvidia/gpus/0000:17:00.0/information",
            "Model: \t\t NVIDIA H100 80GB HBM3\nGPU UUID: \t " UUID_A "\nBus Location: \t 0000:17:00.0\n");
    }
    put("sys/bus/pci/devices/0000:17:00.0/numa_node", "0\n");
    put("sys/bus/pci/devices/0000:65:00.0/numa_node", "1\n");
    put("dev/nvidia0", "");
    put("dev/nvidia1", "");
    put("dev/nvidia10", "");
    put("dev/nvidiactl", "");
    put("dev/nvidia-uvm", "");
}

/* build/fake/libnvidia-ml.so.1, beside this test's build folder (build/asan/tests/unit). */
static bool fake_nvml(char *path, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    *strrchr(exe, '/') = '\0';
    snprintf(path, len, "%s/../../../fake/libnvidia-ml.so.1", exe);
    return access(path, R_OK) == 0;
}

static void driver_files_in_pci_order(void)
{
    make_tree(true);
    struct gpu_discovery where = {"none", root};
    struct machine m = {0};
    char err[256];
    REQUIRE(gpu_discover_driver_files(&where, &m, err, sizeof err) == 2);
    CHECK_INT(m.gpus.devices[0].index, 0);
    CHECK_STR(m.gpus.devices[0].uuid, UUID_A);
    CHECK_INT(m.gpus.devices[0].numa, 0);
    CHECK_INT(m.gpus.devices[1].index, 1);
    CHECK_STR(m.gpus.devices[1].uuid, UUID_B);
    CHECK_INT(m.gpus.devices[1].numa, 1);
    CHECK_STR(m.gpu_product, "NVIDIA H100 80GB HBM3");
    gpu_set_clear(&m.gpus);
    remove_tree(root);
}

static void device_files_alone(void)
{
    make_tree(false);
    struct gpu_discovery where = {"none", root};
    struct machine m = {0};
    CHECK_INT(gpu_discover(&where, &m), 3);
    REQUIRE(m.gpus.count == 3);
    CHECK_INT(m.gpus.devices[0].index, 0);
    CHECK_INT(m.gpus.devices[1].index, 1);
    CHECK_INT(m.gpus.devices[2].index, 10); /* by number, not by name */
    CHECK_STR(m.gpus.devices[2].uuid, "");
    CHECK_INT(m.gpus.devices[2].numa, -1);
    CHECK_STR(m.gpu_product, "");
    gpu_set_clear(&m.gpus);
    remove_tree(root);
}

static void nvml_reports_devices(void)
{
    char lib[PATH_MAX];
    REQUIRE(fake_nvml(lib, sizeof lib)); /* `make` builds it with this test */
    make_tree(false);
    struct gpu_discovery where = {lib, root};
    struct machine m = {0};
    char err[256] = "";
    CHECK_INT(gpu_discover_nvml(&where, &m, err, sizeof err), 2);
    REQUIRE(m.gpus.count == 2);
    CHECK_STR(m.gpus.devices[0].uuid, UUID_A);
    CHECK_INT(m.gpus.devices[0].memory_mib, 81559);
    CHECK_INT(m.gpus.devices[0].numa, 0); /* bus 0x17 in the fake sysfs */
    CHECK_INT(m.gpus.devices[1].index, 1);
    CHECK_INT(m.gpus.devices[1].numa, 1);
    CHECK_STR(m.gpu_product, "NVIDIA H100 80GB HBM3");
    struct node n;
    node_from_machine(&n, &m, 0);
    CHECK_INT(n.allocatable.v[RES_GPU], 2);
    CHECK_INT(n.gpus.count, 2);
    CHECK_STR(json_string_value(json_object_get(n.labels, "nvidia.com/gpu.product")), "NVIDIA-H100-80GB-HBM3");
    CHECK_STR(json_string_value(json_object_get(n.labels, "nvidia.com/gpu.memory")), "81559");
    CHECK_STR(json_string_value(json_object_get(n.labels, "nvidia.com/gpu.count")), "2");
    node_clear(&n);
    gpu_set_clear(&m.gpus);
    remove_tree(root);
}

static void failing_nvml_falls_back_to_files(void)
{
    char lib[PATH_MAX];
    REQUIRE(fake_nvml(lib, sizeof lib));
    make_tree(true);
    setenv("FAKE_NVML_INIT_ERROR", "9", 1); /* NVML_ERROR_DRIVER_NOT_LOADED */
    struct gpu_discovery where = {lib, root};
    struct machine m = {0};
    char err[256] = "";
    CHECK_INT(gpu_discover_nvml(&where, &m, err, sizeof err), -1);
    CHECK_CONTAINS(err, "nvmlInit_v2 failed with NVML error 9");
    CHECK_INT(gpu_discover(&where, &m), 2);
    CHECK_STR(m.gpus.devices[1].uuid, UUID_B);
    CHECK_INT(m.gpus.devices[1].memory_mib, 0); /* the files do not say */
    unsetenv("FAKE_NVML_INIT_ERROR");
    gpu_set_clear(&m.gpus);
    remove_tree(root);
}

static void no_gpu_is_no_error(void)
{
    snprintf(root, sizeof root, "/tmp/caldera-gpu-XXXXXX");
    REQUIRE(mkdtemp(root));
    struct gpu_discovery where = {"/nonexistent/libnvidia-ml.so.1", root};
    struct machine m = {0};
    char err[256] = "";
    CHECK_INT(gpu_discover_nvml(&where, &m, err, sizeof err), -2);
    CHECK_INT(gpu_discover(&where, &m), 0);
    CHECK_INT(m.gpus.count, 0);
    struct node n;
    node_from_machine(&n, &m, 0);
    CHECK_INT(n.allocatable.v[RES_GPU], 0);
    CHECK(!json_object_get(n.labels, "nvidia.com/gpu.count"));
    node_clear(&n);
    remove_tree(root);
}

TEST_MAIN(TEST_CASE(driver_files_in_pci_order), TEST_CASE(device_files_alone), TEST_CASE(nvml_reports_devices),
          TEST_CASE(failing_nvml_falls_back_to_files), TEST_CASE(no_gpu_is_no_error))
