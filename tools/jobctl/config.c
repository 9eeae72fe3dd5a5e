/* Reading jobctl's settings file: simple `key = value` lines, every other line refused with its
 * number, so a typo never silently sends requests elsewhere. */
#include "tools/jobctl/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/fs.h"

#define CONFIG_MAX_BYTES (64 * 1024)

void config_path(const char *xdg_config_home, const char *home, char *buf, size_t len)
{
    if (xdg_config_home && xdg_config_home[0] == '/')
        snprintf(buf, len, "%s/caldera/config", xdg_config_home);
    else if (home && *home)
        snprintf(buf, len, "%s/.config/caldera/config", home);
    else
        snprintf(buf, len, "%s", "");
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* One "key = value" line into cf; 0, or -1 with why. */
static int parse_line(char *line, struct config_file *cf, char *why, size_t whylen)
{
    char *eq = strchr(line, '=');
    if (!eq) {
        snprintf(why, whylen, "expected key = value");
        return -1;
    }
    *eq = '\0';
    char *key = trim(line), *value = trim(eq + 1);
    size_t n = strlen(value);
    if (n >= 2 && (value[0] == '"' || value[0] == '\'') && value[n - 1] == value[0]) {
        value[n - 1] = '\0';
        value++;
    }
    char *dest = strcmp(key, "server") == 0      ? cf->server
                 : strcmp(key, "token") == 0     ? cf->token
                 : strcmp(key, "namespace") == 0 ? cf->ns
                                                 : NULL;
    size_t cap = dest == cf->ns ? sizeof cf->ns : CONFIG_VALUE_MAX;
    if (!dest) {
        snprintf(why, whylen, "unknown key \"%.64s\" (server, token or namespace)", key);
        return -1;
    }
    if (!*value || strlen(value) >= cap) {
        snprintf(why, whylen, "%s wants a value of 1 to %zu characters", key, cap - 1);
        return -1;
    }
    snprintf(dest, cap, "%s", value);
    return 0;
}

int config_parse(const char *text, struct config_file *cf, char *err, size_t errlen)
{
    cf->server[0] = cf->token[0] = cf->ns[0] = '\0';
    int lineno = 0;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        char line[CONFIG_VALUE_MAX + 256], why[300];
        lineno++;
        if (n >= sizeof line) {
            snprintf(err, errlen, "line %d: too long", lineno);
            return -1;
        }
        memcpy(line, p, n);
        line[n] = '\0';
        p += n + (p[n] == '\n');
        char *t = trim(line);
        if (!*t || *t == '#')
            continue;
        if (parse_line(t, cf, why, sizeof why) != 0) {
            snprintf(err, errlen, "line %d: %s", lineno, why);
            return -1;
        }
    }
    return 0;
}

int config_load(struct config_file *cf, char *err, size_t errlen)
{
    char *text = NULL, why[400];
    size_t len;
    cf->found = cf->open_to_others = false;
    if (!cf->path[0])
        return 0;
    if (read_file(cf->path, CONFIG_MAX_BYTES, &text, &len) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        snprintf(err, errlen, "%s: %s", cf->path, strerror(errno));
        return -1;
    }
    int rc = config_parse(text, cf, why, sizeof why);
    free(text);
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", cf->path, why);
        return -1;
    }
    struct stat st;
    cf->found = true;
    cf->open_to_others = cf->token[0] && stat(cf->path, &st) == 0 && (st.st_mode & 077);
    return 0;
}
