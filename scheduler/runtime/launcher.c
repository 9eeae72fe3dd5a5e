/* Launcher threads: a queue of copied start requests in, a list of results out, an eventfd to wake
 * the core. process_start is safe on any thread: the child it clones shares nothing it could race on. */
#include "scheduler/runtime/launcher.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/log.h"
#include "common/strv.h"

#define MAX_THREADS 4

/* A request owns copies of everything the spec points to. */
struct request {
    struct request *next;
    uint64_t token;
    struct attempt_spec spec;
    char **argv, **envp;
    char *strings[6]; /* work_dir, chdir_to, log_path, cgroup_name, hosts_file, ssh_dir (may be NULL) */
};

struct launcher {
    pthread_mutex_t mu;
    pthread_cond_t work;
    struct request *head, *tail;
    struct launch_result *results;
    int nresults, results_cap;
    int pending; /* queued + being started */
    bool stopping;
    int efd;
    int nthreads;
    pthread_t threads[MAX_THREADS];
};

static void request_free(struct request *r)
{
    if (!r)
        return;
    strv_free(r->argv);
    strv_free(r->envp);
    for (size_t i = 0; i < sizeof r->strings / sizeof r->strings[0]; i++)
        free(r->strings[i]);
    free(r);
}

static const char *keep(struct request *r, int i, const char *s, bool *ok)
{
    if (!s)
        return NULL;
    r->strings[i] = strdup(s);
    *ok = *ok && r->strings[i];
    return r->strings[i];
}

static struct request *request_copy(uint64_t token, const struct attempt_spec *spec)
{
    struct request *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    bool ok = true;
    r->token = token;
    r->spec = *spec;
    r->argv = strv_dup(spec->argv);
    r->envp = strv_dup(spec->envp);
    ok = r->argv && r->envp;
    r->spec.argv = r->argv;
    r->spec.envp = r->envp;
    r->spec.work_dir = keep(r, 0, spec->work_dir, &ok);
    r->spec.chdir_to = keep(r, 1, spec->chdir_to, &ok);
    r->spec.log_path = keep(r, 2, spec->log_path, &ok);
    r->spec.cgroup_name = keep(r, 3, spec->cgroup_name, &ok);
    r->spec.hosts_file = keep(r, 4, spec->hosts_file, &ok);
    r->spec.ssh_dir = keep(r, 5, spec->ssh_dir, &ok);
    if (!ok) {
        request_free(r);
        return NULL;
    }
    return r;
}

/* Appends a result and wakes the core. Called with mu held. */
static void post(struct launcher *l, const struct launch_result *res)
{
    if (l->nresults == l->results_cap) {
        int cap = l->results_cap ? l->results_cap * 2 : 64;
        struct launch_result *grown = realloc(l->results, (size_t)cap * sizeof *grown);
        if (!grown) { /* cannot report: the process (if any) is killed so nothing runs unrecorded */
            log_error("out of memory reporting a started attempt; killing it");
            struct process p = res->proc;
            if (res->rc == 0) {
                process_signal(&p, SIGKILL);
                struct replica_exit ex;
                for (int i = 0; i < 1000 && process_reap(&p, &ex) != 0; i++)
                    usleep(1000);
            }
            return;
        }
        l->results = grown;
        l->results_cap = cap;
    }
    l->results[l->nresults++] = *res;
    uint64_t one = 1;
    if (write(l->efd, &one, sizeof one) < 0)
        log_warn("launcher eventfd write: %s", strerror(errno));
}

static void *launcher_main(void *arg)
{
    struct launcher *l = arg;
    struct launch_result *res = malloc(sizeof *res);
    pthread_mutex_lock(&l->mu);
    for (;;) {
        while (!l->head && !l->stopping)
            pthread_cond_wait(&l->work, &l->mu);
        if (!l->head)
            break;
        struct request *r = l->head;
        l->head = r->next;
        if (!l->head)
            l->tail = NULL;
        pthread_mutex_unlock(&l->mu);
        memset(res, 0, sizeof *res);
        res->token = r->token;
        res->rc = process_start(&r->spec, &res->proc, &res->started, res->why, sizeof res->why);
        request_free(r);
        pthread_mutex_lock(&l->mu);
        post(l, res);
        l->pending--;
    }
    pthread_mutex_unlock(&l->mu);
    free(res);
    return NULL;
}

struct launcher *launcher_new(int nthreads)
{
    struct launcher *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->work, NULL);
    l->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (l->efd < 0) {
        launcher_free(l);
        return NULL;
    }
    for (int i = 0; i < nthreads && i < MAX_THREADS; i++) {
        if (pthread_create(&l->threads[i], NULL, launcher_main, l) != 0)
            break;
        l->nthreads++;
    }
    if (l->nthreads == 0) {
        launcher_free(l);
        return NULL;
    }
    return l;
}

void launcher_free(struct launcher *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->mu);
    l->stopping = true;
    pthread_cond_broadcast(&l->work);
    pthread_mutex_unlock(&l->mu);
    for (int i = 0; i < l->nthreads; i++)
        pthread_join(l->threads[i], NULL);
    for (struct request *r = l->head; r;) {
        struct request *next = r->next;
        request_free(r);
        r = next;
    }
    free(l->results);
    if (l->efd >= 0)
        close(l->efd);
    pthread_cond_destroy(&l->work);
    pthread_mutex_destroy(&l->mu);
    free(l);
}

int launcher_fd(const struct launcher *l) { return l->efd; }

int launcher_submit(struct launcher *l, uint64_t token, const struct attempt_spec *spec)
{
    struct request *r = request_copy(token, spec);
    if (!r)
        return -1;
    pthread_mutex_lock(&l->mu);
    if (l->tail)
        l->tail->next = r;
    else
        l->head = r;
    l->tail = r;
    l->pending++;
    pthread_cond_signal(&l->work);
    pthread_mutex_unlock(&l->mu);
    return 0;
}

struct launch_result *launcher_collect(struct launcher *l, int *n)
{
    uint64_t count;
    if (read(l->efd, &count, sizeof count) < 0 && errno != EAGAIN)
        log_warn("launcher eventfd read: %s", strerror(errno));
    pthread_mutex_lock(&l->mu);
    struct launch_result *out = l->results;
    *n = l->nresults;
    l->results = NULL;
    l->nresults = l->results_cap = 0;
    pthread_mutex_unlock(&l->mu);
    if (*n == 0) {
        free(out);
        return NULL;
    }
    return out;
}

int launcher_pending(struct launcher *l)
{
    pthread_mutex_lock(&l->mu);
    int n = l->pending + l->nresults;
    pthread_mutex_unlock(&l->mu);
    return n;
}
