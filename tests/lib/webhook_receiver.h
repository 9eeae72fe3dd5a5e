/* A webhook receiver for the WatchDog's tests: a libmicrohttpd server on 127.0.0.1 that keeps every
 * POST it gets (path and body) and answers 200, or 500 while told to fail. */
#ifndef CALDERA_TEST_WEBHOOK_RECEIVER_H
#define CALDERA_TEST_WEBHOOK_RECEIVER_H

#include <pthread.h>
#include <stdbool.h>

struct MHD_Daemon;

#define RECEIVER_MAX 256

struct webhook_receiver {
    struct MHD_Daemon *daemon;
    int port;
    pthread_mutex_t lock; /* guards what follows */
    int n;
    char *paths[RECEIVER_MAX], *bodies[RECEIVER_MAX];
    bool failing; /* answer 500 */
};

/* Starts it on a free port of 127.0.0.1. Returns 0 or -1. */
int receiver_start(struct webhook_receiver *r);
void receiver_stop(struct webhook_receiver *r);
void receiver_set_failing(struct webhook_receiver *r, bool failing);
/* Waits at most ms for a POST to path whose body holds every needle (NULL-terminated); a copy of
 * that body (caller frees), or NULL. */
char *receiver_wait(struct webhook_receiver *r, const char *path, const char *const *needles, int ms);
/* How many POSTs to path whose body holds needle (NULL: any) came so far. */
int receiver_count(struct webhook_receiver *r, const char *path, const char *needle);
/* A port of 127.0.0.1 where nothing listens (bound, then closed), or -1. */
int receiver_dead_port(void);

#endif
