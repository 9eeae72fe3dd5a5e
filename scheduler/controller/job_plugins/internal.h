/* Inside the job plugins: each plugin's parsed arguments, its callbacks, and the helpers they share
 * (Go-flag-style argument parsing, pod domain names, file writing). job_plugins.h is the outside. */
#ifndef CALDERA_JOB_PLUGINS_INTERNAL_H
#define CALDERA_JOB_PLUGINS_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "adapters/intake/fields.h"
#include "model/job.h"
#include "scheduler/controller/job_plugins/job_plugins.h"

enum plugin_id {
    PLUGIN_ENV,
    PLUGIN_SVC,
    PLUGIN_SSH,
    PLUGIN_PYTORCH,
    PLUGIN_TENSORFLOW,
    PLUGIN_MPI,
    PLUGIN_RAY,
    PLUGIN_COUNT
};

/* Every plugin's arguments as parsed. Strings point into the job's manifest (or the admitted spec)
 * and are NULL when not given; ports are 0 when not given. Defaults are each plugin's to apply. */
struct plugin_config {
    bool on[PLUGIN_COUNT];
    struct {
        bool publish_not_ready_addresses;
        bool disable_network_policy;
    } svc;
    struct {
        const char *key_file_path;
        const char *private_key;
        const char *public_key;
    } ssh;
    struct {
        const char *master, *worker;
        int32_t port;
    } pytorch;
    struct {
        const char *ps, *worker, *chief, *evaluator;
        int32_t port;
    } tensorflow;
    struct {
        const char *master, *worker;
        int32_t port;
    } mpi;
    struct {
        const char *head, *head_container, *worker, *worker_container;
        int32_t port, dashboard_port, client_port;
    } ray;
};

/* --- arguments, parsed as Go's flag package parses them ----------------------------------------- */

enum plugin_flag_type { FLAG_BOOL, FLAG_STRING, FLAG_PORT };

struct plugin_flag {
    const char *name;           /* without dashes: "master" */
    enum plugin_flag_type type;
    size_t offset;              /* of the value in struct plugin_config */
};

struct plugin_flag_error {
    size_t index;               /* the offending argument */
    const char *reason;         /* "FieldValueNotSupported" or "FieldValueInvalid" */
    char message[320];          /* `Unsupported value: "--foo": supported arguments: --master, ...` */
};

/* Parses args (a JSON list of strings, or NULL for none): "-name" or "--name", "=value" or (for a
 * non-boolean) the next argument, a boolean alone meaning true, "--" ending the flags, a repeated flag
 * overriding the earlier one. Unlike Go, which logs and goes on, anything else is an error: an unknown
 * flag, a missing or malformed value, a non-string or positional argument. Returns 0 or -1 with err. */
int plugin_flags_parse(const struct plugin_flag *flags, size_t nflags, const json_t *args, struct plugin_config *cfg,
                       struct plugin_flag_error *err);

/* --- the job as plugins see it --------------------------------------------------------------------- */

/* Volcano's MakeDomainName for Caldera's pods: "<job>-<task>-<index>.<job>". The short host name is
 * the part before the dot (job_pod_name). */
void plugin_domain_name(const struct job *job, int task, int index, char *buf, size_t len);
/* The index of the task named name, or -1. */
int plugin_task_index(const struct job *job, const char *name);
/* Whether the spec being admitted has a task named name (an unnamed task i is "default<i>"). */
bool plugin_spec_has_task(const json_t *spec, const char *name);
/* Adds the admission cause "spec.plugins[<plugin>]: Invalid value: "<task>": ..." when a task a
 * framework needs is missing. role: "master"; flag: "--master". Returns false when it added one. */
bool plugin_require_task(struct fields *f, json_t *plugins, const char *plugin, const json_t *spec, const char *task,
                         const char *role, const char *flag);
/* Writes a file under dir through common/fs.h; returns 0 or -1 with why. */
int plugin_write_file(const char *dir, const char *name, const char *data, size_t len, mode_t mode, char *why,
                      size_t why_len);

/* --- one plugin -------------------------------------------------------------------------------------- */

struct plugin_def {
    enum plugin_id id;
    const char *name;
    const struct plugin_flag *flags;
    size_t nflags;
    /* Admission checks beyond the arguments (the tasks a framework names); adds causes. */
    void (*admit)(struct fields *f, json_t *plugins, const json_t *spec, const struct plugin_config *cfg);
    /* Ports this plugin takes from the job's block (0 when it needs none). */
    int32_t (*ports_needed)(const struct job *job, const struct plugin_config *cfg);
    /* Files before the job's replicas start; idempotent. */
    int (*prepare)(const struct job *job, const struct plugin_config *cfg, const char *job_dir, char *why,
                   size_t why_len);
    /* One replica's env/argv/binds. first_port: this plugin's first port in the job's block, 0 when the
     * controller allocated none (then Volcano's default ports are used). */
    int (*attempt)(const struct job *job, const struct plugin_config *cfg, int task, int index, const char *job_dir,
                   int32_t first_port, struct plugin_attempt *out, char *why, size_t why_len);
};

extern const struct plugin_def plugin_env;
extern const struct plugin_def plugin_svc;
extern const struct plugin_def plugin_ssh;
extern const struct plugin_def plugin_pytorch;
extern const struct plugin_def plugin_tensorflow;
extern const struct plugin_def plugin_mpi;
extern const struct plugin_def plugin_ray;

#endif
