/* Raw TCP for the tests: connect (from a chosen loopback address), send everything, read until the
 * server closes or a deadline passes. */
#include "tests/lib/raw_socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/sbuf.h"

int raw_port_of(const char *url)
{
    const char *colon = url ? strrchr(url, ':') : NULL;
    return colon ? atoi(colon + 1) : 0;
}

int raw_connect(const char *from, int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in src = {.sin_family = AF_INET}, dst = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
    if (from && (inet_pton(AF_INET, from, &src.sin_addr) != 1 || bind(fd, (struct sockaddr *)&src, sizeof src) != 0)) {
        close(fd);
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&dst, sizeof dst) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

bool raw_send_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

bool raw_send_text(int fd, const char *text) { return raw_send_all(fd, text, strlen(text)); }

char *raw_read_until_closed(int fd, int timeout_ms)
{
    struct sbuf got = {0};
    int64_t deadline = clock_mono_ms() + timeout_ms;
    for (;;) {
        int left = (int)(deadline - clock_mono_ms());
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (left <= 0 || poll(&p, 1, left) <= 0) {
            sbuf_free(&got);
            return NULL;
        }
        char buf[4096];
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0) {
            sbuf_puts(&got, "");
            return sbuf_take(&got);
        }
        sbuf_append(&got, buf, (size_t)n);
    }
}
