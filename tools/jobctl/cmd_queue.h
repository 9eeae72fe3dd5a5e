/* `jobctl queue ACTION NAME`: the one command that changes Volcano Queues (create with weight,
 * capability and reclaimable; open, close, delete). Declared beside its file, handled in commands.c. */
#ifndef CALDERA_JOBCTL_CMD_QUEUE_H
#define CALDERA_JOBCTL_CMD_QUEUE_H

#include "tools/jobctl/args.h"

int cmd_queue(const struct jobctl_args *a);

#endif
