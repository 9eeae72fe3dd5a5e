/* kubectl's resource words read off jobctl's positional arguments: the kinds jobctl shows (jobs, pods,
 * queues, debug sessions) by kubectl's names and the short names, before a name or joined to it with a
 * slash. */
#include "tools/jobctl/kube_words.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *word;
    enum kube_kind kind;
} WORDS[] = {
    {"jobs", KUBE_JOBS},
    {"job", KUBE_JOBS},
    {"vcjob", KUBE_JOBS},
    {"vcjobs", KUBE_JOBS},
    {"vj", KUBE_JOBS},
    {"jobs.batch.volcano.sh", KUBE_JOBS},
    {"job.batch.volcano.sh", KUBE_JOBS},
    {"pods", KUBE_PODS},
    {"pod", KUBE_PODS},
    {"po", KUBE_PODS},
    {"queues", KUBE_QUEUES},
    {"queue", KUBE_QUEUES},
    {"q", KUBE_QUEUES},
    {"queues.scheduling.volcano.sh", KUBE_QUEUES},
    {"debugsessions", KUBE_DEBUGSESSIONS},
    {"debugsession", KUBE_DEBUGSESSIONS},
    {"ds", KUBE_DEBUGSESSIONS},
};

/* The kind the n bytes at word name, or KUBE_NAME_ONLY. */
static enum kube_kind kind_of(const char *word, size_t n)
{
    for (size_t i = 0; i < sizeof WORDS / sizeof WORDS[0]; i++)
        if (strlen(WORDS[i].word) == n && strncmp(WORDS[i].word, word, n) == 0)
            return WORDS[i].kind;
    return KUBE_NAME_ONLY;
}

int kube_split(const struct jobctl_args *a, enum kube_kind *kind, struct jobctl_args *rest, char *why, size_t why_len)
{
    *rest = *a;
    *kind = KUBE_NAME_ONLY;
    if (a->npos == 0)
        return 0;
    const char *first = a->pos[0], *slash = strchr(first, '/');
    size_t word_len = slash ? (size_t)(slash - first) : strlen(first);
    *kind = kind_of(first, word_len);
    if (*kind == KUBE_NAME_ONLY) {
        if (!slash && a->npos == 1)
            return 0; /* a name alone */
        snprintf(why, why_len, "unknown resource \"%.*s\" (jobs, pods, queues or debugsessions)", (int)word_len, first);
        return -1;
    }
    rest->npos = 0;
    if (slash)
        rest->pos[rest->npos++] = slash + 1;
    for (int i = 1; i < a->npos && rest->npos < JOBCTL_MAX_POS; i++)
        rest->pos[rest->npos++] = a->pos[i];
    if ((slash && !slash[1]) || rest->npos > 1) {
        snprintf(why, why_len, "%s",
                 slash && !slash[1] ? "a name must follow the slash" : "one name after the resource");
        return -1;
    }
    return 0;
}

int kube_one_name(const struct jobctl_args *a, unsigned allowed, const char *wrong_kind, const char *no_name,
                  enum kube_kind *kind, const char **name, char *why, size_t why_len)
{
    struct jobctl_args named;
    if (kube_split(a, kind, &named, why, why_len) != 0)
        return -1;
    if (*kind != KUBE_NAME_ONLY && !(allowed & (1u << *kind))) {
        snprintf(why, why_len, "%s", wrong_kind);
        return -1;
    }
    if (named.npos != 1) {
        snprintf(why, why_len, "%s", no_name);
        return -1;
    }
    *name = named.pos[0];
    return 0;
}
