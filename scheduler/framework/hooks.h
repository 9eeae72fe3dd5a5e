/* The session's registered callbacks: one list per extension point, in tier order, as Volcano's
 * session keeps them. Private to scheduler/framework. */
#ifndef CALDERA_HOOKS_H
#define CALDERA_HOOKS_H

#include "scheduler/framework/plugin.h"
#include "scheduler/framework/session.h"

#define MAX_HOOKS (CONF_MAX_TIERS * CONF_MAX_PLUGINS + 4)

union hook_fn {
    job_order_fn job_order;
    queue_order_fn queue_order;
    task_order_fn task_order;
    namespace_order_fn namespace_order;
    predicate_fn predicate;
    node_filter_fn node_filter;
    node_order_fn node_order;
    job_ready_fn job_ready;
    job_valid_fn job_valid;
    job_starving_fn job_starving;
    job_enqueueable_fn job_enqueueable;
    allocatable_fn allocatable;
    overused_fn overused;
    victims_fn victims;
    allocate_event_fn allocate_event;
    bind_event_fn bind_event;
};

struct hook {
    int tier;
    union hook_fn fn;
    void *state;
};

struct hook_list {
    int n;
    struct hook items[MAX_HOOKS];
};

struct session_hooks {
    struct hook_list job_order, queue_order, task_order, namespace_order, predicate, node_filter, node_order, job_ready,
        job_valid, job_starving, job_enqueueable, allocatable, overused, preemptable, reclaimable, allocate_event,
        bind_event;
    struct plugin_conf implicit; /* conf of a plugin opened without being configured (quota) */
    int nopen;
    const struct plugin_def *open_plugins[MAX_HOOKS];
    void *open_states[MAX_HOOKS];
};

/* The static filters of every plugin, in order; used by the filter cache. */
bool session_run_node_filters(const struct session *ssn, const struct task_info *task, const struct node *node,
                              char *reason, int reason_len);
/* Tells the allocate-event hooks that resources moved. */
void session_notify_allocate(const struct session *ssn, const struct job *job, struct job_info *info,
                             const struct resvec *request, int32_t count, int sign);
/* Frees the filter cache and the victims index (filters.c, victims.c). */
void session_filters_free(struct session *ssn);
void session_victims_free(struct session *ssn);

#endif
