/* Unit tests for adapters/meta_limits: Kubernetes' limits on names, label keys and values and
 * annotations at their boundaries (63/64, 253/254, 256 KiB), with Kubernetes' words and the line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "adapters/intake/meta_limits.h"
#include "adapters/objects/queue.h"
#include "adapters/dialects/volcano/job.h"
#include "model/job.h"
#include "model/queue.h"
#include "tests/lib/causes.h"
#include "tests/lib/test.h"
#include "tests/lib/yaml_fixture.h"

static char *repeat(char c, size_t n)
{
    char *s = malloc(n + 1);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* "aaa...a.bbb...b.ccc...c.ddd" with three 63-character labels and a last one of last characters:
 * 192 + last characters in all. */
static void dotted(char *out, size_t last)
{
    size_t at = 0;
    for (int part = 0; part < 4; part++) {
        size_t n = part < 3 ? 63 : last;
        memset(out + at, 'a' + part, n);
        at += n;
        out[at++] = part < 3 ? '.' : '\0';
    }
}

static int problems(int (*fn)(const char *, const char *[4], char *, size_t), const char *s, const char **first)
{
    const char *why[4];
    char buf[96];
    int n = fn(s, why, buf, sizeof buf);
    static char keep[512];
    snprintf(keep, sizeof keep, "%s", n ? why[0] : "");
    if (first)
        *first = keep;
    return n;
}

