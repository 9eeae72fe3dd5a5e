/* The list of dialects the gateway serves at their own paths, besides Volcano's Job (each lives in a
 * folder of its own under adapters/dialects/, below this list), and finding one by path or kind. */
#include "adapters/dialects/dialect.h"

#include <string.h>

extern const struct dialect kubeflow_pytorchjob, kubeflow_tfjob, kubeflow_mpijob; /* dialects/kubeflow/kubeflow.c */
extern const struct dialect dialect_rayjob;                                       /* dialects/ray/rayjob.c */
extern const struct dialect dialect_spark;                                        /* dialects/spark/spark.c */
extern const struct dialect training_dialect;                                     /* dialects/training/training.c */
extern const struct dialect debug_session_dialect;                                /* dialects/debug/session.c */

const struct dialect *const dialects[] = {
    &kubeflow_pytorchjob, &kubeflow_tfjob,   &kubeflow_mpijob,       &dialect_rayjob,
    &dialect_spark,       &training_dialect, &debug_session_dialect, NULL,
};

static bool api_version_is(const char *api_version, const struct dialect *d)
{
    size_t g = strlen(d->group);
    return strncmp(api_version, d->group, g) == 0 && api_version[g] == '/' &&
           strcmp(api_version + g + 1, d->version) == 0;
}

const struct dialect *dialect_by_plural(const char *group, const char *version, const char *plural)
{
    for (const struct dialect *const *d = dialects; *d; d++)
        if (strcmp((*d)->group, group) == 0 && strcmp((*d)->version, version) == 0 && strcmp((*d)->plural, plural) == 0)
            return *d;
    return NULL;
}

const struct dialect *dialect_by_kind(const char *api_version, const char *kind)
{
    if (!api_version || !kind)
        return NULL;
    for (const struct dialect *const *d = dialects; *d; d++)
        if (strcmp((*d)->kind, kind) == 0 && api_version_is(api_version, *d))
            return *d;
    return NULL;
}

const struct dialect *dialect_of_source(const json_t *source)
{
    return dialect_by_kind(json_string_value(json_object_get(source, "apiVersion")),
                           json_string_value(json_object_get(source, "kind")));
}
