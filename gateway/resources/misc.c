/* The small endpoints: /healthz (the server and its job database), and the browser UI's static
 * files under /ui/. */
#include <stdio.h>
#include <string.h>

#include "gateway/limits/gates.h"
#include "gateway/resources/handlers.h"
#include "store/store.h"

void handle_healthz(struct http_req *req)
{
    char why[512];
    enum store_failure kind = store_failure_kind(req->gw->store, why, sizeof why);
    if (kind != STORE_FAILURE_NONE) {
        char text[1200];
        if (kind == STORE_FAILURE_DISK_FULL)
            snprintf(text, sizeof text,
                     "unhealthy: the disk of the data directory %s is full: new changes are refused (507) and no "
                     "task starts until space is freed; accepted ones are kept in memory and recorded then: %s\n",
                     gateway_data_dir(req), why);
        else
            snprintf(text, sizeof text, "unhealthy: the job database is failing: %s\n", why);
        http_respond_text(req, 503, "text/plain; charset=utf-8", text);
        return;
    }
    if (req->gw->runtime_warning) { /* still healthy: tasks run, only without limits */
        char text[600];
        snprintf(text, sizeof text, "ok\nwarning: %s\n", req->gw->runtime_warning);
        http_respond_text(req, 200, "text/plain; charset=utf-8", text);
        return;
    }
    http_respond_text(req, 200, "text/plain; charset=utf-8", "ok");
}

void handle_root(struct http_req *req) { http_respond_redirect(req, "/ui/"); }

/* The types of the files a UI may hold (web/ has html, js, css and svg today); others are octets. */
static const char *content_type_of(const char *name)
{
    static const struct {
        const char *suffix, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".json", "application/json"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".woff2", "font/woff2"},
        {".txt", "text/plain; charset=utf-8"},
    };
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot, types[i].suffix) == 0)
            return types[i].type;
    return "application/octet-stream";
}

static void serve(struct http_req *req, const char *name)
{
    struct api_status st = {0};
    /* Only plain file names: no "..", no subdirectories, no hidden files. */
    if (!req->gw->web_dir || !*name || name[0] == '.' || strchr(name, '/')) {
        api_fail(&st, 404, "NotFound", "the server could not find the requested resource");
        http_respond_status(req, &st);
        return;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", req->gw->web_dir, name);
    http_respond_file(req, path, content_type_of(name));
}

void handle_ui(struct http_req *req) { serve(req, "index.html"); }
void handle_ui_file(struct http_req *req) { serve(req, req->params[0]); }
