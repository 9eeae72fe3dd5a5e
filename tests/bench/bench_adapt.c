/* Adapting a posted Volcano Job, from the body's bytes to the struct job: intake_parse (YAML, or
 * JSON), then dialect_job_from_doc (validation, defaults, translation), timed on a quant fund's
 * production jobs (indentation repaired):
 *   adapt_5000_replicas_ms      - scheme 1, 5,000 tasks of one replica each (the file that broke
 *                                 etcd's 1.5 MiB request limit; its size is printed as *_yaml_mib);
 *   adapt_5000_replica_task_ms  - scheme 2, one task of 5,000 replicas;
 *   adapt_100_tasks_ms          - scheme 1 with 100 tasks.
 * Each figure is the median of enough runs to be stable on a shared machine; each also comes as its
 * stages (*_intake_ms, *_job_ms) and the freeing that follows the answer (not counted): *_free_ms on
 * the freeing thread, which hands a big job and document to free_later's thread, and *_freed_ms until
 * that thread is done with them (waited for before the next run, so it never overlaps one).
 * For comparison: libyaml's own event parsing of the 5,000-task body (the floor under any YAML
 * intake built on it) and the same job posted as JSON (Jansson). Bodies of 512 KiB or more are read in
 * parts side by side (adapters/intake/yaml_parts.c, json_parts.c): adapt_parts says in how many. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "adapters/dialects/dialect.h"
#include "adapters/intake/intake.h"
#include "common/free_later.h"
#include "common/parallel.h"
#include "common/sbuf.h"
#include "tests/lib/bench.h"

#define MIN_RUNS 7
#define MAX_RUNS 201
#define MIN_SECONDS 2.0

/* The production file's job header, with its four-space indentation. */
static void job_header(struct sbuf *b)
{
    sbuf_puts(b,
              "apiVersion: batch.volcano.sh/v1alpha1\n"
              "kind: Job\n"
              "metadata:\n"
              "    name: awesome-job\n"
              "spec:\n"
              "    minAvailable: 1\n"
              "    tasks:\n");
}

/* One task as that file writes it: a worker container with 1 cpu and 1Gi, its command in args. */
static void task(struct sbuf *b, const char *name, int replicas, const char *command)
{
    sbuf_printf(b,
                "    - name: %s\n"
                "      replicas: %d\n"
                "      template:\n"
                "          spec:\n"
                "              restartPolicy: Never\n"
                "              containers:\n"
                "              - name: worker\n"
                "                image: rt-python:latest\n"
                "                resources:\n"
                "                    requests:\n"
                "                        cpu: 1\n"
                "                        memory: 1Gi\n"
                "                    limits:\n"
                "                        cpu: 1\n"
                "                        memory: 1Gi\n"
                "                args:\n"
                "                - bash\n"
                "                - -c\n"
                "                - |-\n"
                "                    %s\n",
                name, replicas, command);
}

/* Scheme 1: a task per simulation, each reading its own pickle file. */
static char *scheme1(int ntasks, size_t *len)
{
    struct sbuf b = {0};
    job_header(&b);
    for (int i = 1; i <= ntasks; i++) {
        char name[32], command[128];
        snprintf(name, sizeof name, "simulation%d", i);
        snprintf(command, sizeof command, "python run.py --pickle-file /data/simulation/%d.pickle", i);
        task(&b, name, 1, command);
    }
    *len = b.len;
    return sbuf_take(&b);
}

/* Scheme 2: one task whose replicas each pick their parameter file by index. */
static char *scheme2(int replicas, size_t *len)
{
    struct sbuf b = {0};
    job_header(&b);
    task(&b, "simulation", replicas,
         "python -u call_module_func.py --pickle-file /data/simulation/$VC_TASK_INDEX.pickle module.submodule "
         "magic_function");
    *len = b.len;
    return sbuf_take(&b);
}

/* The stages of one adaptation, in milliseconds: bytes to documents (intake_parse), documents to the
 * job (dialect_job_from_doc: validation, defaults, translation), and freeing both afterwards, which
 * the server does after it has answered: on the freeing thread, and until free_later's is done. */
enum stage { STAGE_INTAKE, STAGE_JOB, STAGE_FREE, STAGE_FREED, NSTAGES };

/* Adapts the body once and times its stages; checks the job is the one written. Returns 0 or -1. */
static int adapt_once(const char *body, size_t len, enum intake_format fmt, int want_tasks, int want_replicas,
                      double ms[NSTAGES])
{
    struct intake in = {0};
    struct api_status st = {0};
    struct job *job = NULL;
    double t0 = bench_now();
    int rc = intake_parse(body, len, fmt, &in, &st);
    double t1 = bench_now();
    if (rc == 0)
        rc = dialect_job_from_doc(NULL, &in.docs[0], "default", &job, &st);
    double t2 = bench_now();
    if (rc != 0)
        fprintf(stderr, "bench_adapt: the job is refused: %s\n", st.message);
    else if (job->ntasks != want_tasks || job->total_replicas != want_replicas) {
        fprintf(stderr, "bench_adapt: %d tasks and %d replicas, expected %d and %d\n", job->ntasks, job->total_replicas,
                want_tasks, want_replicas);
        rc = -1;
    }
    double t3 = bench_now();
    job_free(job);
    intake_free(&in);
    double t4 = bench_now();
    free_later_flush();
    double t5 = bench_now();
    ms[STAGE_INTAKE] = (t1 - t0) * 1e3;
    ms[STAGE_JOB] = (t2 - t1) * 1e3;
    ms[STAGE_FREE] = (t4 - t3) * 1e3;
    ms[STAGE_FREED] = (t5 - t3) * 1e3;
    return rc;
}

