/* `jobctl flow ACTION`: Volcano JobFlows (submit a file of JobTemplates and JobFlows, get, delete,
 * retry). Declared beside its file, handled in commands.c. */
#ifndef CALDERA_JOBCTL_CMD_FLOW_H
#define CALDERA_JOBCTL_CMD_FLOW_H

#include "tools/jobctl/args.h"

int cmd_flow(const struct jobctl_args *a);

#endif
