/* The schema's migrations, oldest first. A released script is never edited: a later change appends
 * a new script, and every database walks the same path from whatever version it is at. */
#include "store/schema.h"

#include <stdio.h>

/* Version 1: jobs (live and deleted), attempts, the event log, queues. Every text column the writer
 * fills is NOT NULL (it binds "" for a missing string), so readers never see NULL where they expect
 * text; the only NULLs are jobs.deleted_ms (live) and attempts.end_ms/exit_code (not ended). */
static const char migration_1[] =
    "CREATE TABLE jobs ("
    "  uid TEXT NOT NULL PRIMARY KEY,"
    "  namespace TEXT NOT NULL,"
    "  name TEXT NOT NULL,"
    "  created_ms INTEGER NOT NULL,"
    "  spec_json TEXT NOT NULL,"
    "  status_json TEXT NOT NULL,"
    "  resource_version INTEGER NOT NULL,"
    "  deleted_ms INTEGER"
    ");"
    /* One live job per name; a deleted job's name may be reused. */
    "CREATE UNIQUE INDEX jobs_live_name ON jobs(namespace, name) WHERE deleted_ms IS NULL;"
    /* History: the newest job with a name, live or deleted. */
    "CREATE INDEX jobs_by_name ON jobs(namespace, name, created_ms);"
    /* Recovery streams live jobs (and, joined, their attempts) in creation order without sorting.
     * UNIQUE (uid is) and uid NOT NULL are what let the planner see that this order is total, so the
     * join with attempts needs no sort either. */
    "CREATE UNIQUE INDEX jobs_live_created ON jobs(created_ms, uid) WHERE deleted_ms IS NULL;"
    /* Clustered by job: recovery and history read a job's attempts as one range. */
    "CREATE TABLE attempts ("
    "  job_uid TEXT NOT NULL,"
    "  pod TEXT NOT NULL,"
    "  attempt INTEGER NOT NULL,"
    "  task TEXT NOT NULL,"
    "  idx INTEGER NOT NULL,"
    "  job_version INTEGER NOT NULL,"
    "  node TEXT NOT NULL,"
    "  pid INTEGER NOT NULL,"
    "  pid_start INTEGER NOT NULL,"
    "  start_ms INTEGER NOT NULL,"
    "  end_ms INTEGER,"
    "  exit_code INTEGER,"
    "  reason TEXT NOT NULL DEFAULT '',"
    "  message TEXT NOT NULL DEFAULT '',"
    "  log_path TEXT NOT NULL,"
    "  PRIMARY KEY (job_uid, pod, attempt)"
    ") WITHOUT ROWID;"
    "CREATE TABLE events ("
    "  seq INTEGER PRIMARY KEY,"
    "  time_ms INTEGER NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  namespace TEXT NOT NULL,"
    "  name TEXT NOT NULL,"
    "  job_uid TEXT NOT NULL,"
    "  from_phase TEXT NOT NULL,"
    "  to_phase TEXT NOT NULL,"
    "  reason TEXT NOT NULL,"
    "  message TEXT NOT NULL"
    ");"
    "CREATE INDEX events_by_job ON events(job_uid, seq);"
    "CREATE TABLE queues ("
    "  name TEXT NOT NULL PRIMARY KEY,"
    "  json TEXT NOT NULL"
    ");";

/* Version 2: the API objects that configure the scheduler and have no table of their own
 * (PriorityClasses, ResourceQuotas), each kept as its JSON under (kind, namespace, name); the
 * namespace is "" for cluster-scoped kinds. Clustered by that key: recovery reads it in order. */
static const char migration_2[] =
    "CREATE TABLE objects ("
    "  kind TEXT NOT NULL,"
    "  namespace TEXT NOT NULL,"
    "  name TEXT NOT NULL,"
    "  json TEXT NOT NULL,"
    "  PRIMARY KEY (kind, namespace, name)"
    ") WITHOUT ROWID;";

/* Version 3: what became of a pod after each attempt (outcome: "" when the pod ended with it,
 * "Requeued" when it went back to Pending, "Restarting" when its container restarts in place,
 * "Deleted" when a kill of its job removed it), the latest job version a finished pod was kept
 * into through kills of its job (-1: none), and what the attempt used (cgroup figures). */
static const char migration_3[] =
    "ALTER TABLE attempts ADD COLUMN outcome TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE attempts ADD COLUMN kept_version INTEGER NOT NULL DEFAULT -1;"
    "ALTER TABLE attempts ADD COLUMN peak_memory INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE attempts ADD COLUMN cpu_usec INTEGER NOT NULL DEFAULT 0;";

