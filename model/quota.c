/* Namespace quotas; see quota.h. Parsing and rendering live in adapters/, enforcement in the quota
 * plugin. */
#include "model/quota.h"

#include <stdlib.h>

void resource_quota_free(struct resource_quota *q)
{
    if (!q)
        return;
    free(q->ns);
    free(q->name);
    json_decref(q->manifest);
    free(q);
}
