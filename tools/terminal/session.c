/* A terminal's two sides and its end: pty output read one chunk at a time (the pty is paused until the
 * socket took it), input written to the pty (the socket is paused while the pty is full), resize
 * messages, and SIGHUP then SIGKILL to the shell's session when either side goes. */
#include "common/clock.h"
#include "tools/terminal/session.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/terminal/procs.h"

#define OUT_CHUNK 16384    /* pty output read at a time: the most held per terminal besides the socket's */
#define IN_STASH 8192      /* input the pty did not take yet (twice the socket's receive buffer) */
#define CONTROL_MAX 256    /* the longest control (text) message */
#define KILL_GRACE_MS 2000 /* from SIGHUP to SIGKILL */
#define MAX_DIM 1000       /* the largest cols or rows a resize may ask */
#define TAIL_MAX 65536     /* output still in the pty when it hangs up, kept to be sent before the close */

struct session {
    struct session *next;
    struct term_server *srv;
    struct lws *ws;  /* NULL once the socket closed */
    struct lws *pty; /* NULL once the pty closed (libwebsockets closes the master) */
    int master;
    pid_t pid;   /* the shell; 0 once reaped */
    pid_t sid;   /* its session (its pid, kept after it is reaped) */
    bool ending; /* SIGHUP sent; SIGKILL at kill_at */
    bool killed;
    int64_t kill_at;
    int close_code; /* what the socket is closed with, 0 until it should close */
    const char *close_reason;
    size_t out_len;
    unsigned char out[LWS_PRE + OUT_CHUNK];
    unsigned char *tail; /* the pty's last output, read as it hung up */
    size_t tail_len, tail_sent;
    size_t in_len;
    unsigned char in[IN_STASH];
    size_t ctl_len;
    bool ctl_overflow;
    char ctl[CONTROL_MAX + 1];
};

static void touch(struct term_server *srv) { srv->last_activity_ms = clock_wall_ms(); }

/* Starts the end: the session gets SIGHUP (SIGKILL after the grace), the socket is closed once what
 * it has to say is sent, and the pty is closed when no socket reads it. */
static void end(struct session *s, int code, const char *reason)
{
    if (!s->close_code) {
        s->close_code = code;
        s->close_reason = reason;
    }
    if (s->ws)
        lws_callback_on_writable(s->ws);
    if (s->pty && !s->ws)
        lws_set_timeout(s->pty, PENDING_TIMEOUT_KILLED_BY_PARENT, LWS_TO_KILL_ASYNC);
    if (s->ending)
        return;
    s->ending = true;
    s->kill_at = clock_mono_ms() + KILL_GRACE_MS;
    procs_signal_session(s->sid, SIGHUP);
}

int session_start(struct term_server *srv, struct lws *ws, char *err, size_t errlen)
{
    struct session *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->srv = srv;
    s->master = -1;
    s->pid = procs_spawn_shell(srv->opt->shell, srv->opt->cwd, 80, 24, &s->master, err, errlen);
    if (s->pid < 0) {
        free(s);
        return -1;
    }
    s->sid = s->pid;
    lws_sock_file_fd_type fd;
    fd.filefd = s->master;
    s->pty = lws_adopt_descriptor_vhost(srv->vh, LWS_ADOPT_RAW_FILE_DESC, fd, TERMINAL_PROTOCOL, NULL);
    s->next = srv->sessions;
    srv->sessions = s;
    srv->nsessions++;
    if (!s->pty) {
        close(s->master);
        snprintf(err, errlen, "cannot watch the pty");
        end(s, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, "cannot watch the pty");
        return -1;
    }
    lws_set_opaque_user_data(s->pty, s);
    lws_set_opaque_user_data(ws, s);
    s->ws = ws;
    srv->connections++;
    touch(srv);
    return 0;
}

/* {"type":"resize","cols":C,"rows":R}: the pty's window size (the shell gets SIGWINCH). Anything
 * else is refused with a close. */
