/* A Kubernetes API server as one kubeconfig context names it: where it is, how to trust it and who we
 * are to it. Plain data: adapters/objects/kubeconfig.c reads the file into it, runtime/kube/ uses it. */
#ifndef CALDERA_MODEL_KUBECONFIG_H
#define CALDERA_MODEL_KUBECONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* Bytes given inline (a *-data field, base64-decoded) or a file's path (absolute: a relative path in
 * the kubeconfig is resolved against the file's directory, as kubectl does). At most one is set. */
struct kube_pem {
    char *data; /* NUL-terminated after len bytes */
    size_t len;
    char *file;
};

struct kubeconfig {
    char *context; /* the context used: current-context, or the one asked for */
    char *cluster_name, *user_name;
    char *server; /* "https://10.0.0.1:6443", no trailing slash */
    char *tls_server_name;
    bool insecure; /* insecure-skip-tls-verify */
    struct kube_pem ca, cert, key;
    char *token;      /* users[].user.token */
    char *token_file; /* users[].user.tokenFile, read at each use (projected tokens rotate) */
    char *username, *password;
    char *ns; /* the context's namespace, "default" when it names none */
};

void kubeconfig_free(struct kubeconfig *kc);

#endif
