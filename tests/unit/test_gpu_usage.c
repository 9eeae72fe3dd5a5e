/* GPU usage per attempt: which sample is a node device's (by UUID, else by index), the rounds summed
 * into mean and peak utilisation and peak memory, and what the sampler reads of the fake
 * libnvidia-ml.so.1 the Makefile builds (utilisation and memory set through its environment). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/gpu_usage.h"
#include "runtime/gpu/gpu_sampler.h"
#include "tests/lib/fake_nvml_path.h"
#include "tests/lib/test.h"

#define UUID_A "GPU-11111111-2222-3333-4444-555555555555"
#define UUID_B "GPU-66666666-7777-8888-9999-000000000000"

static struct gpu_sample sample(int32_t index, const char *uuid, int32_t util, int64_t used)
{
    struct gpu_sample g = {.index = index, .util = util, .used_mib = used, .free_mib = 1000 - used};
    snprintf(g.uuid, sizeof g.uuid, "%s", uuid);
    return g;
}

/* A node of three devices: 0 and 1 named by UUID, 2 without one. */
static void three_devices(struct gpu_set *s)
{
    struct gpu_device d0 = {.index = 0, .uuid = UUID_A}, d1 = {.index = 1, .uuid = UUID_B}, d2 = {.index = 2};
    REQUIRE(gpu_set_add(s, &d0) == 0 && gpu_set_add(s, &d1) == 0 && gpu_set_add(s, &d2) == 0);
}

static void samples_are_found_by_uuid_then_index(void)
{
    /* NVML lists B first: the UUID wins over the index */
    struct gpu_sample all[] = {sample(0, UUID_B, 10, 1), sample(1, UUID_A, 20, 2), sample(2, "GPU-other", 30, 3)};
    struct gpu_set s = {0};
    three_devices(&s);
    CHECK(gpu_sample_for(all, 3, &s.devices[0]) == &all[1]);
    CHECK(gpu_sample_for(all, 3, &s.devices[1]) == &all[0]);
    CHECK(gpu_sample_for(all, 3, &s.devices[2]) == &all[2]);         /* no UUID: the same index */
    struct gpu_device listed = {.index = 1, .uuid = "GPU-aaaa0001"}; /* a virtual node's: index 1 */
    CHECK(gpu_sample_for(all, 3, &listed) == &all[1]);
    struct gpu_device absent = {.index = 7, .uuid = "GPU-none"};
    CHECK(gpu_sample_for(all, 3, &absent) == NULL);
    gpu_set_clear(&s);
}

static void rounds_give_mean_and_peaks(void)
{
    struct gpu_set s = {0};
    three_devices(&s);
    struct gpu_usage u = {0};
    CHECK(gpu_usage_mean(&u) < 0); /* never sampled */
    uint64_t both = 3;             /* devices 0 and 1 */
    struct gpu_sample r1[] = {sample(0, UUID_A, 40, 100), sample(1, UUID_B, 80, 300), sample(2, "", 100, 900)};
    CHECK_INT(gpu_usage_add(&u, &s, both, r1, 3), 1);
    struct gpu_sample r2[] = {sample(0, UUID_A, 0, 500), sample(1, UUID_B, 20, 50), sample(2, "", 100, 900)};
    CHECK_INT(gpu_usage_add(&u, &s, both, r2, 3), 1);
    CHECK_INT(u.rounds, 2);
    CHECK(gpu_usage_mean(&u) > 34.99 && gpu_usage_mean(&u) < 35.01); /* (60 + 10) / 2; device 2 is not its */
    CHECK_INT(u.util_peak, 80);
    CHECK_INT(u.memory_peak, 550); /* 500 + 50 in the second round beats 100 + 300 */
    /* a device whose utilisation NVML refused is left out of the round's mean */
    struct gpu_sample r3[] = {sample(0, UUID_A, -1, 10), sample(1, UUID_B, 65, 10)};
    CHECK_INT(gpu_usage_add(&u, &s, both, r3, 2), 1);
    CHECK(gpu_usage_mean(&u) > 44.99 && gpu_usage_mean(&u) < 45.01); /* (60 + 10 + 65) / 3 */
    /* a round without any of its devices adds nothing */
    struct gpu_sample other[] = {sample(5, "GPU-x", 99, 999)};
    CHECK_INT(gpu_usage_add(&u, &s, both, other, 1), 0);
    CHECK_INT(u.rounds, 3);
    CHECK_INT(u.util_peak, 80);
    gpu_set_clear(&s);
}

static void sampler_reads_the_fake_nvml(void)
{
    char lib[PATH_MAX];
    REQUIRE(fake_nvml_path(lib, sizeof lib)); /* `make` builds it with this test */
    setenv("FAKE_NVML_UTIL", "37,90", 1);
    setenv("FAKE_NVML_USED_MIB", "1024,2048", 1);
    struct gpu_discovery where = {lib, ""};
    char err[256] = "";
    struct gpu_sampler *s = gpu_sampler_open(&where, err, sizeof err);
    REQUIRE(s != NULL);
    struct gpu_sample out[4];
    REQUIRE(gpu_sampler_read(s, out, 4, err, sizeof err) == 2);
    CHECK_STR(out[0].uuid, UUID_A);
    CHECK_STR(out[0].model, "NVIDIA H100 80GB HBM3");
    CHECK_INT(out[0].util, 37);
    CHECK_INT(out[0].used_mib, 1024);
    CHECK_INT(out[0].free_mib, 81559 - 1024);
    CHECK_INT(out[1].index, 1);
    CHECK_INT(out[1].util, 90);
    CHECK_INT(out[1].used_mib, 2048);
    setenv("FAKE_NVML_UTIL", "5", 1); /* read again at each call */
    REQUIRE(gpu_sampler_read(s, out, 1, err, sizeof err) == 1);
    CHECK_INT(out[0].util, 5);
    gpu_sampler_close(s);
    unsetenv("FAKE_NVML_UTIL");
    unsetenv("FAKE_NVML_USED_MIB");
}

static void sampler_without_nvml_says_why(void)
{
    struct gpu_discovery where = {"/nonexistent/libnvidia-ml.so.1", ""};
    char err[256] = "";
    CHECK(gpu_sampler_open(&where, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "cannot load /nonexistent/libnvidia-ml.so.1");
    char lib[PATH_MAX];
    REQUIRE(fake_nvml_path(lib, sizeof lib));
    setenv("FAKE_NVML_INIT_ERROR", "9", 1);
    where.nvml_library = lib;
    CHECK(gpu_sampler_open(&where, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "nvmlInit_v2 failed with NVML error 9");
    unsetenv("FAKE_NVML_INIT_ERROR");
}

TEST_MAIN(TEST_CASE(samples_are_found_by_uuid_then_index), TEST_CASE(rounds_give_mean_and_peaks),
          TEST_CASE(sampler_reads_the_fake_nvml), TEST_CASE(sampler_without_nvml_says_why))
