/* One masked client frame (RFC 6455 section 5.2) with a 7- or 16-bit length, sent whole on the client's
 * blocking socket. */
#include "tests/lib/ws_client_send.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

bool ws_client_send(struct ws_client *c, int opcode, const void *data, size_t len)
{
    if (c->fd < 0 || len > 65535)
        return false;
    size_t head = len < 126 ? 2 : 4;
    unsigned char *frame = malloc(head + 4 + len);
    if (!frame)
        return false;
    frame[0] = (unsigned char)(0x80 | (opcode & 0x0f));
    if (len < 126) {
        frame[1] = (unsigned char)(0x80 | len);
    } else {
        frame[1] = 0x80 | 126;
        frame[2] = (unsigned char)(len >> 8);
        frame[3] = (unsigned char)(len & 0xff);
    }
    unsigned char *mask = frame + head;
    for (int i = 0; i < 4; i++)
        mask[i] = (unsigned char)rand();
    for (size_t i = 0; i < len; i++)
        frame[head + 4 + i] = ((const unsigned char *)data)[i] ^ mask[i % 4];
    size_t total = head + 4 + len, sent = 0;
    while (sent < total) {
        ssize_t n = send(c->fd, frame + sent, total - sent, MSG_NOSIGNAL);
        if (n <= 0)
            break;
        sent += (size_t)n;
    }
    free(frame);
    return sent == total;
}

bool ws_client_send_bytes(struct ws_client *c, const char *text)
{
    return ws_client_send(c, WS_OPCODE_BINARY, text, strlen(text));
}
