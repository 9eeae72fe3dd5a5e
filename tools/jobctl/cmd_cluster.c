/* `jobctl nodes` and `jobctl queues`: the cluster-wide objects (Kubernetes Nodes and Volcano
 * Queues) as tables. */
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/output.h"

int cmd_nodes(const struct jobctl_args *a) { return show_list(a, CORE_API "/nodes", &VIEW_NODES, "nodes", ""); }

int cmd_queues(const struct jobctl_args *a)
{
    return show_list(a, VOLCANO_SCHEDULING_API "/queues", &VIEW_QUEUES, "queues", "");
}
