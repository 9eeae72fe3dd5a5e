/* tests/lib/slurm-cluster driven from C: its KEY=VALUE lines into struct slurm_cluster (see
 * slurm_cluster.h). */

#include "tests/lib/slurm_cluster.h"

#include <stddef.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void take(const char *line, const char *key, char *dst, size_t n)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k) == 0 && line[k] == '=')
        snprintf(dst, n, "%.*s", (int)strcspn(line + k + 1, "\n"), line + k + 1);
}

static int start_once(struct slurm_cluster *c, int accounting, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    snprintf(c->dir, sizeof c->dir, "/tmp/caldera-slurm.XXXXXX");
    if (!mkdtemp(c->dir)) {
        snprintf(err, errlen, "mkdtemp failed");
        return -1;
    }
    char cmd[600], line[2048], ms[32] = "", acct[32] = "";
    snprintf(cmd, sizeof cmd, "SLURM_ACCOUNTING=%d tests/lib/slurm-cluster start %s 2>%s/start.err", accounting, c->dir,
             c->dir);
    FILE *p = popen(cmd, "r");
    if (!p) {
        snprintf(err, errlen, "cannot run tests/lib/slurm-cluster");
        return -1;
    }
    while (fgets(line, sizeof line, p)) {
        take(line, "SLURM_CONF", c->conf, sizeof c->conf);
        take(line, "SLURMRESTD_URL", c->url, sizeof c->url);
        take(line, "SLURM_USER", c->user, sizeof c->user);
        take(line, "SLURM_JWT", c->token, sizeof c->token);
        take(line, "SLURM_START_MS", ms, sizeof ms);
        take(line, "SLURM_ACCOUNTING", acct, sizeof acct);
    }
    int st = pclose(p);
    c->start_ms = atol(ms);
    c->accounting = acct[0] != '\0';
    if (st != 0 || !c->url[0] || !c->token[0]) {
        char path[300];
        snprintf(path, sizeof path, "%s/start.err", c->dir);
        FILE *f = fopen(path, "r");
        size_t n = f ? fread(err, 1, errlen - 1, f) : 0;
        err[n] = '\0';
        err[strcspn(err, "\n")] = '\0';
        if (f)
            fclose(f);
        if (!n)
            snprintf(err, errlen, "tests/lib/slurm-cluster failed");
        slurm_cluster_stop(c);
        return -1;
    }
    setenv("SLURM_CONF", c->conf, 1);
    return 0;
}

/* The free ports are probed, then bound by the daemons: a test beside this one may take one in between,
 * and the controller then stops at once ("Address already in use"). That start is tried again with new
 * ports; anything else is the machine's answer. */
static int start(struct slurm_cluster *c, int accounting, char *err, size_t errlen)
{
    for (int attempt = 0;; attempt++) {
        if (start_once(c, accounting, err, errlen) == 0)
            return 0;
        if (attempt == 2 || !strstr(err, "Address already in use"))
            return -1;
        fprintf(stderr, "slurm-cluster: %s; trying again with other ports\n", err);
    }
}

int slurm_cluster_start(struct slurm_cluster *c, char *err, size_t errlen) { return start(c, 0, err, errlen); }

int slurm_cluster_start_accounting(struct slurm_cluster *c, char *err, size_t errlen)
{
    return start(c, 1, err, errlen);
}

int slurm_cluster_restd(struct slurm_cluster *c, int up)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "tests/lib/slurm-cluster %s %s", up ? "restd-start" : "restd-stop", c->dir);
    return system(cmd) == 0 ? 0 : -1;
}

void slurm_cluster_stop(struct slurm_cluster *c)
{
    if (!c->dir[0])
        return;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "tests/lib/slurm-cluster stop %s; rm -rf %s", c->dir, c->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "slurm-cluster stop failed\n");
    c->dir[0] = '\0';
}
