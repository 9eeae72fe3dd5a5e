/* A ConfigMap or a Secret (core v1): named data in a namespace that pods read through their env and
 * volumes. The core keeps them; a Secret's values leave it only in its own API answers and in the
 * environment and files of the pods that name it. */
#ifndef CALDERA_MODEL_CONFIG_OBJECT_H
#define CALDERA_MODEL_CONFIG_OBJECT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/uuid.h"

enum config_kind { CONFIG_MAP, CONFIG_SECRET };

struct config_object {
    uint8_t kind; /* enum config_kind */
    char *ns;
    char *name;
    char uid[UUID_STR_LEN];
    int64_t created_ms;
    uint64_t resource_version;
    bool immutable;
    /* apiVersion, kind, metadata (the client's part), immutable and the data as the API shows it:
     * a ConfigMap's data (strings) and binaryData (base64), a Secret's type and data (base64, with
     * stringData merged in). Owned. */
    json_t *manifest;
};

void config_object_free(struct config_object *o);

#endif
