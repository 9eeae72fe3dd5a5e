/* Which engine runs a job (this machine, Kubernetes with Volcano, or Slurm) and where each engine is:
 * plain data that the daemon reads, the controller routes by and runtime/backend.h's engines open with. */
#ifndef CALDERA_MODEL_BACKEND_CONF_H
#define CALDERA_MODEL_BACKEND_CONF_H

enum backend_kind { BACKEND_LOCAL, BACKEND_KUBERNETES, BACKEND_SLURM, BACKEND_KIND_COUNT };

/* "local", "kubernetes", "slurm"; "unknown" out of range. */
const char *backend_kind_name(enum backend_kind k);
/* The kind of that name, or -1. */
int backend_kind_parse(const char *s);

/* Where each backend is, from --backends FILE and the flags (adapters/objects/backend_conf.c). */
struct backend_conf {
    enum backend_kind default_kind; /* --backend; local unless said */
    char *kubeconfig;               /* --kubeconfig / kubernetes.kubeconfig */
    char *slurmrestd;               /* --slurmrestd / slurm.url: "http://127.0.0.1:6820" */
    char *slurm_token_file;         /* slurm.tokenFile: a JWT (X-SLURM-USER-TOKEN); NULL: none */
    char *slurm_user;               /* slurm.user: X-SLURM-USER-NAME (default: the server's user) */
    char *slurm_partition;          /* slurm.partition; NULL: the cluster's default */
    char *slurm_work_dir;           /* slurm.workDir: shared by the cluster's nodes (scripts, outputs) */
    struct backend_queue_route {
        char *queue;
        enum backend_kind kind;
    } * queues;
    int nqueues;
};

/* The backend that runs a queue's jobs. */
enum backend_kind backend_conf_route(const struct backend_conf *conf, const char *queue);
void backend_conf_free(struct backend_conf *conf);

#endif
