/* caldera-terminal's command line: --listen, --base-url, the token, --cwd, --shell, --max-terminals,
 * parsed and checked into one struct (a refusal comes back as a message, never an exit). */
#ifndef CALDERA_TERMINAL_OPTIONS_H
#define CALDERA_TERMINAL_OPTIONS_H

#include <stddef.h>

#define TERMINAL_DEFAULT_MAX 8 /* concurrent terminals unless --max-terminals says otherwise */
#define TERMINAL_TOKEN_MAX 256 /* longest token accepted (it travels in a cookie) */

struct term_options {
    char host[16];  /* the loopback IPv4 address to listen on */
    int port;       /* 0: any free port (printed on stdout once listening) */
    char base[256]; /* the path prefix of everything served, starting and ending with '/' */
    char token[TERMINAL_TOKEN_MAX + 1];
    char cwd[4096];   /* the shells' working directory ("" keeps ours) */
    char shell[4096]; /* the program each terminal runs */
    int max_terminals;
};

/* Parses argv into o. Returns 0, 1 when --help was asked (usage printed on stdout), or -1 with the
 * reason in err. */
int term_options_parse(int argc, char **argv, struct term_options *o, char *err, size_t errlen);

#endif
