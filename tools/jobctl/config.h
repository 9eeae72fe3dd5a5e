/* jobctl's settings file: $XDG_CONFIG_HOME/caldera/config, else ~/.config/caldera/config, lines of
 * `key = value` (server, token, namespace; `#` starts a comment, a value may be quoted). Read before
 * a command runs: the line's flags win over the environment ($CALDERA_SERVER...), which wins over
 * the file, which wins over the defaults. */
#ifndef CALDERA_JOBCTL_CONFIG_H
#define CALDERA_JOBCTL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define CONFIG_VALUE_MAX 4096

struct config_file {
    char path[1024];     /* "" when no home directory says where */
    bool found;          /* the file exists and was read */
    bool open_to_others; /* its mode lets group or others read it (and it holds a token) */
    char server[CONFIG_VALUE_MAX], token[CONFIG_VALUE_MAX], ns[256]; /* "" when not set */
};

/* Where the file is: from xdg_config_home, else home ("" when both are NULL or empty). */
void config_path(const char *xdg_config_home, const char *home, char *buf, size_t len);
/* Parses text (a file's contents) into cf. Returns 0, or -1 with "line N: why" in err. */
int config_parse(const char *text, struct config_file *cf, char *err, size_t errlen);
/* Reads cf->path when it exists (a missing file is no error). Returns 0, or -1 with
 * "<path>: line N: why" (or why it could not be read) in err. */
int config_load(struct config_file *cf, char *err, size_t errlen);

#endif