static int control(struct session *s)
{
    json_error_t jerr;
    json_t *m = json_loadb(s->ctl, s->ctl_len, 0, &jerr);
    const char *type = json_string_value(json_object_get(m, "type"));
    json_int_t cols = json_integer_value(json_object_get(m, "cols"));
    json_int_t rows = json_integer_value(json_object_get(m, "rows"));
    bool resize = type && strcmp(type, "resize") == 0 && cols > 0 && cols <= MAX_DIM && rows > 0 && rows <= MAX_DIM;
    json_decref(m);
    if (!resize) {
        end(s, LWS_CLOSE_STATUS_POLICY_VIOLATION, "text messages are {\"type\":\"resize\",\"cols\":C,\"rows\":R}");
        return 0;
    }
    struct winsize w = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};
    if (s->pty)
        ioctl(s->master, TIOCSWINSZ, &w);
    return 0;
}

static int receive_control(struct session *s, const void *in, size_t len)
{
    if (s->ctl_len + len > CONTROL_MAX)
        s->ctl_overflow = true;
    else {
        memcpy(s->ctl + s->ctl_len, in, len);
        s->ctl_len += len;
    }
    if (!lws_is_final_fragment(s->ws))
        return 0;
    bool overflow = s->ctl_overflow;
    int rc = overflow ? 0 : control(s);
    s->ctl_len = 0;
    s->ctl_overflow = false;
    if (overflow)
        end(s, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "control messages are at most 256 bytes");
    return rc;
}

int session_ws_receive(struct session *s, const void *in, size_t len)
{
    touch(s->srv);
    if (!lws_frame_is_binary(s->ws))
        return receive_control(s, in, len);
    if (!s->pty || s->close_code)
        return 0; /* the shell is gone: its input goes nowhere */
    size_t done = 0;
    if (s->in_len == 0) {
        ssize_t n = write(s->master, in, len);
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return 0; /* the pty is closing; its hang-up ends the session */
        done = n > 0 ? (size_t)n : 0;
    }
    if (done == len)
        return 0;
    if (s->in_len + (len - done) > sizeof s->in) {
        end(s, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "input arrived past flow control");
        return 0;
    }
    memcpy(s->in + s->in_len, (const unsigned char *)in + done, len - done);
    s->in_len += len - done;
    lws_rx_flow_control(s->ws, 0);
    lws_callback_on_writable(s->pty);
    return 0;
}

int session_ws_writable(struct session *s)
{
    if (!s->out_len && s->tail_sent < s->tail_len) {
        size_t n = s->tail_len - s->tail_sent > OUT_CHUNK ? OUT_CHUNK : s->tail_len - s->tail_sent;
        memcpy(s->out + LWS_PRE, s->tail + s->tail_sent, n);
        s->tail_sent += n;
        s->out_len = n;
    }
    if (s->out_len) {
        if (lws_write(s->ws, s->out + LWS_PRE, s->out_len, LWS_WRITE_BINARY) < (int)s->out_len)
            return -1;
        s->out_len = 0;
        touch(s->srv);
        if (s->pty)
            lws_rx_flow_control(s->pty, 1);
        if (!s->pty || s->close_code)
            lws_callback_on_writable(s->ws); /* the close goes once this is sent */
        return 0;
    }
    if (s->pty && !s->close_code)
        return 0;
    const char *reason = s->close_reason ? s->close_reason : "the shell exited";
    lws_close_reason(s->ws, s->close_code ? (enum lws_close_status)s->close_code : LWS_CLOSE_STATUS_NORMAL,
                     (unsigned char *)reason, strlen(reason));
    return -1;
}

void session_ws_closed(struct session *s)
{
    s->ws = NULL;
    s->in_len = 0;
    s->srv->connections--;
    touch(s->srv);
    end(s, LWS_CLOSE_STATUS_NORMAL, "closed");
}

int session_pty_readable(struct session *s)
{
    if (s->out_len) {
        lws_rx_flow_control(s->pty, 0);
        return 0;
    }
    ssize_t n = read(s->master, s->out + LWS_PRE, OUT_CHUNK);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n <= 0)
        return -1; /* EIO: every holder of the pty's other side is gone */
    touch(s->srv);
    if (!s->ws)
        return 0; /* nobody to read it */
    s->out_len = (size_t)n;
    lws_rx_flow_control(s->pty, 0);
    lws_callback_on_writable(s->ws);
    return 0;
}

