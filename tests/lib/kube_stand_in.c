/* The stand-in cluster's token and kubeconfig for the Kubernetes backend's tests and benches
 * (tests/lib/kube_stand_in.h). */
#include "tests/lib/kube_stand_in.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"

bool stand_in_admin_token(const struct test_server *s, char *out, size_t cap)
{
    char path[400], *data = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/admin.token", s->data_dir);
    if (read_file(path, 4096, &data, &len) != 0)
        return false;
    while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == ' '))
        data[--len] = '\0';
    snprintf(out, cap, "%s", data);
    free(data);
    return len > 0;
}

bool stand_in_kubeconfig(const char *path, const char *url, const char *token)
{
    char text[2048];
    snprintf(text, sizeof text,
             "apiVersion: v1\nkind: Config\ncurrent-context: stand-in\n"
             "clusters:\n- name: caldera\n  cluster:\n    server: %s\n"
             "contexts:\n- name: stand-in\n  context: {cluster: caldera, user: admin, namespace: default}\n"
             "users:\n- name: admin\n  user:\n    token: %s\n",
             url, token);
    return write_file_atomic(path, text, strlen(text), 0600) == 0;
}
