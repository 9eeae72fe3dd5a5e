/* Which engine runs a job: this machine, Kubernetes with Volcano, or Slurm (runtime/backend.h has the
 * interface). Plain names, so the model and the renderers can store and show them. */
#ifndef CALDERA_BACKEND_KIND_H
#define CALDERA_BACKEND_KIND_H

enum backend_kind { BACKEND_LOCAL, BACKEND_KUBERNETES, BACKEND_SLURM, BACKEND_KIND_COUNT };

/* "local", "kubernetes", "slurm"; "unknown" out of range. */
const char *backend_kind_name(enum backend_kind k);
/* The kind of that name, or -1. */
int backend_kind_parse(const char *s);

#endif
