/* The nodes the server runs with, into the store at start-up: one journal entry per node (a
 * Node event and its nodes row as v1 Node JSON), so history shows the cluster each job ran on. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/node.h"
#include "scheduler/controller/internal.h"

int controller_record_nodes(struct controller *ctl)
{
    for (int i = 0; i < ctl->cluster->nnodes; i++) {
        const struct node *n = &ctl->cluster->nodes[i];
        json_t *rendered = node_render(n);
        char *json = rendered ? json_dumps(rendered, JSON_COMPACT) : NULL;
        json_decref(rendered);
        uint64_t rv;
        struct journal_entry *e = json ? record_object_event(ctl, JOURNAL_NODE_PUT, "Node", "", n->name, &rv, "",
                                                             "Ready", "Registered", "node %s registered", n->name)
                                       : NULL;
        if (!e || !(e->node_name = strdup(n->name))) {
            free(json);
            return -1;
        }
        e->node_json = json;
    }
    return 0;
}
