/* kubectl's resource words in jobctl's arguments: `get jobs`, `get job NAME`, `describe job/NAME`,
 * `logs pod/NAME`, `delete ds NAME`, Volcano's short names (vcjob, vj) too. */
#ifndef CALDERA_JOBCTL_KUBE_WORDS_H
#define CALDERA_JOBCTL_KUBE_WORDS_H

#include <stddef.h>

#include "tools/jobctl/args.h"

enum kube_kind { KUBE_NAME_ONLY = -1, KUBE_JOBS, KUBE_PODS, KUBE_QUEUES, KUBE_DEBUGSESSIONS };

/* Reads a's positional arguments the way kubectl does: "KIND NAME", "KIND/NAME", "KIND" alone, or a
 * lone NAME (a word that names no kind: KUBE_NAME_ONLY). *rest gets a's options with the arguments
 * after the kind (the name, if any). Returns 0, or -1 with a sentence in why (an unknown kind, a
 * name too many). */
int kube_split(const struct jobctl_args *a, enum kube_kind *kind, struct jobctl_args *rest, char *why, size_t why_len);

/* One NAME, alone or after a kind whose bit (1u << kind) is in allowed: *kind and *name. Returns 0, or
 * -1 with a sentence in why: kube_split's, wrong_kind for a kind not allowed, no_name without a name. */
int kube_one_name(const struct jobctl_args *a, unsigned allowed, const char *wrong_kind, const char *no_name,
                  enum kube_kind *kind, const char **name, char *why, size_t why_len);

#endif
