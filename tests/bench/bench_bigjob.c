/* What a big job costs the server: a 100,000-replica Job (2 tasks x 50,000, none placed:
 * no node matches its selector) submitted, every pod listed (following metadata.continue), deleted.
 *   bigjob_peak_rss_mb         - the server's VmHWM after the submit and the list;
 *   bigjob_rss_after_delete_mb - its VmRSS once the job is gone;
 *   bigjob_list_pods_s         - listing all 100,000 pods, every page;
 *   bigjob_list_pages          - how many answers that took;
 *   bigjob_rss_start_mb        - its VmRSS before the submit, for scale;
 *   bigjob_rss_submitted_mb    - its VmRSS once the job's pods exist (PodGroup Inqueue), before the list:
 *                                what the replicas themselves cost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/bench.h"
#include "tests/lib/bench_server.h"
#include "tests/lib/server.h"
#include "tests/lib/proc_stats.h"

#define TASKS 2
#define REPLICAS_PER_TASK 50000
#define JOB_PATH "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
#define PODGROUP_PATH "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups/big"
#define PODS_PATH "/api/v1/namespaces/default/pods"

static int submit(const struct test_server *s)
{
    char body[2048];
    int at = snprintf(body, sizeof body,
                      "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"big\"},"
                      "\"spec\":{\"minAvailable\":1,\"tasks\":[");
    for (int t = 0; t < TASKS; t++)
        at += snprintf(body + at, sizeof body - (size_t)at,
                       "%s{\"name\":\"t%d\",\"replicas\":%d,\"minAvailable\":0,\"template\":{\"spec\":{"
                       "\"nodeSelector\":{\"caldera-bench\":\"nowhere\"},\"containers\":[{\"name\":\"c\","
                       "\"command\":[\"/bin/true\"],\"resources\":{\"requests\":{\"cpu\":\"10m\"}}}]}}}",
                       t ? "," : "", t, REPLICAS_PER_TASK);
    snprintf(body + at, sizeof body - (size_t)at, "]}}");
    long code;
    json_t *answer = server_request(s, "POST", JOB_PATH, body, "application/json", &code);
    if (code != 201) {
        char *text = answer ? json_dumps(answer, JSON_COMPACT) : NULL;
        fprintf(stderr, "bench_bigjob: the submit answered %ld: %.400s\n", code, text ? text : "");
        free(text);
    }
    json_decref(answer);
    return code == 201 ? 0 : -1;
}

/* Every pod, page by page; returns how many, -1 on a failure. */
static long list_all_pods(const struct test_server *s, int *pages)
{
    char path[1024], token[768] = "";
    long total = 0;
    *pages = 0;
    do {
        if (*token)
            snprintf(path, sizeof path, "%s?continue=%s", PODS_PATH, token);
        else
            snprintf(path, sizeof path, "%s", PODS_PATH);
        long code;
        json_t *list = server_request(s, "GET", path, NULL, NULL, &code);
        if (code != 200 || !list) {
            fprintf(stderr, "bench_bigjob: the pods list answered %ld\n", code);
            json_decref(list);
            return -1;
        }
        (*pages)++;
        total += (long)json_array_size(json_object_get(list, "items"));
        const char *next = json_string_value(json_object_get(json_object_get(list, "metadata"), "continue"));
        snprintf(token, sizeof token, "%s", next && strlen(next) < sizeof token ? next : "");
        json_decref(list);
    } while (*token);
    return total;
}

static int run(struct bench_server *b)
{
    pid_t pid = b->s.pid;
    double start_mb = proc_status_kib(pid, "VmRSS") / 1024.0;
    if (submit(&b->s) != 0 || server_wait_field(&b->s, PODGROUP_PATH, "status.phase", "Inqueue", 60000) != 0)
        return -1;
    double submitted_mb = proc_status_kib(pid, "VmRSS") / 1024.0;
    int pages;
    double t0 = bench_now();
    long pods = list_all_pods(&b->s, &pages);
    double list_s = bench_now() - t0;
    if (pods != (long)TASKS * REPLICAS_PER_TASK) {
        fprintf(stderr, "bench_bigjob: listed %ld pods, expected %d\n", pods, TASKS * REPLICAS_PER_TASK);
        return -1;
    }
    double peak_mb = proc_status_kib(pid, "VmHWM") / 1024.0;
    long code;
    json_decref(server_request(&b->s, "DELETE", JOB_PATH "/big", NULL, NULL, &code));
    if (code != 200)
        return -1;
    for (int i = 0; i < 600; i++) { /* gone from the API */
        json_decref(server_request(&b->s, "GET", JOB_PATH "/big", NULL, NULL, &code));
        if (code == 404)
            break;
        usleep(50 * 1000);
    }
    sleep(2); /* the core's loop iterations after the deletion */
    double after_mb = proc_status_kib(pid, "VmRSS") / 1024.0;
    bench_report("bigjob_rss_start_mb", start_mb, "MiB");
    bench_report("bigjob_rss_submitted_mb", submitted_mb, "MiB");
    bench_report("bigjob_peak_rss_mb", peak_mb, "MiB");
    bench_report("bigjob_rss_after_delete_mb", after_mb, "MiB");
    bench_report("bigjob_list_pods_s", list_s, "s");
    bench_report("bigjob_list_pages", pages, "answers");
    return 0;
}

int main(void)
{
    if (!bench_wanted("bigjob_"))
        return 0;
    struct bench_server b;
    if (bench_server_start(&b, "bigjob") != 0)
        return 1;
    int rc = run(&b);
    bench_server_finish(&b);
    return rc == 0 ? 0 : 1;
}
