/* Finding this machine's GPUs: through NVML (a fake libnvidia-ml.so.1 the Makefile builds, with
 * fixed answers), through the driver's /proc and /dev files (a fake tree under a root prefix), the
 * fallback from a failing NVML to the files, a machine with neither, and the default node made of
 * what was found (nvidia.com/gpu and GPU feature discovery's labels). GPUs in MIG mode give their MIG
 * devices (the single strategy's labels), and NVML's Xid events come through (the fake's Xid file). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapters/objects/node.h"
#include "common/fs.h"
#include "runtime/gpu/gpu_discover.h"
#include "runtime/gpu/gpu_events.h"
#include "tests/lib/fake_nvml_path.h"
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
    REQUIRE(fake_nvml_path(lib, sizeof lib)); /* `make` builds it with this test */
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
    REQUIRE(fake_nvml_path(lib, sizeof lib));
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

static const char *label(const struct node *n, const char *key)
{
    const char *v = json_string_value(json_object_get(n->labels, key));
    return v ? v : "(none)";
}

static void mig_devices_replace_their_gpu(void)
{
    char lib[PATH_MAX];
    REQUIRE(fake_nvml_path(lib, sizeof lib));
    make_tree(false);
    struct gpu_discovery where = {lib, root};
    struct machine m = {0};
    char err[256] = "";
    setenv("FAKE_NVML_MIG", "3,2", 1);
    CHECK_INT(gpu_discover_nvml(&where, &m, err, sizeof err), 5);
    REQUIRE(m.gpus.count == 5);
    const struct gpu_device *first = &m.gpus.devices[0], *fourth = &m.gpus.devices[3];
    CHECK(first->mig);
    CHECK_STR(first->uuid, "MIG-00000000-aaaa-bbbb-cccc-dddddddddddd");
    CHECK_STR(first->parent_uuid, UUID_A);
    CHECK_INT(first->index, 100);
    CHECK_INT(first->memory_mib, 9856);
    CHECK_INT(first->gpu_instance, 7);
    CHECK_INT(first->compute_instance, 0);
    CHECK_INT(first->numa, 0); /* its parent's */
    CHECK_INT(m.gpus.devices[2].gpu_instance, 9);
    CHECK_STR(fourth->uuid, "MIG-10000000-aaaa-bbbb-cccc-dddddddddddd");
    CHECK_STR(fourth->parent_uuid, UUID_B);
    CHECK_INT(fourth->index, 200);
    CHECK_INT(fourth->numa, 1);
    CHECK_STR(m.gpu_product, "NVIDIA H100 80GB HBM3 MIG 1g.10gb");
    struct node n;
    node_from_machine(&n, &m, 0);
    CHECK_INT(n.allocatable.v[RES_GPU], 5);
    CHECK_STR(label(&n, "nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb");
    CHECK_STR(label(&n, "nvidia.com/gpu.memory"), "9856");
    CHECK_STR(label(&n, "nvidia.com/gpu.count"), "5");
    CHECK_STR(label(&n, "nvidia.com/mig.strategy"), "single");
    CHECK(gpu_set_needs_uuids(&n.gpus));
    node_clear(&n);
    /* MIG enabled with no instance gives nothing; that, or a GPU in MIG mode beside a full one, is
     * what GFD's single strategy labels invalid */
    setenv("FAKE_NVML_MIG", "0,2", 1);
    CHECK_INT(gpu_discover_nvml(&where, &m, err, sizeof err), 2);
    CHECK_STR(m.gpus.devices[0].parent_uuid, UUID_B);
    CHECK_STR(m.gpu_product, "NVIDIA H100 80GB HBM3 MIG INVALID"); /* as GFD labels it */
    setenv("FAKE_NVML_MIG", "-,2", 1);
    CHECK_INT(gpu_discover_nvml(&where, &m, err, sizeof err), 3);
    CHECK(!m.gpus.devices[0].mig);
    CHECK_STR(m.gpus.devices[0].uuid, UUID_A);
    CHECK(m.gpus.devices[1].mig);
    CHECK_STR(m.gpu_product, "NVIDIA H100 80GB HBM3 MIG INVALID");
    node_from_machine(&n, &m, 0);
    CHECK_STR(label(&n, "nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3-MIG-INVALID");
    node_clear(&n);
    unsetenv("FAKE_NVML_MIG");
    CHECK_INT(gpu_discover_nvml(&where, &m, err, sizeof err), 2);
    CHECK(!m.gpus.devices[0].mig);
    node_from_machine(&n, &m, 0);
    CHECK_STR(label(&n, "nvidia.com/mig.strategy"), "(none)");
    node_clear(&n);
    gpu_set_clear(&m.gpus);
    remove_tree(root);
}

/* go-nvlib's names for A100 40GB and H100 80GB profiles (memory as NVML reports it). */
static void mig_profile_names(void)
{
    char name[32];
    const unsigned long long a100 = 40960ULL << 20, h100 = 81559ULL << 20;
    gpu_mig_profile_name(1, 1, 4864, a100, name, sizeof name);
    CHECK_STR(name, "1g.5gb");
    gpu_mig_profile_name(3, 3, 19968, a100, name, sizeof name);
    CHECK_STR(name, "3g.20gb");
    gpu_mig_profile_name(7, 7, 40192, a100, name, sizeof name);
    CHECK_STR(name, "7g.40gb");
    gpu_mig_profile_name(3, 1, 19968, a100, name, sizeof name);
    CHECK_STR(name, "1c.3g.20gb");
    gpu_mig_profile_name(1, 1, 9856, h100, name, sizeof name);
    CHECK_STR(name, "1g.10gb");
    gpu_mig_profile_name(2, 2, 20096, h100, name, sizeof name);
    CHECK_STR(name, "2g.20gb");
}

static void xid_events_come_through(void)
{
    char lib[PATH_MAX], xids[] = "/tmp/caldera-xid-XXXXXX";
    REQUIRE(fake_nvml_path(lib, sizeof lib));
    int fd = mkstemp(xids);
    REQUIRE(fd >= 0);
    close(fd);
    setenv("FAKE_NVML_XID_FILE", xids, 1);
    struct gpu_discovery where = {lib, ""};
    char err[256] = "";
    struct gpu_events *e = gpu_events_open(&where, err, sizeof err);
    REQUIRE(e);
    struct gpu_xid_event ev;
    CHECK_INT(gpu_events_wait(e, 50, &ev, err, sizeof err), 0); /* nothing yet: the timeout */
    const char *lines = "1 79\n0 48 8 0\n";
    REQUIRE(write_file_atomic(xids, lines, strlen(lines), 0644) == 0);
    CHECK_INT(gpu_events_wait(e, 1000, &ev, err, sizeof err), 1);
    CHECK_STR(ev.uuid, UUID_B);
    CHECK_INT(ev.xid, 79);
    CHECK_INT(ev.gpu_instance, 0xFFFFFFFFu);
    CHECK_INT(gpu_events_wait(e, 1000, &ev, err, sizeof err), 1);
    CHECK_STR(ev.uuid, UUID_A);
    CHECK_INT(ev.xid, 48);
    CHECK_INT(ev.gpu_instance, 8);
    CHECK_INT(ev.compute_instance, 0);
    CHECK_INT(gpu_events_wait(e, 50, &ev, err, sizeof err), 0); /* each once */
    gpu_events_close(e);
    CHECK(gpu_xid_is_application_error(13));
    CHECK(gpu_xid_is_application_error(109));
    CHECK(!gpu_xid_is_application_error(48)); /* double-bit ECC */
    CHECK(!gpu_xid_is_application_error(79)); /* fallen off the bus */
    /* no library, no events: said why */
    where.nvml_library = "/nonexistent/libnvidia-ml.so.1";
    CHECK(!gpu_events_open(&where, err, sizeof err));
    CHECK_CONTAINS(err, "cannot load");
    unsetenv("FAKE_NVML_XID_FILE");
    unlink(xids);
}

TEST_MAIN(TEST_CASE(mig_devices_replace_their_gpu), TEST_CASE(mig_profile_names), TEST_CASE(xid_events_come_through),
          TEST_CASE(driver_files_in_pci_order), TEST_CASE(device_files_alone), TEST_CASE(nvml_reports_devices),
          TEST_CASE(failing_nvml_falls_back_to_files), TEST_CASE(no_gpu_is_no_error))
