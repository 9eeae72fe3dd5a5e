/* Slurm accounting on the throwaway cluster (tests/lib/slurm-cluster with SLURM_ACCOUNTING=1: slurmdbd and
 * a MariaDB on a socket): a job the Slurm backend sent is in sacct with its state, exit code, nodes and
 * the Caldera uid in its comment. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "runtime/backend.h"
#include "tests/lib/slurm_cluster.h"
#include "tests/lib/test.h"

struct seen {
    pthread_mutex_t mu;
    int ends;
    char ref[BACKEND_REF_MAX];
};

static void post(void *ctx, struct backend_update *u)
{
    struct seen *s = ctx;
    pthread_mutex_lock(&s->mu);
    if (u->kind == BACKEND_SENT)
        snprintf(s->ref, sizeof s->ref, "%s", u->ref);
    if (u->kind == BACKEND_POD && (u->phase == BACKEND_POD_SUCCEEDED || u->phase == BACKEND_POD_FAILED))
        s->ends++;
    pthread_mutex_unlock(&s->mu);
    backend_update_free(u);
}

/* sacct's line for the job ("name|state|exit|nodes|comment"), polled until it is final (10 s). */
static void sacct_line(const char *ref, char *line, size_t len)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "sacct -n -X -P -j %s -o JobName,State,ExitCode,NodeList,Comment%%80 2>&1", ref);
    line[0] = '\0';
    for (int i = 0; i < 100; i++) {
        FILE *p = popen(cmd, "r");
        if (p) {
            if (!fgets(line, (int)len, p))
                line[0] = '\0';
            pclose(p);
        }
        if (strstr(line, "FAILED") || strstr(line, "COMPLETED"))
            return;
        usleep(100 * 1000);
    }
}

static void test_sacct_shows_backend_jobs(void)
{
    struct slurm_cluster c;
    char err[1024];
    SKIP_IF(getuid() != 0, "the Slurm daemons run as root here");
    SKIP_IF(slurm_cluster_start_accounting(&c, err, sizeof err) != 0, "no Slurm cluster with accounting: %s", err);
    fprintf(stderr, "# Slurm cluster with slurmdbd up in %ld ms\n", c.start_ms);
    CHECK(c.accounting);
    char work[300], token[300];
    snprintf(work, sizeof work, "%s/work", c.dir);
    snprintf(token, sizeof token, "%s/token", c.dir);
    REQUIRE(write_file_atomic(token, c.token, strlen(c.token), 0600) == 0);
    struct backend_conf conf = {
        .slurmrestd = c.url, .slurm_user = c.user, .slurm_token_file = token, .slurm_work_dir = work};
    struct seen s = {.mu = PTHREAD_MUTEX_INITIALIZER};
    struct backend_host host = {.post = post, .ctx = &s};
    struct backend *b = NULL;
    struct api_status st = {0};
    REQUIRE(slurm_backend_open(&conf, &host, &b, &st) == 0);
    const char *uid = "0b6c1a52-0000-4000-8000-0000000000ac";
    json_t *m = json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:[{s:s,s:i,s:{s:{s:[{s:s,s:s,s:[s,s,s]}]}}}]}}", "apiVersion",
                          "batch.volcano.sh/v1alpha1", "kind", "Job", "metadata", "name", "acct", "namespace", "team-a",
                          "spec", "tasks", "name", "t", "replicas", 2, "template", "spec", "containers", "name", "c",
                          "image", "none", "command", "sh", "-c", "[ $SLURM_PROCID = 1 ] && exit 3; true");
    REQUIRE(b->send(b->ctx, uid, m) == 0);
    for (int i = 0; i < 300; i++) {
        pthread_mutex_lock(&s.mu);
        int ends = s.ends;
        pthread_mutex_unlock(&s.mu);
        if (ends == 2)
            break;
        usleep(100 * 1000);
    }
    b->close(b->ctx);
    REQUIRE(s.ref[0]);
    char line[512];
    sacct_line(s.ref, line, sizeof line);
    /* The batch script exits with srun's status: the failing rank's 3. (sacct names jobs that slurmrestd
     * 0.0.38 submitted "allocation", whatever their name: the comment is what finds Caldera's.) */
    CHECK_CONTAINS(line, "|FAILED|3:0|n");
    CHECK_CONTAINS(line, "|caldera.io/uid=0b6c1a52-0000-4000-8000-0000000000ac/1");
    slurm_cluster_stop(&c);
}

int main(int argc, char **argv)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    static const struct test_case cases[] = {TEST_CASE(test_sacct_shows_backend_jobs)};
    int rc = test_run(cases, 1, argc, argv);
    curl_global_cleanup();
    return rc;
}