/* Version 4: the history's own tables and indexes.
 * - attempts.cgroup: where the attempt ran, as /proc/<pid>/cgroup said it ("" without cgroups).
 * - tasks: each job's tasks as its spec says them (name, replicas, minAvailable, the pod template),
 *   derived from jobs.spec_json by SQLite's JSON functions; existing jobs are filled in here.
 *   Task minAvailable defaults to replicas, as Volcano's admission webhook does.
 * - nodes: the nodes the server ran with, as v1 Node JSON, refreshed at every start.
 * - commands: every Command run (bus.volcano.sh, or caldera.io's job actions), keyed by its event.
 * - indexes: history lists walk jobs newest first in one namespace or in all of them; retention
 *   finds deleted jobs by deletion time; a job's commands are one range; a pod's attempts are found
 *   by the pod's name once its job is gone from the core (logs of deleted jobs). */
static const char migration_4[] =
    "ALTER TABLE attempts ADD COLUMN cgroup TEXT NOT NULL DEFAULT '';"
    "CREATE TABLE tasks ("
    "  job_uid TEXT NOT NULL,"
    "  name TEXT NOT NULL,"
    "  replicas INTEGER NOT NULL,"
    "  min_available INTEGER NOT NULL,"
    "  template_json TEXT NOT NULL,"
    "  PRIMARY KEY (job_uid, name)"
    ") WITHOUT ROWID;"
    "INSERT OR REPLACE INTO tasks(job_uid, name, replicas, min_available, template_json)"
    "  SELECT j.uid, coalesce(t.value ->> '$.name', ''), coalesce(t.value ->> '$.replicas', 0),"
    "         coalesce(t.value ->> '$.minAvailable', t.value ->> '$.replicas', 0),"
    "         coalesce(t.value -> '$.template', '{}')"
    "  FROM jobs j, json_each(j.spec_json, '$.spec.tasks') t WHERE json_valid(j.spec_json);"
    "CREATE TABLE nodes ("
    "  name TEXT NOT NULL PRIMARY KEY,"
    "  json TEXT NOT NULL,"
    "  updated_ms INTEGER NOT NULL"
    ") WITHOUT ROWID;"
    "CREATE TABLE commands ("
    "  seq INTEGER PRIMARY KEY,"
    "  time_ms INTEGER NOT NULL,"
    "  namespace TEXT NOT NULL,"
    "  job_name TEXT NOT NULL,"
    "  job_uid TEXT NOT NULL,"
    "  action TEXT NOT NULL,"
    "  reason TEXT NOT NULL,"
    "  json TEXT NOT NULL"
    ");"
    "CREATE INDEX commands_by_job ON commands(job_uid, seq);"
    "CREATE INDEX jobs_by_created ON jobs(created_ms, uid);"
    "CREATE INDEX jobs_by_namespace_created ON jobs(namespace, created_ms, uid);"
    "CREATE INDEX jobs_deleted ON jobs(deleted_ms) WHERE deleted_ms IS NOT NULL;"
    "CREATE INDEX attempts_by_pod ON attempts(pod);";

/* migrations[i] takes user_version i to i+1. Append only. */
/* Version 5: what start-up needs to know of a job without parsing its JSON: its phase (status'
 * state.phase), queue and ttlSecondsAfterFinished (NULL when none), kept by the writer with every
 * job row change. A finished job is then restored from these alone and parsed only when something
 * reads it (recovery of 100,000 mostly finished jobs in under 2 s). */
static const char migration_5[] =
    "ALTER TABLE jobs ADD COLUMN phase TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE jobs ADD COLUMN queue TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE jobs ADD COLUMN ttl_s INTEGER;"
    "UPDATE jobs SET phase = coalesce(json_extract(status_json, '$.state.phase'), ''),"
    " queue = coalesce(json_extract(spec_json, '$.spec.queue'), ''),"
    " ttl_s = json_extract(spec_json, '$.spec.ttlSecondsAfterFinished')"
    " WHERE deleted_ms IS NULL AND json_valid(status_json) AND json_valid(spec_json);";

/* Version 6: the object a job was posted as when that was not a Volcano Job (a PyTorchJob, a
 * RayJob, a training request...), so GET answers in its own dialect after a restart; NULL for
 * Volcano Jobs. */
static const char migration_6[] = "ALTER TABLE jobs ADD COLUMN source_json TEXT;";

