/* A job's waste in its history: what its ended attempts asked for against what they used, per
 * resource. CPU in core-seconds (the request times each attempt's run time against the CPU time
 * the cgroup counted), memory in bytes (the largest request against the highest peak), GPUs in
 * GPU-seconds (devices held times run time against that times the sampled mean utilisation). */
#include "store/history_internal.h"

#include <stdio.h>

/* Attempts of schema 8 and later record their requests; older ones (all zero) are left out. */
static const char *const sql_usage =
    "SELECT count(*), sum(cpu_request * (end_ms - start_ms)) / 1e6, sum(cpu_usec) / 1e6,"
    " max(memory_request), max(peak_memory), sum(gpu_request * (end_ms - start_ms)) / 1e3,"
    " sum(gpu_request * (end_ms - start_ms) * gpu_util_mean / 100.0) / 1e3, count(gpu_util_mean)"
    " FROM attempts WHERE job_uid = ?1 AND end_ms IS NOT NULL AND end_ms >= start_ms"
    " AND cpu_request + memory_request + gpu_request > 0";

/* used / requested, or null when nothing was requested or nothing was measured (the cgroup's
 * figures are 0 when unknown: a machine without cgroups). */
static json_t *fraction_json(double used, double requested)
{
    return requested > 0 && used > 0 ? json_real(used / requested) : json_null();
}

static json_t *usage_json(sqlite3_stmt *q)
{
    double cpu_req = sqlite3_column_double(q, 1), cpu_used = sqlite3_column_double(q, 2);
    int64_t mem_req = sqlite3_column_int64(q, 3), mem_used = sqlite3_column_int64(q, 4);
    double gpu_req = sqlite3_column_double(q, 5);
    json_t *out = json_pack("{s:I, s:{s:f, s:f, s:o}, s:{s:I, s:I, s:o}}", "attempts",
                            (json_int_t)sqlite3_column_int64(q, 0), "cpu", "requestedCoreSeconds", cpu_req,
                            "usedCoreSeconds", cpu_used, "usedFraction", fraction_json(cpu_used, cpu_req), "memory",
                            "requestedBytes", (json_int_t)mem_req, "peakBytes", (json_int_t)mem_used, "usedFraction",
                            fraction_json((double)mem_used, (double)mem_req));
    if (out && gpu_req > 0) {
        json_t *gpu = json_pack("{s:f}", "requestedGPUSeconds", gpu_req);
        if (gpu && sqlite3_column_int64(q, 7) > 0) { /* sampled: used is what the samples showed */
            double used = sqlite3_column_double(q, 6);
            json_object_set_new(gpu, "usedGPUSeconds", json_real(used));
            json_object_set_new(gpu, "usedFraction", fraction_json(used, gpu_req));
        }
        json_object_set_new(out, "gpu", gpu);
    }
    return out;
}

int history_usage_add(struct store_reader *r, const char *job_uid, json_t *out, struct api_status *st)
{
    sqlite3_stmt *q;
    if (history_prepare(r, sql_usage, &q, st) != 0)
        return -1;
    sqlite3_bind_text(q, 1, job_uid, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW && sqlite3_column_int64(q, 0) > 0)
        json_object_set_new(out, "usage", usage_json(q));
    sqlite3_finalize(q);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE)
        return 0;
    return history_fail_db(r, st, "reading the job's usage");
}
