/* The adapters' corpus: every manifest under tests/unit/corpus/<dialect>/ must become the Volcano Job
 * in its .volcano.json, or be refused with the Status message in its .error. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "adapters/intake/intake.h"
#include "common/fs.h"
#include "tests/lib/test.h"

#define CORPUS_DIR "tests/unit/corpus"
#define MAX_FILE (8u << 20)

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The expectation file beside input, with suffix in place of its extension. */
static void expectation_path(char *out, size_t len, const char *input, const char *suffix)
{
    const char *dot = strrchr(input, '.');
    snprintf(out, len, "%.*s%s", (int)(dot - input), input, suffix);
}

static char *read_text(const char *path)
{
    char *data = NULL;
    size_t len = 0;
    if (read_file(path, MAX_FILE, &data, &len) != 0)
        return NULL;
    while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == '\r'))
        data[--len] = 0;
    return data;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%s\n", text);
        fclose(f);
    }
}

/* The namespace the document names, else "default" (as jobctl submit posts it). */
static const char *doc_namespace(const json_t *root)
{
    const char *ns = json_string_value(json_object_get(json_object_get(root, "metadata"), "namespace"));
    return ns && *ns ? ns : "default";
}

/* Adapts one input file; returns the number of files checked (0 or 1). */
static int check_file(const char *path)
{
    char *data = NULL;
    size_t len = 0;
    if (read_file(path, MAX_FILE, &data, &len) != 0) {
        test_fail(__FILE__, __LINE__, "%s: cannot read", path);
        return 0;
    }
    struct intake in = {0};
    struct api_status st = {0};
    struct job *job = NULL;
    int rc = intake_parse(data, len, has_suffix(path, ".json") ? INTAKE_JSON : INTAKE_YAML, &in, &st);
    if (rc == 0 && in.ndocs != 1) {
        rc = -1;
        api_fail(&st, 400, "BadRequest", "corpus files hold one document, this one %d", in.ndocs);
    }
    if (rc == 0) {
        const json_t *root = in.docs[0].root;
        const char *av = json_string_value(json_object_get(root, "apiVersion"));
        const struct dialect *d = dialect_by_kind(av, json_string_value(json_object_get(root, "kind")));
        rc = dialect_job_from_doc(d, &in.docs[0], doc_namespace(root), &job, &st);
    }
    char want_job[1024], want_error[1024];
    expectation_path(want_job, sizeof want_job, path, ".volcano.json");
    expectation_path(want_error, sizeof want_error, path, ".error");
    char *expected_error = read_text(want_error);
    json_t *expected_job = json_load_file(want_job, 0, NULL);
    bool write = getenv("CORPUS_WRITE") != NULL;
    if (rc == 0) {
        char *got = json_dumps(job_manifest(job), JSON_INDENT(2) | JSON_SORT_KEYS);
        if (expected_error)
            test_fail(__FILE__, __LINE__, "%s: accepted, but it must be refused with: %s", path, expected_error);
        else if (!expected_job && write)
            write_text(want_job, got);
        else if (!expected_job)
            test_fail(__FILE__, __LINE__, "%s: accepted, and %s is missing; it became:\n%s", path, want_job, got);
        else if (!json_equal(expected_job, job_manifest(job)))
            test_fail(__FILE__, __LINE__, "%s: became\n%s\nnot what %s holds", path, got, want_job);
        free(got);
    } else {
        if (expected_job)
            test_fail(__FILE__, __LINE__, "%s: refused (%s), but it must become %s", path, st.message, want_job);
        else if (!expected_error && write)
            write_text(want_error, st.message);
        else if (!expected_error)
            test_fail(__FILE__, __LINE__, "%s: refused, and %s is missing; the error was:\n%s", path, want_error,
                      st.message);
        else if (strcmp(expected_error, st.message) != 0)
            test_fail(__FILE__, __LINE__, "%s: refused with\n  %s\nexpected\n  %s", path, st.message, expected_error);
    }
    json_decref(expected_job);
    free(expected_error);
    job_free(job);
    intake_free(&in);
    free(data);
    return 1;
}

static bool is_input(const char *name)
{
    return (has_suffix(name, ".yaml") || (has_suffix(name, ".json") && !has_suffix(name, ".volcano.json")));
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Checks every input of one dialect's directory, in name order; at least min_files of each outcome. */
static void check_dir(const char *dialect, int min_valid, int min_invalid)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", CORPUS_DIR, dialect);
    DIR *d = opendir(dir);
    REQUIRE(d != NULL);
    char *names[1024];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 1024)
        if (is_input(e->d_name))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_names);
    int valid = 0, invalid = 0;
    for (int i = 0; i < n; i++) {
        char path[1024], err[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        check_file(path);
        expectation_path(err, sizeof err, path, ".error");
        FILE *f = fopen(err, "r");
        if (f) {
            invalid++;
            fclose(f);
        } else {
            valid++;
        }
        free(names[i]);
    }
    if (valid < min_valid || invalid < min_invalid)
        test_fail(__FILE__, __LINE__, "%s: %d valid and %d invalid manifests; the corpus needs %d and %d", dir, valid,
                  invalid, min_valid, min_invalid);
}

static void volcano_corpus(void) { check_dir("volcano", 6, 8); }
static void kubeflow_corpus(void) { check_dir("kubeflow", 6, 6); }
static void ray_corpus(void) { check_dir("ray", 4, 4); }
static void spark_corpus(void) { check_dir("spark", 4, 4); }
static void training_corpus(void) { check_dir("training", 8, 6); }
static void debug_corpus(void) { check_dir("debug", 4, 6); }

TEST_MAIN(TEST_CASE(volcano_corpus), TEST_CASE(kubeflow_corpus), TEST_CASE(ray_corpus), TEST_CASE(spark_corpus),
          TEST_CASE(training_corpus), TEST_CASE(debug_corpus))