/* Version 7: the GPU devices each attempt held, as the indexes of its node's devices ("2,3"; "" for
 * none), so the history shows them and a task adopted after a restart keeps its own. */
static const char migration_7[] = "ALTER TABLE attempts ADD COLUMN gpus TEXT NOT NULL DEFAULT '';";

/* Version 8: what each attempt asked for (one replica's CPU in millicores, memory in bytes, GPUs) and
 * what its GPUs showed while it ran (mean and peak utilisation in percent, peak memory used in MiB;
 * NULL when never sampled), so the history can set requested against used. */
static const char migration_8[] =
    "ALTER TABLE attempts ADD COLUMN cpu_request INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE attempts ADD COLUMN memory_request INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE attempts ADD COLUMN gpu_request INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE attempts ADD COLUMN gpu_util_mean REAL;"
    "ALTER TABLE attempts ADD COLUMN gpu_util_peak INTEGER;"
    "ALTER TABLE attempts ADD COLUMN gpu_memory_peak INTEGER;";

/* Version 9: the uid of the object an event is about where it has one of its own (a pod's: "" for
 * older rows and for objects whose uid is their job's), so an Event's involvedObject.uid names the
 * very pod, as `kubectl describe pod` selects its events by it. */
static const char migration_9[] = "ALTER TABLE events ADD COLUMN uid TEXT NOT NULL DEFAULT '';";

/* Version 10: start-up reads only what it keeps. A finished job with no TTL to arm sleeps (the core
 * keeps its name, uid, queue and phase): jobs_asleep holds all of that, so its row is not read;
 * jobs_awake lists the others, whose rows and attempts are read; attempts_open finds the attempts a
 * sleeping job still had running. At 100,000 jobs, 90% asleep, the rows read were 205 of the 425 MB
 * file. The conditions are store/recovery.c's JOBS_ASLEEP and JOBS_AWAKE, word for word, so the
 * planner can use these indexes (phase and queue are NOT NULL: the two are each other's negation).
 * Comparisons, not `phase IN (...)`: every write of a jobs row evaluates the conditions, and an IN
 * list costs an ephemeral table per statement run (5.9 against 3.1 us per resourceVersion update). */
static const char migration_10[] =
    "CREATE INDEX jobs_asleep ON jobs(created_ms, uid, namespace, name, queue, phase, resource_version)"
    " WHERE deleted_ms IS NULL AND ttl_s IS NULL AND queue <> ''"
    " AND (phase = 'Completed' OR phase = 'Failed' OR phase = 'Terminated');"
    "CREATE INDEX jobs_awake ON jobs(created_ms, uid) WHERE deleted_ms IS NULL AND (ttl_s IS NOT NULL OR queue = ''"
    " OR (phase <> 'Completed' AND phase <> 'Failed' AND phase <> 'Terminated'));"
    "CREATE INDEX attempts_open ON attempts(job_uid, pod, attempt) WHERE end_ms IS NULL;";

static const char *const migrations[] = {
    migration_1, migration_2, migration_3, migration_4, migration_5,
    migration_6, migration_7, migration_8, migration_9, migration_10,
};

int schema_latest_version(void) { return (int)(sizeof migrations / sizeof migrations[0]); }

int schema_read_version(sqlite3 *db, int *version)
{
    sqlite3_stmt *stmt;
    int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, NULL);
    if (rc != SQLITE_OK)
        return rc;
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
        *version = sqlite3_column_int(stmt, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(stmt);
    return rc;
}

/* One migration and its version bump in one transaction: both happen or neither does. */
static int apply_migration(sqlite3 *db, int to_version, char *why, size_t whylen)
{
    char bump[64];
    snprintf(bump, sizeof bump, "PRAGMA user_version = %d", to_version);
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, migrations[to_version - 1], NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, bump, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(why, whylen, "%s", sqlite3_errmsg(db));
        if (!sqlite3_get_autocommit(db))
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

int schema_migrate(sqlite3 *db, const char *path, int target, int *applied, char *err, size_t errlen)
{
    if (applied)
        *applied = 0;
    int version;
    int rc = schema_read_version(db, &version);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "database %s: cannot read its schema version: %s", path, sqlite3_errmsg(db));
        return -1;
    }
    if (target > schema_latest_version())
        target = schema_latest_version();
    for (int v = version + 1; v <= target; v++) {
        char why[512];
        if (apply_migration(db, v, why, sizeof why) != 0) {
            snprintf(err, errlen, "database %s: migration to schema version %d failed: %s", path, v, why);
            return -1;
        }
        if (applied)
            (*applied)++;
    }
    return 0;
}
