/* GET /apis/caldera.io/v1/stream on the HTTP port: where the WebSocket stream of events listens (it
 * has a listener of its own, gateway/ws/ws.h), for clients that know only the API's address. */
#include "gateway/resources/handlers.h"

void handle_stream_info(struct http_req *req)
{
    if (!req->gw->ws_url) {
        struct api_status st = {0};
        api_fail(&st, 503, "ServiceUnavailable", "the WebSocket stream is not listening");
        http_respond_status(req, &st);
        return;
    }
    http_respond_json(
        req, 200,
        json_pack("{s:s, s:s, s:s}", "apiVersion", "caldera.io/v1", "kind", "StreamInfo", "url", req->gw->ws_url));
}
