/* The controller's side of the objects that configure the scheduler: Queues (with Volcano's
 * Open -> Closing -> Closed state machine), PriorityClasses and ResourceQuotas. Each change checks
 * what needs live state, updates the cluster and records one journal entry whose sequence number
 * becomes the object's resourceVersion. On success the cluster owns the object passed in; on
 * failure (NULL or -1, the reason in st) the caller still does. */
#ifndef CALDERA_CONTROLLER_OBJECTS_H
#define CALDERA_CONTROLLER_OBJECTS_H

#include <stdint.h>

#include "adapters/objects/queue.h"
#include "common/api_status.h"
#include "scheduler/controller/controller.h"

/* The PodGroups of a queue's live jobs by phase, as Queue.status counts them. */
struct queue_counts controller_count_podgroups(const struct cluster *c, const struct queue *q);

/* Queues. Create: name free (409), parent exists (422). Update (PUT of q->name): exists (404),
 * metadata.resourceVersion matches when given (409), parent exists and makes no cycle (422); uid,
 * creation time, state and allocation carry over. Delete: `default` never (403), only a Closed
 * queue (409, saying how to close it), none of whose children remain (409). */
struct queue *controller_create_queue(struct controller *ctl, struct queue *q, struct api_status *st);
struct queue *controller_update_queue(struct controller *ctl, struct queue *q, struct api_status *st);
int controller_delete_queue(struct controller *ctl, const char *name, uint64_t *seq, struct api_status *st);
/* Records a change the server made to a queue itself (the WatchDog's capability): its stored row
 * and an event with reason and message; the queue keeps its state. */
void controller_queue_changed(struct controller *ctl, struct queue *q, const char *reason, const char *message);
/* Close: Open -> Closing while the queue still has Pending, Inqueue or Running PodGroups, else
 * Closed. Open: Closing or Closed -> Open. Either is a no-op in the state it leads to. */
struct queue *controller_close_queue(struct controller *ctl, const char *name, struct api_status *st);
struct queue *controller_open_queue(struct controller *ctl, const char *name, struct api_status *st);

/* PriorityClasses. Built-ins cannot be created, changed or deleted (403); one globalDefault at
 * most (422); value and preemptionPolicy are immutable (422). */
struct priority_class *controller_create_priority_class(struct controller *ctl, struct priority_class *pc,
                                                        struct api_status *st);
struct priority_class *controller_update_priority_class(struct controller *ctl, struct priority_class *pc,
                                                        struct api_status *st);
int controller_delete_priority_class(struct controller *ctl, const char *name, uint64_t *seq, struct api_status *st);

/* ResourceQuotas, by namespace and name. */
struct resource_quota *controller_find_quota(const struct cluster *c, const char *ns, const char *name);
struct resource_quota *controller_create_quota(struct controller *ctl, struct resource_quota *q, struct api_status *st);
struct resource_quota *controller_update_quota(struct controller *ctl, struct resource_quota *q, struct api_status *st);
int controller_delete_quota(struct controller *ctl, const char *ns, const char *name, uint64_t *seq,
                            struct api_status *st);
/* What a namespace's live jobs hold on nodes: their replicas' requests, and pods = replicas. */
void controller_namespace_usage(const struct cluster *c, const char *ns, struct resvec *used);

/* Recovery, after the last stored row (from controller_finish_recovery): creates the built-in
 * PriorityClasses the store did not have, and gives restored jobs their priority again. */
int controller_finish_objects(struct controller *ctl);

#endif
