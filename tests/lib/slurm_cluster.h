/* A throwaway Slurm cluster for a test (tests/lib/slurm-cluster): slurmctld, three slurmd and slurmrestd
 * on loopback in a temp dir, stopped by killing their process group. */
#ifndef CALDERA_TEST_SLURM_CLUSTER_H
#define CALDERA_TEST_SLURM_CLUSTER_H

#include <stddef.h>

struct slurm_cluster {
    char dir[256];
    char conf[300];
    char url[64];
    char user[32];
    char token[1024];
    long start_ms;  /* from the first daemon's start to slurmrestd answering */
    int accounting; /* slurmdbd (with its MariaDB) runs: sacct answers */
};

/* Starts one, exporting SLURM_CONF for the Slurm commands. Returns 0, or -1 with why in err (not root,
 * no packages, a daemon that would not start: the caller skips). */
int slurm_cluster_start(struct slurm_cluster *c, char *err, size_t errlen);
/* The same with accounting: slurmdbd and a MariaDB on a socket in the cluster's dir (some 10 s more). */
int slurm_cluster_start_accounting(struct slurm_cluster *c, char *err, size_t errlen);
/* Stops slurmrestd alone (up false) or starts it again on its port (up true: returns once it answers).
 * Returns 0 or -1. */
int slurm_cluster_restd(struct slurm_cluster *c, int up);
/* Stops the daemons and removes the directory. */
void slurm_cluster_stop(struct slurm_cluster *c);

#endif
