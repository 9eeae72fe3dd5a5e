/* caldera.io/v1 Tokens over HTTP: an admin creates (the answer shows the token, once) and deletes
 * them; anyone lists and reads tokens, an admin every one, others their own user's. The table and
 * its durability are gateway/auth/tokens.c's. */
#include "adapters/intake/intake.h"
#include "adapters/objects/token.h"
#include "gateway/auth/auth.h"
#include "gateway/auth/request.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"

/* Without an authenticator there are no tokens to speak of. */
static bool no_tokens(struct http_req *req)
{
    if (req->gw->auth)
        return false;
    struct api_status st = {0};
    api_fail(&st, 404, "NotFound", "this server keeps no tokens");
    http_respond_status(req, &st);
    return true;
}

void handle_token_list(struct http_req *req)
{
    if (no_tokens(req))
        return;
    json_t *list = auth_list_tokens(req->gw->auth, req->who);
    if (list) {
        http_respond_json(req, 200, list);
        return;
    }
    struct api_status st = {0};
    api_fail(&st, 500, "InternalError", "out of memory listing the tokens");
    http_respond_status(req, &st);
}

void handle_token_get(struct http_req *req)
{
    if (no_tokens(req))
        return;
    struct api_status st = {0};
    json_t *token;
    if (auth_get_token(req->gw->auth, req->params[0], req->who, &token, &st) == 0)
        http_respond_json(req, 200, token);
    else
        auth_respond_status(req, &st);
}

void handle_token_create(struct http_req *req)
{
    if (no_tokens(req))
        return;
    struct api_status st = {0};
    struct intake in;
    struct token_spec spec;
    json_t *answer = NULL;
    if (gateway_read_document(req, TOKEN_KIND, &in, &st) == 0) {
        if (token_spec_from_doc(&in.docs[0], &spec, &st) == 0) {
            auth_create_token(req->gw->auth, &spec, &answer, NULL, &st);
            token_spec_clear(&spec);
        }
        intake_free(&in);
    }
    if (answer)
        http_respond_json(req, 201, answer);
    else
        http_respond_status(req, &st);
}

void handle_token_delete(struct http_req *req)
{
    if (no_tokens(req))
        return;
    struct api_status st = {0};
    if (auth_delete_token(req->gw->auth, req->params[0], &st) != 0) {
        http_respond_status(req, &st);
        return;
    }
    http_respond_json(req, 200,
                      json_pack("{s:s, s:s, s:{}, s:s, s:{s:s, s:s, s:s}}", "kind", "Status", "apiVersion", "v1",
                                "metadata", "status", "Success", "details", "name", req->params[0], "group",
                                "caldera.io", "kind", "tokens"));
}
