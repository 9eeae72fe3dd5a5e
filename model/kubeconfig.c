/* A kubeconfig's context as plain data (model/kubeconfig.h): what freeing it takes, since every
 * string in the struct is its own. */
#include "model/kubeconfig.h"

#include <stdlib.h>
#include <string.h>

static void pem_free(struct kube_pem *p)
{
    free(p->data);
    free(p->file);
}

void kubeconfig_free(struct kubeconfig *kc)
{
    free(kc->context);
    free(kc->cluster_name);
    free(kc->user_name);
    free(kc->server);
    free(kc->tls_server_name);
    pem_free(&kc->ca);
    pem_free(&kc->cert);
    pem_free(&kc->key);
    free(kc->token);
    free(kc->token_file);
    free(kc->username);
    free(kc->password);
    free(kc->ns);
    memset(kc, 0, sizeof *kc);
}
