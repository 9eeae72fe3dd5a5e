/* The webhook receiver: a thread per connection, each POST's body gathered in its connection's
 * buffer and kept once complete. */
#include "tests/lib/webhook_receiver.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/sbuf.h"

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *data, size_t *size, void **con_cls)
{
    (void)version;
    struct webhook_receiver *r = cls;
    struct sbuf *body = *con_cls;
    if (!body) {
        if (!(body = calloc(1, sizeof *body)))
            return MHD_NO;
        *con_cls = body;
        return MHD_YES;
    }
    if (*size > 0) {
        sbuf_append(body, data, *size);
        *size = 0;
        return MHD_YES;
    }
    pthread_mutex_lock(&r->lock);
    bool failing = r->failing;
    if (strcmp(method, "POST") == 0 && r->n < RECEIVER_MAX && !failing) {
        r->paths[r->n] = strdup(url);
        r->bodies[r->n] = strdup(sbuf_str(body));
        r->n++;
    }
    pthread_mutex_unlock(&r->lock);
    const char *text = failing ? "down\n" : "ok\n";
    struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret = MHD_queue_response(conn, failing ? 500 : 200, resp);
    MHD_destroy_response(resp);
    return ret;
}

static void on_done(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)conn;
    (void)toe;
    struct sbuf *body = *con_cls;
    if (body) {
        sbuf_free(body);
        free(body);
    }
    *con_cls = NULL;
}

int receiver_start(struct webhook_receiver *r)
{
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->lock, NULL);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    r->daemon = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
                                 on_request, r, MHD_OPTION_SOCK_ADDR, &addr, MHD_OPTION_NOTIFY_COMPLETED, on_done, r,
                                 MHD_OPTION_END);
    if (!r->daemon)
        return -1;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(r->daemon, MHD_DAEMON_INFO_BIND_PORT);
    r->port = info ? info->port : 0;
    return r->port > 0 ? 0 : -1;
}

void receiver_stop(struct webhook_receiver *r)
{
    if (r->daemon)
        MHD_stop_daemon(r->daemon);
    r->daemon = NULL;
    for (int i = 0; i < r->n; i++) {
        free(r->paths[i]);
        free(r->bodies[i]);
    }
    r->n = 0;
    pthread_mutex_destroy(&r->lock);
}

void receiver_set_failing(struct webhook_receiver *r, bool failing)
{
    pthread_mutex_lock(&r->lock);
    r->failing = failing;
    pthread_mutex_unlock(&r->lock);
}

static bool holds_all(const char *body, const char *const *needles)
{
    for (int i = 0; needles && needles[i]; i++)
        if (!strstr(body, needles[i]))
            return false;
    return true;
}

char *receiver_wait(struct webhook_receiver *r, const char *path, const char *const *needles, int ms)
{
    for (int waited = 0; waited <= ms; waited += 50) {
        char *found = NULL;
        pthread_mutex_lock(&r->lock);
        for (int i = 0; i < r->n && !found; i++)
            if (strcmp(r->paths[i], path) == 0 && holds_all(r->bodies[i], needles))
                found = strdup(r->bodies[i]);
        pthread_mutex_unlock(&r->lock);
        if (found)
            return found;
        usleep(50000);
    }
    return NULL;
}

int receiver_count(struct webhook_receiver *r, const char *path, const char *needle)
{
    int n = 0;
    pthread_mutex_lock(&r->lock);
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->paths[i], path) == 0 && (!needle || strstr(r->bodies[i], needle)))
            n++;
    pthread_mutex_unlock(&r->lock);
    return n;
}

int receiver_dead_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof addr;
    if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        getsockname(fd, (struct sockaddr *)&addr, &len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return ntohs(addr.sin_port);
}
