/* Messages from the test WebSocket client (tests/lib/ws_client): one masked frame of any opcode and of
 * up to 64 KiB, for servers that listen to what their clients say (caldera-terminal's input). */
#ifndef CALDERA_TEST_WS_CLIENT_SEND_H
#define CALDERA_TEST_WS_CLIENT_SEND_H

#include <stdbool.h>
#include <stddef.h>

#include "tests/lib/ws_client.h"

#define WS_OPCODE_TEXT 1
#define WS_OPCODE_BINARY 2

/* Sends data as one final frame with opcode. Returns false when len is over 65535 or the send failed. */
bool ws_client_send(struct ws_client *c, int opcode, const void *data, size_t len);
/* ws_client_send of a string as a binary frame. */
bool ws_client_send_bytes(struct ws_client *c, const char *text);

#endif
