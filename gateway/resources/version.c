/* GET /version: the Kubernetes version.Info clients read to learn what they talk to (kubectl
 * version, the Python client's VersionApi), with this machine's platform. */
#include "adapters/objects/version_info.h"
#include "gateway/resources/handlers.h"
#include "runtime/host.h"

void handle_version(struct http_req *req)
{
    struct machine m = {0};
    host_identify(&m);
    json_t *info = version_info_render(m.arch);
    if (!info) {
        struct api_status st = {0};
        api_fail(&st, 500, "InternalError", "out of memory");
        http_respond_status(req, &st);
        return;
    }
    http_respond_json(req, 200, info);
}
