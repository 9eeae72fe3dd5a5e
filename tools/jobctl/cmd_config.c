/* `jobctl config view`: the server, namespace and token a command would use and where each came
 * from (flag, environment variable, settings file or default); the token masked. */
#include <stdio.h>
#include <string.h>

#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/output.h"

/* "abcd…" plus its length: enough to tell tokens apart, never enough to use one. */
static void mask(const char *token, char *buf, size_t len)
{
    if (!token) {
        snprintf(buf, len, "<none>");
        return;
    }
    size_t n = strlen(token);
    snprintf(buf, len, "%.*s**** (%zu characters)", n > 12 ? 4 : 0, token, n);
}

static const char *origin(const char *from, const char *path, char *buf, size_t len)
{
    if (strcmp(from, "file") == 0)
        snprintf(buf, len, "file %s", path);
    else if (strcmp(from, "flag") == 0 || strcmp(from, "default") == 0)
        snprintf(buf, len, "%s", from);
    else
        snprintf(buf, len, "env $%s", from);
    return buf;
}

int cmd_config(const struct jobctl_args *a)
{
    if (strcmp(a->pos[0], "view") != 0) {
        char why[300];
        snprintf(why, sizeof why, "unknown config action \"%s\" (view)", a->pos[0]);
        return jobctl_usage_error(a->command_def, why);
    }
    char token[64], o1[1200], o2[1200], o3[1200];
    mask(a->token, token, sizeof token);
    const char *path = a->config_path && *a->config_path ? a->config_path : "";
    if (a->json) {
        json_t *doc = json_pack("{s:s,s:{s:s,s:s},s:{s:s,s:s},s:{s:s,s:s}}", "configFile", path, "server", "value",
                                a->server, "from", origin(a->server_from, path, o1, sizeof o1), "namespace", "value",
                                a->ns, "from", origin(a->ns_from, path, o2, sizeof o2), "token", "value", token, "from",
                                origin(a->token_from, path, o3, sizeof o3));
        int rc = doc ? print_doc(a, doc) : report_oom();
        json_decref(doc);
        return rc;
    }
    printf("%-11s %s\n", "config:", *path ? path : "<none: no $HOME>");
    printf("%-11s %s  (%s)\n", "server:", a->server, origin(a->server_from, path, o1, sizeof o1));
    printf("%-11s %s  (%s)\n", "namespace:", a->ns, origin(a->ns_from, path, o2, sizeof o2));
    printf("%-11s %s  (%s)\n", "token:", token, origin(a->token_from, path, o3, sizeof o3));
    return JOBCTL_OK;
}
