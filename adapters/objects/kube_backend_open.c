/* kube_backend_open (runtime/backend.h): reads the kubeconfig that --kubeconfig names, parses it for its
 * current context (kubeconfig.c) and starts the backend on it (runtime/kube/kube_backend.c). */
#include "adapters/objects/kube_backend_open.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/kubeconfig.h"
#include "common/fs.h"
#include "runtime/kube/kube_backend.h"

#define KUBECONFIG_MAX (1u << 20)

int kube_backend_open_with(const struct backend_conf *conf, const struct backend_host *host,
                           const struct kube_client_options *opt, struct backend **out, struct api_status *st)
{
    *out = NULL;
    const char *file = conf ? conf->kubeconfig : NULL;
    char *data = NULL, *dir = NULL;
    size_t len = 0;
    if (!file || !*file)
        return api_fail(st, 400, "BadRequest", "the kubernetes backend needs --kubeconfig FILE");
    if (read_file(file, KUBECONFIG_MAX, &data, &len) != 0)
        return api_fail(st, 400, "BadRequest", "--kubeconfig %s: %s", file, strerror(errno));
    if (!(dir = strdup(file))) {
        free(data);
        return api_fail(st, 500, "InternalError", "out of memory");
    }
    struct kubeconfig kc;
    int rc = kubeconfig_parse(data, len, dirname(dir), NULL, &kc, st);
    free(data);
    free(dir);
    if (rc != 0)
        return -1;
    rc = kube_backend_start(&kc, host, opt, out, st);
    kubeconfig_free(&kc);
    return rc;
}

int kube_backend_open(const struct backend_conf *conf, const struct backend_host *host, struct backend **out,
                      struct api_status *st)
{
    return kube_backend_open_with(conf, host, NULL, out, st);
}
