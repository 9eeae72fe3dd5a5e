/* The list of dialects the gateway serves at their own paths, besides Volcano's Job: each lives in a
 * folder of its own under adapters/dialects/. */
#include "adapters/dialects/dialect.h"

extern const struct dialect kubeflow_pytorchjob, kubeflow_tfjob, kubeflow_mpijob;  /* kubeflow/kubeflow.c */
extern const struct dialect dialect_rayjob;                                        /* ray/rayjob.c */
extern const struct dialect dialect_spark;                                         /* spark/spark.c */
extern const struct dialect training_dialect;                                      /* training/training.c */

const struct dialect *const dialects[] = {
    &kubeflow_pytorchjob, &kubeflow_tfjob, &kubeflow_mpijob, &dialect_rayjob, &dialect_spark, &training_dialect,
    NULL,
};
