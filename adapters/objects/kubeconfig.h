/* A kubeconfig file (YAML, as kubectl reads it) into struct kubeconfig: the context to use, its cluster
 * (server, certificate authority, insecure-skip-tls-verify, tls-server-name), its user (token, tokenFile,
 * client certificate and key, inline or by path; basic auth) and its namespace. Pure: paths are resolved
 * against the file's directory but never opened. */
#ifndef CALDERA_KUBECONFIG_PARSE_H
#define CALDERA_KUBECONFIG_PARSE_H

#include <stddef.h>

#include "common/api_status.h"
#include "model/kubeconfig.h"

/* Reads data (the kubeconfig's text) for the context named `context`, or current-context when NULL;
 * relative paths are joined to dir (the file's directory; NULL leaves them as written). Returns 0 with
 * *out filled, or -1 with st naming every mistake with its path and line ("kubeconfig is invalid:
 * [users[0].user.client-key-data: Invalid value: not base64 (line 19, column 22)]") and *out empty.
 * Credential plugins (exec, auth-provider) are refused: a server's process has no one to ask. */
int kubeconfig_parse(const char *data, size_t len, const char *dir, const char *context, struct kubeconfig *out,
                     struct api_status *st);

#endif
