/* Waiting on NVML's events (gpu_events.h): one event set with every GPU registered for Xid critical
 * errors and ECC errors (what the device plugin registers, each GPU as far as it supports them); only
 * Xid critical errors are handed on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "runtime/gpu/gpu_events.h"
#include "runtime/gpu/nvml_api.h"

struct gpu_events {
    struct nvml_api api;
    nvml_event_set set;
};

static int events_needs(const struct nvml_api *api)
{
    return api->uuid && api->event_set_create && api->event_set_free && api->register_events && api->event_wait;
}

bool gpu_xid_is_application_error(unsigned long long xid)
{
    static const unsigned long long ignored[] = {13, 31, 43, 45, 68, 109};
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
        if (xid == ignored[i])
            return true;
    return false;
}

/* Registers GPU i; a GPU that cannot be watched is logged and left out. Returns 1 when registered. */
static int register_gpu(struct gpu_events *e, unsigned int i)
{
    const unsigned long long wanted = NVML_EVENT_XID_CRITICAL | NVML_EVENT_DOUBLE_BIT_ECC | NVML_EVENT_SINGLE_BIT_ECC;
    nvml_device dev;
    unsigned long long supported = wanted;
    nvml_return rc = e->api.handle(i, &dev);
    if (rc == NVML_SUCCESS && e->api.supported_events && e->api.supported_events(dev, &supported) != NVML_SUCCESS)
        supported = 0;
    if (rc == NVML_SUCCESS && (supported & NVML_EVENT_XID_CRITICAL))
        rc = e->api.register_events(dev, wanted & supported, e->set);
    else if (rc == NVML_SUCCESS)
        rc = NVML_ERROR_NOT_SUPPORTED;
    if (rc != NVML_SUCCESS)
        log_warn("GPU %u: its Xid errors cannot be watched (NVML error %d)", i, rc);
    return rc == NVML_SUCCESS;
}

struct gpu_events *gpu_events_open(const struct gpu_discovery *where, char *err, size_t errlen)
{
    struct gpu_events *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (nvml_api_open(where->nvml_library, "the Xid watch", events_needs, &e->api, err, errlen) != 0) {
        free(e);
        return NULL;
    }
    unsigned int count = 0;
    nvml_return rc = e->api.count(&count);
    if (rc == NVML_SUCCESS)
        rc = e->api.event_set_create(&e->set);
    int registered = 0;
    for (unsigned int i = 0; rc == NVML_SUCCESS && i < count; i++)
        registered += register_gpu(e, i);
    if (rc != NVML_SUCCESS || registered == 0) {
        if (rc != NVML_SUCCESS)
            snprintf(err, errlen, "NVML's event set failed with NVML error %d", rc);
        else
            snprintf(err, errlen, "no GPU supports Xid events");
        gpu_events_close(e);
        return NULL;
    }
    return e;
}

int gpu_events_wait(struct gpu_events *e, unsigned int timeout_ms, struct gpu_xid_event *out, char *err, size_t errlen)
{
    struct nvml_event_data data;
    memset(&data, 0, sizeof data);
    nvml_return rc = e->api.event_wait(e->set, &data, timeout_ms);
    if (rc == NVML_ERROR_TIMEOUT)
        return 0;
    if (rc != NVML_SUCCESS) {
        snprintf(err, errlen, "nvmlEventSetWait_v2 failed with NVML error %d", rc);
        return -1;
    }
    if (data.event_type != NVML_EVENT_XID_CRITICAL)
        return 0;
    memset(out, 0, sizeof *out);
    if (!data.device || e->api.uuid(data.device, out->uuid, sizeof out->uuid) != NVML_SUCCESS)
        out->uuid[0] = '\0'; /* the device plugin then marks every device */
    out->xid = data.event_data;
    out->gpu_instance = data.gpu_instance_id;
    out->compute_instance = data.compute_instance_id;
    return 1;
}

void gpu_events_close(struct gpu_events *e)
{
    if (!e)
        return;
    if (e->set)
        e->api.event_set_free(e->set);
    nvml_api_close(&e->api);
    free(e);
}
