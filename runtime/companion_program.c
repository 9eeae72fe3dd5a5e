/* Finding a companion's program as execvp would, but beforehand and without a shell, so a type whose
 * program is missing fails with NotInstalled and its name rather than at exec in a child. */
#include "runtime/companion_program.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

static bool executable(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && (sb.st_mode & 0111) && access(path, X_OK) == 0;
}

/* dir/program into out when it is executable: 1; 0 when not; -1 when it does not fit. */
static int try_dir(const char *dir, size_t dir_len, const char *program, char *out, size_t out_len)
{
    while (dir_len > 1 && dir[dir_len - 1] == '/')
        dir_len--;
    int n = snprintf(out, out_len, "%.*s/%s", (int)dir_len, dir, program);
    if (n < 0 || (size_t)n >= out_len)
        return -1;
    return executable(out) ? 1 : 0;
}

static int too_long(const char *program, char *why, size_t why_len)
{
    snprintf(why, why_len, "program path too long: %s", program);
    return -1;
}

int companion_program_resolve(const char *program, const char *path_env, const char *extra_dir, char *out,
                              size_t out_len, char *why, size_t why_len)
{
    if (out_len > 0)
        out[0] = '\0';
    if (!program || !*program) {
        snprintf(why, why_len, "not installed: (no program)");
        return -1;
    }
    if (program[0] == '/') {
        if (strlen(program) >= out_len)
            return too_long(program, why, why_len);
        if (executable(program)) {
            snprintf(out, out_len, "%s", program);
            return 0;
        }
    } else if (!strchr(program, '/')) {
        if (extra_dir && *extra_dir) {
            int rc = try_dir(extra_dir, strlen(extra_dir), program, out, out_len);
            if (rc != 0)
                return rc > 0 ? 0 : too_long(program, why, why_len);
        }
        const char *p = path_env ? path_env : DEFAULT_PATH;
        while (*p) {
            size_t n = strcspn(p, ":");
            if (n > 0 && p[0] == '/') { /* empty or relative: the server's current directory, never */
                int rc = try_dir(p, n, program, out, out_len);
                if (rc != 0)
                    return rc > 0 ? 0 : too_long(program, why, why_len);
            }
            p += n + (p[n] == ':');
        }
    }
    if (out_len > 0)
        out[0] = '\0';
    snprintf(why, why_len, "not installed: %s", program);
    return -1;
}