int session_pty_writable(struct session *s)
{
    if (!s->in_len)
        return 0;
    ssize_t n = write(s->master, s->in, s->in_len);
    if (n < 0 && errno != EAGAIN && errno != EINTR)
        return -1;
    size_t done = n > 0 ? (size_t)n : 0;
    memmove(s->in, s->in + done, s->in_len - done);
    s->in_len -= done;
    if (s->in_len)
        lws_callback_on_writable(s->pty);
    else if (s->ws)
        lws_rx_flow_control(s->ws, 1);
    return 0;
}

/* As the pty hangs up (its master not yet closed), what the shell wrote last and the socket has not
 * taken: while paused, the pty was not read. At most TAIL_MAX; a failure only loses that. */
static void keep_tail(struct session *s)
{
    if (!s->ws || s->close_code || s->master < 0 || !(s->tail = malloc(TAIL_MAX)))
        return;
    while (s->tail_len < TAIL_MAX) {
        ssize_t n = read(s->master, s->tail + s->tail_len, TAIL_MAX - s->tail_len);
        if (n <= 0)
            break;
        s->tail_len += (size_t)n;
    }
}

void session_pty_closed(struct session *s)
{
    keep_tail(s);
    s->pty = NULL;
    s->master = -1;
    s->in_len = 0;
    end(s, LWS_CLOSE_STATUS_NORMAL, "the shell exited");
}

static struct session *by_pid(struct term_server *srv, pid_t pid)
{
    for (struct session *s = srv->sessions; s; s = s->next)
        if (s->pid == pid)
            return s;
    return NULL;
}

/* Reaps every exited child; a terminal's shell that exited ends its session. */
static void reap(struct term_server *srv)
{
    pid_t pid;
    int status;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        struct session *s = by_pid(srv, pid);
        if (s) {
            /* While the pty is open its last output is still to be read: its hang-up closes. */
            s->pid = 0;
            end(s, s->pty ? 0 : LWS_CLOSE_STATUS_NORMAL, "the shell exited");
        }
    }
}

void sessions_sweep(struct term_server *srv)
{
    reap(srv);
    int64_t now = clock_mono_ms();
    for (struct session **p = &srv->sessions; *p;) {
        struct session *s = *p;
        if (s->ending && !s->killed && now >= s->kill_at) {
            procs_signal_session(s->sid, SIGKILL);
            s->killed = true;
        }
        bool done = s->pid == 0 && !s->ws && !s->pty && (s->killed || procs_signal_session(s->sid, 0) == 0);
        if (done) {
            *p = s->next;
            srv->nsessions--;
            free(s->tail);
            free(s);
        } else {
            p = &s->next;
        }
    }
}

void sessions_end_all(struct term_server *srv)
{
    for (struct session *s = srv->sessions; s; s = s->next)
        end(s, LWS_CLOSE_STATUS_GOINGAWAY, "caldera-terminal is stopping");
}

/* Reaps until no shell is left or wait_ms has passed, polling every poll_ms. */
static void reap_within(struct term_server *srv, int wait_ms, int poll_ms)
{
    int64_t deadline = clock_mono_ms() + wait_ms;
    for (;;) {
        reap(srv);
        bool left = false;
        for (struct session *s = srv->sessions; s; s = s->next)
            left = left || s->pid != 0;
        if (!left || clock_mono_ms() >= deadline)
            return;
        usleep((useconds_t)poll_ms * 1000);
    }
}

void sessions_finish(struct term_server *srv, int wait_ms)
{
    for (struct session *s = srv->sessions; s; s = s->next) {
        s->ws = NULL;
        s->pty = NULL;
        procs_signal_session(s->sid, SIGHUP);
    }
    reap_within(srv, wait_ms, 20);
    for (struct session *s = srv->sessions; s; s = s->next)
        procs_signal_session(s->sid, SIGKILL);
    reap_within(srv, 1000, 10);
    while (srv->sessions) {
        struct session *s = srv->sessions;
        srv->sessions = s->next;
        free(s->tail);
        free(s);
    }
    srv->nsessions = 0;
}
