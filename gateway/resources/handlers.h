/* The gateway's request handlers, one group per file: what gateway/routes.c points its routes at.
 * What they share to answer lives in gateway/resources/answer.h. */
#ifndef CALDERA_HANDLERS_H
#define CALDERA_HANDLERS_H

#include "gateway/http/http.h"

/* jobs.c */
void handle_job_create(struct http_req *req);
void handle_job_get(struct http_req *req);
void handle_job_list(struct http_req *req);
void handle_job_list_all(struct http_req *req);
void handle_job_delete(struct http_req *req);
void handle_job_update(struct http_req *req);
/* patch.c: PATCH (merge, JSON, strategic merge, server-side apply), then the PUT. */
void handle_job_patch(struct http_req *req);
void handle_job_manifest(struct http_req *req);

/* dialects.c: jobs posted as PyTorchJob, RayJob, SparkApplication, training request... */
void handle_dialect_create(struct http_req *req);
void handle_dialect_get(struct http_req *req);
void handle_dialect_list(struct http_req *req);
void handle_dialect_list_all(struct http_req *req);
void handle_dialect_delete(struct http_req *req);
/* PUT and PATCH (merge patch): what the dialect's update lets change (a DebugSession's deadline). */
void handle_dialect_update(struct http_req *req);
void handle_dialect_patch(struct http_req *req);

/* history.c: caldera.io/v1 history */
void handle_jobhistory_list(struct http_req *req);
void handle_jobhistory_list_all(struct http_req *req);
void handle_job_history(struct http_req *req);
void handle_task_history(struct http_req *req);
void handle_attempt_history(struct http_req *req);
void handle_attempt_log(struct http_req *req);
/* commands.c */
void handle_command_create(struct http_req *req);
void handle_command_list(struct http_req *req);
void handle_job_action(struct http_req *req);
void handle_pod_delete(struct http_req *req);

/* pods.c */
void handle_pod_list(struct http_req *req);
void handle_pod_list_all(struct http_req *req);
void handle_pod_get(struct http_req *req);
void handle_pod_log(struct http_req *req);

/* events.c: core/v1 Events from the record of every change */
void handle_event_list(struct http_req *req);
void handle_event_list_all(struct http_req *req);
/* the same events as events.k8s.io/v1 Events */
void handle_events_v1_list(struct http_req *req);
void handle_events_v1_list_all(struct http_req *req);

/* namespaces.c: core/v1 Namespaces (created ones, and those something lives in) */
void handle_namespace_list(struct http_req *req);
void handle_namespace_get(struct http_req *req);
void handle_namespace_create(struct http_req *req);

/* version.c: GET /version */
void handle_version(struct http_req *req);

/* cluster.c: nodes */
void handle_node_list(struct http_req *req);
void handle_node_get(struct http_req *req);

/* podgroups.c: each job's PodGroup, and those posted on their own */
void handle_podgroup_list(struct http_req *req);
void handle_podgroup_list_all(struct http_req *req);
void handle_podgroup_get(struct http_req *req);
void handle_podgroup_create(struct http_req *req);
void handle_podgroup_delete(struct http_req *req);

/* companions.c: Companions (caldera.io/v1) */
void handle_companion_list_all(struct http_req *req);
void handle_companion_list(struct http_req *req);
void handle_companion_get(struct http_req *req);
void handle_companion_create(struct http_req *req);
void handle_companion_delete(struct http_req *req);

/* objects.c: queues (with Caldera's open and close), priorityclasses, resourcequotas */
void handle_queue_list(struct http_req *req);
void handle_queue_get(struct http_req *req);
void handle_queue_create(struct http_req *req);
void handle_queue_update(struct http_req *req);
/* patch.c: PATCH (merge, JSON, strategic merge, server-side apply), then the PUT. */
void handle_queue_patch(struct http_req *req);
void handle_queue_delete(struct http_req *req);
void handle_queue_open(struct http_req *req);
void handle_queue_close(struct http_req *req);
void handle_priorityclass_list(struct http_req *req);
void handle_priorityclass_get(struct http_req *req);
void handle_priorityclass_create(struct http_req *req);
void handle_priorityclass_update(struct http_req *req);
/* patch.c: PATCH (merge, JSON, strategic merge, server-side apply), then the PUT. */
void handle_priorityclass_patch(struct http_req *req);
void handle_priorityclass_delete(struct http_req *req);
void handle_quota_list_all(struct http_req *req);
void handle_quota_list(struct http_req *req);
void handle_quota_get(struct http_req *req);
void handle_quota_create(struct http_req *req);
void handle_quota_update(struct http_req *req);
/* patch.c: PATCH (merge, JSON, strategic merge, server-side apply), then the PUT. */
void handle_quota_patch(struct http_req *req);
void handle_quota_delete(struct http_req *req);
/* configs.c: configmaps and secrets (patch.c: their PATCH) */
void handle_configmap_list_all(struct http_req *req);
void handle_configmap_list(struct http_req *req);
void handle_configmap_get(struct http_req *req);
void handle_configmap_create(struct http_req *req);
void handle_configmap_update(struct http_req *req);
void handle_configmap_patch(struct http_req *req);
void handle_configmap_delete(struct http_req *req);
void handle_secret_list_all(struct http_req *req);
void handle_secret_list(struct http_req *req);
void handle_secret_get(struct http_req *req);
void handle_secret_create(struct http_req *req);
void handle_secret_update(struct http_req *req);
void handle_secret_patch(struct http_req *req);
void handle_secret_delete(struct http_req *req);
/* cronjobs.c: Volcano's CronJobs. */
void handle_cronjob_list_all(struct http_req *req);
void handle_cronjob_list(struct http_req *req);
void handle_cronjob_get(struct http_req *req);
void handle_cronjob_create(struct http_req *req);
void handle_cronjob_update(struct http_req *req);
void handle_cronjob_delete(struct http_req *req);
/* jobflows.c: Volcano's JobTemplates and JobFlows (flow.volcano.sh). */
void handle_jobtemplate_list_all(struct http_req *req);
void handle_jobtemplate_list(struct http_req *req);
void handle_jobtemplate_get(struct http_req *req);
void handle_jobtemplate_create(struct http_req *req);
void handle_jobtemplate_delete(struct http_req *req);
void handle_jobflow_list_all(struct http_req *req);
void handle_jobflow_list(struct http_req *req);
void handle_jobflow_get(struct http_req *req);
void handle_jobflow_create(struct http_req *req);
void handle_jobflow_delete(struct http_req *req);
void handle_jobflow_retry(struct http_req *req);

/* tokens.c: caldera.io/v1 tokens */
void handle_token_list(struct http_req *req);
void handle_token_get(struct http_req *req);
void handle_token_create(struct http_req *req);
void handle_token_delete(struct http_req *req);

/* metrics.c: GET /metrics (Prometheus text format 0.0.4) */
void handle_metrics(struct http_req *req);

/* misc.c */
void handle_healthz(struct http_req *req);
void handle_root(struct http_req *req);
void handle_ui(struct http_req *req);
void handle_ui_file(struct http_req *req);

/* stream.c */
void handle_stream_info(struct http_req *req);

#endif
