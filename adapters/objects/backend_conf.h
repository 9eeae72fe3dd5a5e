/* The --backends file: which engine runs each queue's jobs and where each engine is (Kubernetes by a
 * kubeconfig, Slurm by slurmrestd's URL), read into runtime/backend.h's struct backend_conf. */
#ifndef CALDERA_BACKEND_CONF_H
#define CALDERA_BACKEND_CONF_H

#include <stddef.h>

#include "common/api_status.h"
#include "model/backend_conf.h"

/* Reads the file into *out, on top of what the flags set there (--backend, --kubeconfig,
 * --slurmrestd: the file's values win where it has them). Returns 0, or -1 with st naming each field
 * and line that is wrong. */
int backend_conf_parse(const char *data, size_t len, struct backend_conf *out, struct api_status *st);
/* Every route names a backend the configuration says where to reach. Returns 0, or -1 with st. */
int backend_conf_check(const struct backend_conf *conf, struct api_status *st);

#endif
