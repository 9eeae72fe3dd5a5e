/* The list of dialects the gateway serves at their own paths; each lives in its own file. */
#include "adapters/dialect.h"

extern const struct dialect kubeflow_pytorchjob, kubeflow_tfjob, kubeflow_mpijob; /* adapters/kubeflow.c */
extern const struct dialect dialect_rayjob;                                        /* adapters/rayjob.c */
extern const struct dialect dialect_spark;                                         /* adapters/spark.c */
extern const struct dialect training_dialect;                                      /* adapters/training.c */

const struct dialect *const dialects[] = {
    &kubeflow_pytorchjob, &kubeflow_tfjob, &kubeflow_mpijob, &dialect_rayjob, &dialect_spark, &training_dialect,
    NULL,
};
