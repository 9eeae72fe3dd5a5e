/* caldera-terminal's options: each flag read and checked (loopback only, a base URL in slashes, a
 * token fit for a cookie, a directory and a shell that exist), the shell defaulted from $SHELL. */
#include "tools/terminal/options.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "usage: caldera-terminal --listen 127.0.0.1:PORT --base-url /proxy/NS/NAME/ (--token-file FILE | --token T)\n"
    "                        [--cwd DIR] [--shell PROG] [--max-terminals N]\n"
    "A web terminal: GET BASE (the page), BASE/static/..., BASE/api/status, WebSocket BASE/ws (a pty each).\n"
    "Every request carries the token: Authorization: token T, ?token=T, or the cookie the page sets.\n";

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int parse_listen(const char *v, struct term_options *o, char *err, size_t errlen)
{
    const char *colon = strrchr(v, ':');
    char *end = NULL;
    long port = colon ? strtol(colon + 1, &end, 10) : -1;
    if (!colon || (size_t)(colon - v) >= sizeof o->host || colon[1] == '\0' || *end || port < 0 || port > 65535)
        return fail(err, errlen, "--listen wants 127.0.0.1:PORT, got \"%s\"", v);
    memcpy(o->host, v, (size_t)(colon - v));
    o->host[colon - v] = '\0';
    struct in_addr a;
    if (inet_pton(AF_INET, o->host, &a) != 1 || ntohl(a.s_addr) >> 24 != 127)
        return fail(err, errlen, "--listen takes a loopback IPv4 address only (127.0.0.0/8), got \"%s\"", v);
    o->port = (int)port;
    return 0;
}

static int parse_base(const char *v, struct term_options *o, char *err, size_t errlen)
{
    size_t n = strlen(v);
    if (n == 0 || v[0] != '/' || n + 2 > sizeof o->base || strstr(v, "//") || strstr(v, "/../") || strstr(v, "/./") ||
        strpbrk(v, "?#%\"'<> \t\r\n\\;"))
        return fail(err, errlen, "--base-url wants a plain path such as /proxy/NS/NAME/, got \"%s\"", v);
    snprintf(o->base, sizeof o->base, "%s%s", v, v[n - 1] == '/' ? "" : "/");
    return 0;
}

/* A token must fit a cookie's value and a header: printable ASCII without space, quote, comma,
 * semicolon or backslash. */
static int check_token(const char *t, char *err, size_t errlen)
{
    size_t n = strlen(t);
    if (n == 0 || n > TERMINAL_TOKEN_MAX)
        return fail(err, errlen, "the token must be 1 to 256 characters");
    for (size_t i = 0; i < n; i++)
        if (t[i] <= ' ' || t[i] >= 127 || strchr("\",;\\", t[i]))
            return fail(err, errlen,
                        "the token may hold printable ASCII only, without space, quote, comma, "
                        "semicolon or backslash");
    return 0;
}

static int read_token_file(const char *path, struct term_options *o, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(err, errlen, "--token-file: cannot open %s", path);
    size_t n = fread(o->token, 1, sizeof o->token - 1, f);
    bool more = fgetc(f) != EOF;
    fclose(f);
    o->token[n] = '\0';
    while (n > 0 && (o->token[n - 1] == '\n' || o->token[n - 1] == '\r' || o->token[n - 1] == ' '))
        o->token[--n] = '\0';
    if (more && n >= TERMINAL_TOKEN_MAX)
        return fail(err, errlen, "--token-file: %s holds more than 256 characters", path);
    return 0;
}

static bool executable(const char *path) { return path && path[0] == '/' && access(path, X_OK) == 0; }

static int default_shell(struct term_options *o)
{
    const char *env = getenv("SHELL");
    const char *pick = executable(env) ? env : executable("/bin/bash") ? "/bin/bash" : "/bin/sh";
    snprintf(o->shell, sizeof o->shell, "%s", pick);
    return 0;
}

int term_options_parse(int argc, char **argv, struct term_options *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->port = -1;
    o->max_terminals = TERMINAL_DEFAULT_MAX;
    bool have_token = false;
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        if (strcmp(flag, "--help") == 0 || strcmp(flag, "-h") == 0) {
            fputs(usage, stdout);
            return 1;
        }
        if (i + 1 >= argc)
            return fail(err, errlen, "%s wants a value (see --help)", flag);
        const char *v = argv[++i];
        int rc = 0;
        if (strcmp(flag, "--listen") == 0) {
            rc = parse_listen(v, o, err, errlen);
        } else if (strcmp(flag, "--base-url") == 0) {
            rc = parse_base(v, o, err, errlen);
        } else if (strcmp(flag, "--token") == 0) {
            if (strlen(v) >= sizeof o->token)
                return fail(err, errlen, "--token: longer than 256 characters");
            snprintf(o->token, sizeof o->token, "%s", v);
            have_token = true;
        } else if (strcmp(flag, "--token-file") == 0) {
            rc = read_token_file(v, o, err, errlen);
            have_token = true;
        } else if (strcmp(flag, "--cwd") == 0) {
            struct stat st;
            if (strlen(v) >= sizeof o->cwd || stat(v, &st) != 0 || !S_ISDIR(st.st_mode))
                return fail(err, errlen, "--cwd: %s is not a directory", v);
            snprintf(o->cwd, sizeof o->cwd, "%s", v);
        } else if (strcmp(flag, "--shell") == 0) {
            if (strlen(v) >= sizeof o->shell || !executable(v))
                return fail(err, errlen, "--shell: %s is not an executable given by its absolute path", v);
            snprintf(o->shell, sizeof o->shell, "%s", v);
        } else if (strcmp(flag, "--max-terminals") == 0) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > 64)
                return fail(err, errlen, "--max-terminals wants 1 to 64, got \"%s\"", v);
            o->max_terminals = (int)n;
        } else {
            return fail(err, errlen, "unknown option %s (see --help)", flag);
        }
        if (rc != 0)
            return -1;
    }
    if (o->port < 0)
        return fail(err, errlen, "--listen 127.0.0.1:PORT is required");
    if (!o->base[0])
        return fail(err, errlen, "--base-url is required (the path Caldera's proxy serves this under)");
    if (!have_token)
        return fail(err, errlen, "--token-file FILE or --token T is required");
    if (check_token(o->token, err, errlen) != 0)
        return -1;
    if (!o->shell[0])
        default_shell(o);
    return 0;
}
