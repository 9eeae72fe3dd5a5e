/* A small WebSocket client (RFC 6455) for tests and benchmarks: the handshake on a blocking socket
 * (a refusal comes back as its HTTP code and body), then frames from the server, read blocking with a
 * timeout or fed from the caller's own poll loop. It controls its socket (receive buffer, when it
 * reads, a drop without a close frame), which the slow-subscriber and resume tests need. */
#ifndef CALDERA_TEST_WS_CLIENT_H
#define CALDERA_TEST_WS_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

struct ws_client {
    int fd;            /* -1 when not connected */
    int http_code;     /* the handshake's answer: 101, or the refusal's code; 0 when none came */
    char *http_body;   /* a refusal's body (caller frees via ws_client_close), NULL otherwise */
    char protocol[64]; /* Sec-WebSocket-Protocol the server selected, "" when none */
    unsigned char *in; /* bytes read and not yet taken as frames */
    size_t in_len, in_cap;
    char *partial; /* a fragmented message's frames so far */
    size_t partial_len;
};

struct ws_client_options {
    const char *authorization;  /* an Authorization header value, or NULL */
    const char *protocols;      /* a Sec-WebSocket-Protocol header value, or NULL */
    int rcvbuf;                 /* SO_RCVBUF before connecting, 0: the system's */
    const char *source_address; /* the IPv4 address to connect from ("127.0.0.2"), NULL: the system's */
    const char *headers;        /* more header lines, each "Name: value\r\n" (a Cookie, an Origin), or NULL */
};

enum ws_frame_kind { WS_NOTHING, WS_TEXT, WS_CLOSE, WS_BROKEN };

struct ws_frame {
    enum ws_frame_kind kind;
    char *text; /* WS_TEXT: the message, NUL-terminated (caller frees) */
    size_t len;
    int close_code; /* WS_CLOSE: the code, 1005 when none */
    char close_reason[128];
};

/* Connects to url ("ws://HOST:PORT/path") with "?query" appended when query is set, and does the
 * handshake within timeout_ms. Returns 0 when upgraded (101), 1 when the server answered otherwise
 * (http_code and http_body tell), -1 when it could not connect or the answer was not HTTP. */
int ws_client_connect(struct ws_client *c, const char *url, const char *query, const struct ws_client_options *o,
                      int timeout_ms);
/* The next frame within timeout_ms (WS_NOTHING when none came). Pings are answered. */
struct ws_frame ws_client_next(struct ws_client *c, int timeout_ms);
/* For a caller's poll loop: reads what the socket has without blocking. Returns false when the
 * connection ended or failed. */
bool ws_client_feed(struct ws_client *c);
/* Takes one whole frame from what was fed: true with *f set, false when none is complete. */
bool ws_client_take(struct ws_client *c, struct ws_frame *f);
/* Sends a close frame (code 1000) and closes the socket; also frees what the client holds. */
void ws_client_close(struct ws_client *c);
/* Closes the socket without a close frame, as a dropped network would. */
void ws_client_drop(struct ws_client *c);
void ws_frame_clear(struct ws_frame *f);

#endif
