/* The Spark operator's SparkApplication (sparkoperator.k8s.io/v1beta2) as a Volcano Job: what the
 * files of the translation share (spark.c the spec, pod.c the driver and executor pods,
 * memory.c Spark's memory sizes, command.c spark-submit and the executor backend). */
#ifndef CALDERA_SPARK_H
#define CALDERA_SPARK_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "adapters/dialects/dialect.h"

#define SPARK_DRIVER_TASK "driver"
#define SPARK_EXECUTOR_TASK "executor"
#define SPARK_DRIVER_PORT 7078 /* Spark on Kubernetes' driver and block manager ports */
#define SPARK_BLOCK_MANAGER_PORT 7079
#define SPARK_UI_PORT 4040

extern const struct dialect dialect_spark;

/* One pod role as the translation reads it. */
struct spark_role {
    const char *task;     /* "driver" or "executor" */
    const char *path;     /* "spec.driver" */
    json_t *pod;          /* the source's driver/executor object (may be NULL) */
    int64_t cores;        /* spark.{driver,executor}.cores */
    const char *memory;   /* the JVM heap as Spark reads it ("512m"), or the default */
    int64_t memory_mib;   /* the heap in MiB */
    int64_t overhead_mib; /* what Spark adds for the pod */
    const char *java_options;
};

/* What the whole application gives its pods and commands. */
struct spark_app {
    const char *name, *ns;
    const char *type;   /* Scala, Java, Python, R */
    const char *app_id; /* spark.app.id */
    char app_id_buf[96];
    int64_t driver_port, block_manager_port;
    double overhead_factor;           /* spark.kubernetes.memoryOverheadFactor or its default */
    int64_t executors, min_executors; /* the executor task's replicas and minAvailable */
    bool dynamic;
    json_t *spark_conf; /* the source's sparkConf (may be NULL) */
    struct spark_role driver, executor;
};

/* --- memory.c ------------------------------------------------------------------------------- */

/* Spark's size strings (JavaUtils.byteStringAs): digits and an optional unit b, k, kb, m, mb, g, gb,
 * t, tb, p, pb in any case; no unit means default_unit ('m' for memory settings). MiB, truncated as
 * Spark truncates. Returns false (with a sentence in why) when Spark would refuse the text. */
bool spark_size_mib(const char *text, char default_unit, int64_t *mib, const char **why);
/* The pod memory Spark asks for: heap + overhead, the overhead being the given one or
 * max(factor * heap, 384 MiB). */
int64_t spark_overhead_mib(int64_t heap_mib, double factor);

/* --- pod.c ------------------------------------------------------------------------------- */

/* Checks one role's fields (cores, memory, env, labels, ...) into role; returns false after causes. */
bool spark_role_read(struct fields *f, json_t *spec, struct spark_app *app, struct spark_role *role);
/* The role's env: its own list, then envVars (deprecated by the operator, still honoured), then extra
 * (consumed; may be NULL). */
json_t *spark_role_env(const struct spark_role *role, json_t *extra);
/* The role's Volcano pod template (a new object sharing the user's subtrees) with command as the
 * container's command; adds the path maps for task index task. */
json_t *spark_role_template(json_t *spec, const struct spark_app *app, const struct spark_role *role, json_t *command,
                            json_t *env, size_t task, struct dialect_translation *t);

/* --- command.c ------------------------------------------------------------------------------- */

/* The driver's command: spark-submit in client mode inside the driver pod, as the operator's driver
 * pod runs it, with what the driver needs to be found by the executors. NULL after causes. */
json_t *spark_driver_command(struct fields *f, json_t *spec, const struct spark_app *app);
/* The executors' command and the environment Spark on Kubernetes gives an executor pod. */
json_t *spark_executor_command(const struct spark_app *app);
json_t *spark_executor_env(const struct spark_app *app);

/* "<job>-<task>-0.<job>", the driver's host name through the svc plugin. */
void spark_driver_host(const char *job, char *buf, size_t len);
/* spark.app.id: the sparkConf's, else "spark-<name>". */
const char *spark_app_id(const json_t *source, char *buf, size_t len);

/* The SparkApplication status from the rendered Volcano Job. */
json_t *spark_render_status(const json_t *source, const json_t *volcano_job);

#endif
