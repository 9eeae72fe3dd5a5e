/* Volcano's svc plugin for the process runtime: the per-task host lists (<job dir>/etc/volcano/<task>.host,
 * VC_<TASK>_HOSTS, VC_<TASK>_NUM unless --inject-hosts-env=false) and, standing in for the headless
 * Service, a hosts file naming every pod. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "common/sbuf.h"
#include "common/strv.h"
#include "scheduler/controller/job_plugins/internal.h"

#define CONFIG_SUBDIR "etc/volcano" /* Volcano mounts its ConfigMap at /etc/volcano */
#define HOSTS_FILE "etc/hosts"
#define SYSTEM_HOSTS "/etc/hosts"
#define SYSTEM_HOSTS_MAX (1 << 20)

/* Volcano's key for a task: '-' -> '_' ("mpi-worker" -> "mpi_worker"), upper-cased for env names. */
static void task_key(const char *task, bool upper, char *buf, size_t len)
{
    size_t i = 0;
    for (; task[i] && i + 1 < len; i++) {
        char c = task[i] == '-' ? '_' : task[i];
        buf[i] = upper && c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
    }
    buf[i] = '\0';
}

/* The task's FQDNs joined by sep (Volcano's GenerateHosts: "\n" for the file, "," for the env). */
static void task_hosts(const struct job *job, int task, const char *sep, struct sbuf *out)
{
    char name[320];
    for (int i = 0; i < job->tasks[task].replicas; i++) {
        plugin_domain_name(job, task, i, name, sizeof name);
        if (i)
            sbuf_puts(out, sep);
        sbuf_puts(out, name);
    }
}

static int write_host_lists(const struct job *job, const char *config_dir, char *why, size_t why_len)
{
    for (int t = 0; t < job->ntasks; t++) {
        char key[128], file[160];
        task_key(job->tasks[t].name, false, key, sizeof key);
        snprintf(file, sizeof file, "%s.host", key);
        struct sbuf hosts = {0};
        task_hosts(job, t, "\n", &hosts);
        int rc = -1;
        if (hosts.failed)
            snprintf(why, why_len, "out of memory");
        else
            rc = plugin_write_file(config_dir, file, sbuf_str(&hosts), hosts.len, 0644, why, why_len);
        sbuf_free(&hosts);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* This machine's /etc/hosts, then "127.0.0.1 <pod>.<job> <pod>" for every replica. */
static int write_hosts_file(const struct job *job, const char *etc_dir, char *why, size_t why_len)
{
    struct sbuf b = {0};
    char *system = NULL;
    size_t system_len = 0;
    if (read_file(SYSTEM_HOSTS, SYSTEM_HOSTS_MAX, &system, &system_len) == 0) {
        sbuf_append(&b, system, system_len);
        if (system_len > 0 && system[system_len - 1] != '\n')
            sbuf_puts(&b, "\n");
        free(system);
    } else if (errno != ENOENT) {
        snprintf(why, why_len, "cannot read %s: %s", SYSTEM_HOSTS, strerror(errno));
        return -1;
    }
    char pod[256];
    for (int t = 0; t < job->ntasks; t++) {
        for (int i = 0; i < job->tasks[t].replicas; i++) {
            job_pod_name(job, t, i, pod, (int)sizeof pod);
            sbuf_printf(&b, "127.0.0.1 %s.%s %s\n", pod, job->name, pod);
        }
    }
    int rc = -1;
    if (b.failed)
        snprintf(why, why_len, "out of memory");
    else
        rc = plugin_write_file(etc_dir, "hosts", sbuf_str(&b), b.len, 0644, why, why_len);
    sbuf_free(&b);
    return rc;
}

static int svc_prepare(const struct job *job, const struct plugin_config *cfg, const char *job_dir, char *why,
                       size_t why_len)
{
    (void)cfg;
    char etc_dir[1024], config_dir[1024];
    snprintf(etc_dir, sizeof etc_dir, "%s/etc", job_dir);
    if (snprintf(config_dir, sizeof config_dir, "%s/%s", job_dir, CONFIG_SUBDIR) >= (int)sizeof config_dir) {
        snprintf(why, why_len, "job directory path too long: %s", job_dir);
        return -1;
    }
    if (mkdir_p(config_dir, 0755) != 0) {
        snprintf(why, why_len, "cannot create %s: %s", config_dir, strerror(errno));
        return -1;
    }
    if (write_host_lists(job, config_dir, why, why_len) != 0)
        return -1;
    return write_hosts_file(job, etc_dir, why, why_len);
}

static int svc_attempt(const struct job *job, const struct plugin_config *cfg, int task, int index, const char *job_dir,
                       int32_t first_port, struct plugin_attempt *out, char *why, size_t why_len)
{
    (void)task, (void)index, (void)first_port;
    for (int t = 0; cfg->svc.inject_hosts_env && t < job->ntasks; t++) {
        char key[128];
        task_key(job->tasks[t].name, true, key, sizeof key);
        struct sbuf hosts = {0};
        task_hosts(job, t, ",", &hosts);
        int rc = hosts.failed ? -1 : strv_setenvf(&out->env, "VC_%s_HOSTS=%s", key, sbuf_str(&hosts));
        sbuf_free(&hosts);
        if (rc != 0 || strv_setenvf(&out->env, "VC_%s_NUM=%d", key, job->tasks[t].replicas) != 0)
            return -1;
    }
    if (strv_setenvf(&out->env, "VC_CONFIG_DIR=%s/%s", job_dir, CONFIG_SUBDIR) != 0)
        return -1;
    int n = snprintf(out->hosts_file, sizeof out->hosts_file, "%s/%s", job_dir, HOSTS_FILE);
    if (n >= (int)sizeof out->hosts_file) {
        snprintf(why, why_len, "job directory path too long for the hosts file: %s", job_dir);
        return -1;
    }
    return 0;
}

/* The Service and NetworkPolicy have no counterpart on one machine: --publish-not-ready-addresses and
 * --disable-network-policy change nothing; --inject-hosts-env=false leaves out the host variables. */
const struct plugin_def plugin_svc = {
    .id = PLUGIN_SVC,
    .prepare = svc_prepare,
    .attempt = svc_attempt,
};