/* libyaml's own event parsing of the body and nothing else: the floor under any YAML intake built on
 * it (the library Caldera is to use), for comparison with the whole adaptation. Returns 0 or -1. */
static int libyaml_once(const char *yaml, size_t len)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return -1;
    yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, len);
    int rc = -1;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev))
            break;
        bool end = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
        if (end) {
            rc = 0;
            break;
        }
    }
    yaml_parser_delete(&parser);
    return rc;
}

/* The YAML body as compact JSON (caller frees), or NULL. */
static char *as_json(const char *yaml, size_t len, size_t *json_len)
{
    struct intake in = {0};
    struct api_status st = {0};
    if (intake_parse(yaml, len, INTAKE_YAML, &in, &st) != 0)
        return NULL;
    char *json = json_dumps(in.docs[0].root, JSON_COMPACT);
    intake_free(&in);
    if (json)
        *json_len = strlen(json);
    return json;
}

static bool keep_running(int runs, double start)
{
    return runs < MAX_RUNS && (runs < MIN_RUNS || bench_now() - start < MIN_SECONDS);
}

/* Reports name (bytes to the job: intake and job stages) and, as name's stem with _intake_ms,
 * _job_ms, _free_ms and _freed_ms, the median of each stage. Returns 0, or -1 when the job does not
 * adapt. */
static int measure(const char *name, const char *body, size_t len, enum intake_format fmt, int want_tasks,
                   int want_replicas)
{
    static double total[MAX_RUNS], stages[NSTAGES][MAX_RUNS];
    static const char *const suffix[NSTAGES] = {"_intake_ms", "_job_ms", "_free_ms", "_freed_ms"};
    double ms[NSTAGES];
    int runs = 0;
    if (adapt_once(body, len, fmt, want_tasks, want_replicas, ms) != 0) /* warm-up, and the check */
        return -1;
    for (double start = bench_now(); keep_running(runs, start); runs++) {
        adapt_once(body, len, fmt, want_tasks, want_replicas, ms);
        total[runs] = ms[STAGE_INTAKE] + ms[STAGE_JOB];
        for (int s = 0; s < NSTAGES; s++)
            stages[s][runs] = ms[s];
    }
    bench_report(name, bench_median(total, runs), "ms");
    size_t stem = strlen(name) - strlen("_ms");
    for (int s = 0; s < NSTAGES; s++) {
        char stage_name[128];
        snprintf(stage_name, sizeof stage_name, "%.*s%s", (int)stem, name, suffix[s]);
        bench_report(stage_name, bench_median(stages[s], runs), "ms");
    }
    return 0;
}

/* Reports the median time of libyaml's event parsing of the body; returns 0 or -1. */
static int measure_libyaml(const char *name, const char *yaml, size_t len)
{
    static double ms[MAX_RUNS];
    int runs = 0;
    if (libyaml_once(yaml, len) != 0)
        return -1;
    for (double start = bench_now(); keep_running(runs, start); runs++) {
        double t0 = bench_now();
        libyaml_once(yaml, len);
        ms[runs] = (bench_now() - t0) * 1e3;
    }
    bench_report(name, bench_median(ms, runs), "ms");
    return 0;
}

/* The body's size as a figure in MiB (etcd's default request limit is 1.5 MiB) and exactly in bytes. */
static void report_size(const char *name, size_t len)
{
    bench_report(name, (double)len / (1 << 20), "MiB");
    fprintf(stderr, "bench_adapt: %s: %zu bytes\n", name, len);
}

int main(void)
{
    int status = 0;
    size_t len;
    if (bench_wanted("adapt_parts"))
        bench_report("adapt_parts", parallel_parts((size_t)-1, 1), "parts"); /* for the biggest bodies */
    if (bench_wanted("adapt_5000_replicas_ms")) {
        char *yaml = scheme1(5000, &len);
        report_size("adapt_5000_replicas_yaml_mib", len);
        status |= measure("adapt_5000_replicas_ms", yaml, len, INTAKE_YAML, 5000, 5000);
        status |= measure_libyaml("adapt_5000_replicas_libyaml_events_ms", yaml, len);
        size_t json_len = 0;
        char *json = as_json(yaml, len, &json_len);
        if (json) {
            report_size("adapt_5000_replicas_json_mib", json_len);
            status |= measure("adapt_5000_replicas_json_ms", json, json_len, INTAKE_JSON, 5000, 5000);
        } else {
            status = 1;
        }
        free(json);
        free(yaml);
    }
    if (bench_wanted("adapt_5000_replica_task_ms")) {
        char *yaml = scheme2(5000, &len);
        report_size("adapt_5000_replica_task_yaml_mib", len);
        status |= measure("adapt_5000_replica_task_ms", yaml, len, INTAKE_YAML, 1, 5000);
        free(yaml);
    }
    if (bench_wanted("adapt_100_tasks_ms")) {
        char *yaml = scheme1(100, &len);
        report_size("adapt_100_tasks_yaml_mib", len);
        status |= measure("adapt_100_tasks_ms", yaml, len, INTAKE_YAML, 100, 100);
        free(yaml);
    }
    return status ? 1 : 0;
}
