/* Volcano's env plugin: VK_TASK_INDEX and VC_TASK_INDEX, the pod's index within its task. Caldera
 * sets them on every replica whether or not the job names the plugin (the controller relies on it). */
#include "common/strv.h"
#include "scheduler/controller/job_plugins/internal.h"

static int env_attempt(const struct job *job, const struct plugin_config *cfg, int task, int index, const char *job_dir,
                       int32_t first_port, struct plugin_attempt *out, char *why, size_t why_len)
{
    (void)job, (void)cfg, (void)task, (void)job_dir, (void)first_port, (void)why, (void)why_len;
    if (strv_setenvf(&out->env, "VK_TASK_INDEX=%d", index) != 0 ||
        strv_setenvf(&out->env, "VC_TASK_INDEX=%d", index) != 0)
        return -1;
    return 0;
}

const struct plugin_def plugin_env = {
    .id = PLUGIN_ENV,
    .attempt = env_attempt,
};
