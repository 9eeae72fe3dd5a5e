/* Adapting a posted Volcano Job: intake_parse (YAML), dialect_job_from_doc (validation, defaults,
 * the struct job) and job_free, timed on seed 000's Ruitian jobs (indentation repaired):
 *   adapt_5000_replicas_ms      - scheme 1, 5,000 tasks of one replica each (the file that broke
 *                                 etcd's 1.5 MiB request limit; its size is printed as *_yaml_mib);
 *   adapt_5000_replica_task_ms  - scheme 2, one task of 5,000 replicas;
 *   adapt_100_tasks_ms          - scheme 1 with 100 tasks.
 * Each figure is the median of enough runs to be stable on a shared machine. */
#include <stdio.h>
#include <yaml.h>
#include <stdlib.h>

#include "adapters/dialect.h"
#include "adapters/intake.h"
#include "common/sbuf.h"
#include "tests/lib/bench.h"

#define MIN_RUNS 7
#define MAX_RUNS 201
#define MIN_SECONDS 2.0

/* Seed 000's job header, with the seed's four-space indentation. */
static void job_header(struct sbuf *b)
{
    sbuf_puts(b, "apiVersion: batch.volcano.sh/v1alpha1\n"
                 "kind: Job\n"
                 "metadata:\n"
                 "    name: awesome-job\n"
                 "spec:\n"
                 "    minAvailable: 1\n"
                 "    tasks:\n");
}

/* One task as seed 000 writes it: a worker container with 1 cpu and 1Gi, its command in args. */
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

/* Parse, validate and translate once; checks the job is the one written. Returns 0 or -1. */
static int adapt_once(const char *yaml, size_t len, int want_tasks, int want_replicas)
{
    struct intake in = {0};
    struct api_status st = {0};
    struct job *job = NULL;
    int rc = intake_parse(yaml, len, INTAKE_YAML, &in, &st);
    if (rc == 0)
        rc = dialect_job_from_doc(NULL, &in.docs[0], "default", &job, &st);
    if (rc != 0)
        fprintf(stderr, "bench_adapt: the job is refused: %s\n", st.message);
    else if (job->ntasks != want_tasks || job->total_replicas != want_replicas) {
        fprintf(stderr, "bench_adapt: %d tasks and %d replicas, expected %d and %d\n", job->ntasks,
                job->total_replicas, want_tasks, want_replicas);
        rc = -1;
    }
    job_free(job);
    intake_free(&in);
    return rc;
}

/* libyaml's own event parsing of the body and nothing else: the floor under any YAML intake built on
 * it (the library Caldera is to use), for comparison with the whole adaptation. Returns 0 or -1. */
static int libyaml_once(const char *yaml, size_t len, int want_tasks, int want_replicas)
{
    (void)want_tasks, (void)want_replicas;
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

/* The same job sent as JSON (what a platform backend posts): parsed by Jansson, no YAML positions. */
static int adapt_json_once(const char *json, size_t len, int want_tasks, int want_replicas)
{
    struct intake in = {0};
    struct api_status st = {0};
    struct job *job = NULL;
    int rc = intake_parse(json, len, INTAKE_JSON, &in, &st);
    if (rc == 0)
        rc = dialect_job_from_doc(NULL, &in.docs[0], "default", &job, &st);
    if (rc == 0 && (job->ntasks != want_tasks || job->total_replicas != want_replicas))
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "bench_adapt: the JSON job is not the one written: %s\n", st.message);
    job_free(job);
    intake_free(&in);
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

typedef int (*adapt_fn)(const char *body, size_t len, int want_tasks, int want_replicas);

/* Reports the median time of one run of fn; returns 0 or -1 when the job does not adapt. */
static int measure_with(adapt_fn fn, const char *name, const char *body, size_t len, int want_tasks,
                        int want_replicas)
{
    double ms[MAX_RUNS];
    int runs = 0;
    if (fn(body, len, want_tasks, want_replicas) != 0) /* warm-up, and the check */
        return -1;
    double start = bench_now();
    while (runs < MAX_RUNS && (runs < MIN_RUNS || bench_now() - start < MIN_SECONDS)) {
        double t0 = bench_now();
        fn(body, len, want_tasks, want_replicas);
        ms[runs++] = (bench_now() - t0) * 1e3;
    }
    bench_report(name, bench_median(ms, runs), "ms");
    return 0;
}

/* Reports the median time of one adaptation; returns 0 or -1 when the job does not adapt. */
static int measure(const char *name, const char *yaml, size_t len, int want_tasks, int want_replicas)
{
    return measure_with(adapt_once, name, yaml, len, want_tasks, want_replicas);
}


/* The body's size as a figure in MiB (etcd's default request limit is 1.5 MiB) and exactly in bytes. */
static void report_size(const char *name, size_t len)
{
    bench_report(name, (double)len / (1 << 20), "MiB");
    fprintf(stderr, "bench_adapt: %s: %zu bytes of YAML\n", name, len);
}

int main(void)
{
    int status = 0;
    size_t len;
    if (bench_wanted("adapt_5000_replicas_ms")) {
        char *yaml = scheme1(5000, &len);
        report_size("adapt_5000_replicas_yaml_mib", len);
        status |= measure("adapt_5000_replicas_ms", yaml, len, 5000, 5000);
        status |= measure_with(libyaml_once, "adapt_5000_replicas_libyaml_events_ms", yaml, len, 5000, 5000);
        size_t json_len = 0;
        char *json = as_json(yaml, len, &json_len);
        if (json) {
            report_size("adapt_5000_replicas_json_mib", json_len);
            status |= measure_with(adapt_json_once, "adapt_5000_replicas_json_ms", json, json_len, 5000, 5000);
        } else {
            status = 1;
        }
        free(json);
        free(yaml);
    }
    if (bench_wanted("adapt_5000_replica_task_ms")) {
        char *yaml = scheme2(5000, &len);
        report_size("adapt_5000_replica_task_yaml_mib", len);
        status |= measure("adapt_5000_replica_task_ms", yaml, len, 1, 5000);
        free(yaml);
    }
    if (bench_wanted("adapt_100_tasks_ms")) {
        char *yaml = scheme1(100, &len);
        report_size("adapt_100_tasks_yaml_mib", len);
        status |= measure("adapt_100_tasks_ms", yaml, len, 100, 100);
        free(yaml);
    }
    return status ? 1 : 0;
}
