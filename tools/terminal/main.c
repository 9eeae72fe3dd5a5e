/* caldera-terminal: a web terminal companion (xterm.js over a WebSocket, a pty per connection) that
 * Caldera starts as a job's user in its directory; exits 0 on SIGTERM or SIGINT, 2 on bad options. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "tools/terminal/assets.h"
#include "tools/terminal/options.h"
#include "tools/terminal/server.h"

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

int main(int argc, char **argv)
{
    static struct term_options opt;
    static struct term_server srv;
    char err[512];
    int rc = term_options_parse(argc, argv, &opt, err, sizeof err);
    if (rc == 1)
        return 0;
    if (rc != 0) {
        fprintf(stderr, "caldera-terminal: %s\n", err);
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (term_server_start(&srv, &opt, err, sizeof err) != 0) {
        fprintf(stderr, "caldera-terminal: %s\n", err);
        return 1;
    }
    if (term_assets_missing[0])
        fprintf(stderr, "caldera-terminal: the terminal assets are missing: %s; the page offers a line console\n",
                term_assets_missing);
    printf("caldera-terminal: listening on http://%s:%d%s\n", opt.host, srv.port, opt.base);
    fflush(stdout);
    term_server_run(&srv, &stop_requested);
    return 0;
}
