/* ConfigMaps and Secrets on the core thread: kept in the cluster, stored as objects rows (kinds
 * ConfigMap and Secret), each change one event whose message never carries a value. */
#ifndef CALDERA_CONTROLLER_CONFIGS_H
#define CALDERA_CONTROLLER_CONFIGS_H

#include <stdint.h>

#include "common/api_status.h"
#include "scheduler/controller/controller.h"

/* The object of kind in ns named name, or NULL. */
struct config_object *controller_find_config(const struct cluster *c, enum config_kind kind, const char *ns,
                                             const char *name);
/* Create: name free in its namespace and kind (409). Update: exists (404), resourceVersion matches
 * when given (409), immutable data and a Secret's type kept (422); uid and creation time carry
 * over. On success the cluster owns o; on failure the caller still does. */
struct config_object *controller_create_config(struct controller *ctl, struct config_object *o, struct api_status *st);
struct config_object *controller_update_config(struct controller *ctl, struct config_object *o, struct api_status *st);
int controller_delete_config(struct controller *ctl, enum config_kind kind, const char *ns, const char *name,
                             uint64_t *seq, struct api_status *st);
/* Recovery of a stored ConfigMap or Secret row. */
int controller_restore_config(struct controller *ctl, enum config_kind kind, const char *json, const char *ns,
                              const char *name);

#endif
