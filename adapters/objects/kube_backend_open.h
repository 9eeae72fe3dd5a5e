/* Opening the Kubernetes backend from its configuration: the --kubeconfig file read and parsed here
 * (adapters), the backend itself started in runtime/kube/ with the kubeconfig as data. */
#ifndef CALDERA_KUBE_BACKEND_OPEN_H
#define CALDERA_KUBE_BACKEND_OPEN_H

#include "runtime/backend.h"
#include "runtime/kube/kube_client.h"

/* kube_backend_open (runtime/backend.h) with client options: the tests' request recorder. opt may be NULL. */
int kube_backend_open_with(const struct backend_conf *conf, const struct backend_host *host,
                           const struct kube_client_options *opt, struct backend **out, struct api_status *st);

#endif
