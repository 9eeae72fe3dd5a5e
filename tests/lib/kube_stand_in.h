/* A jobserver standing in for a Kubernetes cluster, as the Kubernetes backend's tests and benches reach
 * it: its bootstrap admin token (the bearer token) and a kubeconfig naming it. */
#ifndef CALDERA_TEST_KUBE_STAND_IN_H
#define CALDERA_TEST_KUBE_STAND_IN_H

#include <stdbool.h>
#include <stddef.h>

#include "tests/lib/server.h"

/* <data_dir>/admin.token without its trailing newline into out; false when missing or empty. */
bool stand_in_admin_token(const struct test_server *s, char *out, size_t cap);
/* A kubeconfig at path (0600) whose one context names url with the bearer token inline, namespace
 * default. False when it cannot be written. */
bool stand_in_kubeconfig(const char *path, const char *url, const char *token);

#endif