static void label_names_at_63_and_64(void)
{
    char *ok = repeat('a', 63), *over = repeat('a', 64);
    const char *why;
    CHECK_INT(problems(meta_dns1123_label_problems, ok, NULL), 0);
    CHECK_INT(problems(meta_dns1123_label_problems, over, &why), 1);
    CHECK_STR(why, "must be no more than 63 characters");
    CHECK_INT(problems(meta_dns1123_label_problems, "a.b", &why), 1);
    CHECK_CONTAINS(why, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'");
    CHECK_CONTAINS(why, "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'");
    CHECK_INT(problems(meta_dns1123_label_problems, "-a", NULL), 1);
    CHECK_INT(problems(meta_dns1123_label_problems, "a-", NULL), 1);
    CHECK_INT(problems(meta_dns1123_label_problems, "A", NULL), 1);
    CHECK_INT(problems(meta_dns1123_label_problems, "", NULL), 1);
    CHECK_INT(problems(meta_dns1123_label_problems, "0-a", NULL), 0);
    free(ok);
    free(over);
}

static void subdomains_at_253_and_254(void)
{
    /* 63 + '.' + 63 + '.' + 63 + '.' + 61 = 253 */
    char name[300];
    dotted(name, 61);
    CHECK_INT((int)strlen(name), 253);
    CHECK_INT(problems(meta_dns1123_subdomain_problems, name, NULL), 0);
    strcat(name, "d");
    const char *why;
    CHECK_INT(problems(meta_dns1123_subdomain_problems, name, &why), 1);
    CHECK_STR(why, "must be no more than 253 characters");
    CHECK_INT(problems(meta_dns1123_subdomain_problems, "a..b", &why), 1);
    CHECK_CONTAINS(why, "a lowercase RFC 1123 subdomain must consist of");
    CHECK_INT(problems(meta_dns1123_subdomain_problems, "Bad_Name", NULL), 1);
}

static void qualified_names(void)
{
    const char *why;
    char key[400];
    CHECK_INT(problems(meta_qualified_name_problems, "app", NULL), 0);
    CHECK_INT(problems(meta_qualified_name_problems, "My_App.v1", NULL), 0);
    CHECK_INT(problems(meta_qualified_name_problems, "example.com/My-Name", NULL), 0);
    char name[300];
    memset(name, 'n', 64);
    name[63] = '\0';
    snprintf(key, sizeof key, "x/%s", name);
    CHECK_INT(problems(meta_qualified_name_problems, key, NULL), 0);
    name[63] = 'n';
    name[64] = '\0';
    snprintf(key, sizeof key, "x/%s", name);
    CHECK_INT(problems(meta_qualified_name_problems, key, &why), 1);
    CHECK_STR(why, "name part must be no more than 63 characters");
    dotted(name, 61);
    snprintf(key, sizeof key, "%s/n", name);
    CHECK_INT(problems(meta_qualified_name_problems, key, NULL), 0); /* a 253-character prefix */
    dotted(name, 62);
    snprintf(key, sizeof key, "%s/n", name);
    CHECK_INT(problems(meta_qualified_name_problems, key, &why), 1);
    CHECK_STR(why, "prefix part must be no more than 253 characters");
    CHECK_INT(problems(meta_qualified_name_problems, "/n", &why), 1);
    CHECK_STR(why, "prefix part must be non-empty");
    CHECK_INT(problems(meta_qualified_name_problems, "x/", &why), 2);
    CHECK_STR(why, "name part must be non-empty");
    CHECK_INT(problems(meta_qualified_name_problems, "a/b/c", &why), 1);
    CHECK_CONTAINS(why, "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    CHECK_INT(problems(meta_qualified_name_problems, "Example.com/n", &why), 1);
    CHECK_CONTAINS(why, "prefix part a lowercase RFC 1123 subdomain");
    CHECK_INT(problems(meta_qualified_name_problems, "bad key", &why), 1);
    CHECK_CONTAINS(why,
                   "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                   "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
                   "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
}

static void label_values(void)
{
    const char *why;
    CHECK_INT(problems(meta_label_value_problems, "", NULL), 0);
    CHECK_INT(problems(meta_label_value_problems, "My_value.1-x", NULL), 0);
    char *ok = repeat('v', 63), *over = repeat('v', 64);
    CHECK_INT(problems(meta_label_value_problems, ok, NULL), 0);
    CHECK_INT(problems(meta_label_value_problems, over, &why), 1);
    CHECK_STR(why, "must be no more than 63 characters");
    CHECK_INT(problems(meta_label_value_problems, "-x", &why), 1);
    CHECK_CONTAINS(why, "a valid label must be an empty string or consist of alphanumeric characters");
    CHECK_INT(problems(meta_label_value_problems, "a b", NULL), 1);
    free(ok);
    free(over);
}

/* ---- through the adapters: causes with Kubernetes' paths and the YAML line ---------------------- */

static struct job *parse_job(const char *yaml, struct api_status *st, bool admitted)
{
    return yaml_volcano_job(yaml, "default", admitted, st);
}

static const char job_tail[] =
    "spec:\n  tasks:\n  - replicas: 1\n    template:\n      spec:\n"
    "        containers: [{name: c, command: [\"true\"]}]\n";

static void job_labels_and_names_refused_with_lines(void)
{
    char *big = repeat('x', 7 * 1024 * 1024), *long_name = repeat('j', 64);
    size_t len = strlen(big) + 4096;
    char *yaml = malloc(len);
    snprintf(yaml, len,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: %s\n  labels:\n"
             "    team: %s\n    ok: fine\n    \"bad key\": v\n%s",
             long_name, big, job_tail);
    struct api_status st;
    CHECK(parse_job(yaml, &st, false) == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CAUSE(&st, "metadata.name", "FieldValueInvalid", 4, "must be no more than 63 characters");
    CHECK_CAUSE(&st, "metadata.labels", "FieldValueInvalid", 6, "must be no more than 63 characters");
    CHECK(strlen(st.message) < 4096); /* the 7 MB value is not echoed */
    bool bad_key = false;
    for (int i = 0; i < st.ncauses; i++)
        bad_key |= strstr(st.causes[i].message, "\"bad key\": name part must consist") != NULL &&
                   st.causes[i].line == 8;
    CHECK(bad_key);
    /* As admitted (read back from the store), the same job loads. */
    struct job *job = parse_job(yaml, &st, true);
    CHECK(job != NULL);
    job_free(job);
    free(big);
    free(long_name);
    free(yaml);
}

static void job_annotations_total_at_256_kib(void)
{
    size_t value_len = META_ANNOTATIONS_MAX - strlen("a"); /* key "a" + value: exactly the limit */
    char *value = repeat('v', value_len);
    char *yaml = malloc(value_len + 4096);
    snprintf(yaml, value_len + 4096,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n    a: %s\n%s",
             value, job_tail);
    struct api_status st;
    struct job *job = parse_job(yaml, &st, false);
    CHECK(job != NULL);
    job_free(job);
    snprintf(yaml, value_len + 4096,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n    ab: %s\n%s",
             value, job_tail);
    CHECK(parse_job(yaml, &st, false) == NULL);
    CHECK_CAUSE(&st, "metadata.annotations", "FieldValueTooLong", 6, "Too long: must have at most 262144 bytes");
    snprintf(yaml, value_len + 4096,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n"
             "    Example.COM/Owner: x\n    \"no/good/key\": z\n%s",
             job_tail);
    CHECK(parse_job(yaml, &st, false) == NULL); /* case aside the first is fine, the second is not */
    CHECK_INT(st.ncauses, 1);
    CHECK_CAUSE(&st, "metadata.annotations", "FieldValueInvalid", 7, "a qualified name must consist of");
    free(value);
    free(yaml);
}

static void template_labels_and_generate_name(void)
{
    struct api_status st;
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {generateName: Bad_}\n"
             "spec:\n  tasks:\n  - replicas: 1\n    template:\n      metadata:\n        labels: {app: \"-no\"}\n"
             "      spec:\n        containers: [{name: c, command: [\"true\"]}]\n");
    CHECK(parse_job(yaml, &st, false) == NULL);
    CHECK_CAUSE(&st, "metadata.generateName", "FieldValueInvalid", 3, "a lowercase RFC 1123 label");
    CHECK_CAUSE(&st, "spec.tasks[0].template.metadata.labels", "FieldValueInvalid", 9, "a valid label must be");
    /* A generateName ending in '-' is a fine prefix. */
    snprintf(yaml, sizeof yaml, "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {generateName: run-}\n%s",
             job_tail);
    struct job *job = parse_job(yaml, &st, false);
    CHECK(job != NULL);
    job_free(job);
}

static void queue_name_at_253_and_254(void)
{
    char name[300], yaml[1024];
    dotted(name, 62);
    snprintf(yaml, sizeof yaml, "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: %s\n",
             name);
    struct intake in;
    struct api_status st = {0};
    struct queue *q = NULL;
    CHECK(intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st) == 0);
    CHECK(queue_from_doc(&in.docs[0], &q, &st) != 0);
    intake_free(&in);
    CHECK_CAUSE(&st, "metadata.name", "FieldValueInvalid", 4, "must be no more than 253 characters");
    name[253] = '\0';
    snprintf(yaml, sizeof yaml, "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: %s\n",
             name);
    memset(&st, 0, sizeof st);
    CHECK(intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st) == 0);
    CHECK(queue_from_doc(&in.docs[0], &q, &st) == 0);
    intake_free(&in);
    queue_free(q);
}

TEST_MAIN(TEST_CASE(label_names_at_63_and_64), TEST_CASE(subdomains_at_253_and_254), TEST_CASE(qualified_names),
          TEST_CASE(label_values), TEST_CASE(job_labels_and_names_refused_with_lines),
          TEST_CASE(job_annotations_total_at_256_kib), TEST_CASE(template_labels_and_generate_name),
          TEST_CASE(queue_name_at_253_and_254))
