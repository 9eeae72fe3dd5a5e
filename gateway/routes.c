/* Every route the server answers. Kubernetes paths for Kubernetes and Volcano objects, caldera.io
 * for what Caldera adds. Keep gateway/discovery.c's verbs in step (a unit test checks). */
#include "gateway/handlers.h"
#include "gateway/router.h"

#define VCJOB "/apis/batch.volcano.sh/v1alpha1"
#define VCSCHED "/apis/scheduling.volcano.sh/v1beta1"
#define K8SSCHED "/apis/scheduling.k8s.io/v1"
#define VCBUS "/apis/bus.volcano.sh/v1alpha1"
#define CALDERA "/apis/caldera.io/v1"

const struct route gateway_routes[] = {
    {"GET", "/healthz", handle_healthz},
    {"GET", "/metrics", handle_metrics},
    {"GET", "/", handle_root},
    {"GET", "/ui", handle_ui},
    {"GET", "/ui/{file}", handle_ui_file},
    {"GET", "/openapi/v3", handle_openapi_v3},

    {"GET", "/api", handle_api_versions},
    {"GET", "/api/v1", handle_api_core_resources},
    {"GET", "/apis", handle_api_groups},
    {"GET", "/apis/{group}", handle_api_group},
    {"GET", "/apis/{group}/{version}", handle_api_group_resources},

    {"GET", "/api/v1/nodes", handle_node_list},
    {"GET", "/api/v1/nodes/{name}", handle_node_get},
    {"GET", "/api/v1/pods", handle_pod_list_all},
    {"GET", "/api/v1/namespaces/{ns}/pods", handle_pod_list},
    {"GET", "/api/v1/namespaces/{ns}/pods/{name}", handle_pod_get},
    {"DELETE", "/api/v1/namespaces/{ns}/pods/{name}", handle_pod_delete},
    {"GET", "/api/v1/namespaces/{ns}/pods/{name}/log", handle_pod_log},
    {"GET", "/api/v1/events", handle_event_list_all},
    {"GET", "/api/v1/namespaces/{ns}/events", handle_event_list},
    {"GET", "/api/v1/resourcequotas", handle_quota_list_all},
    {"GET", "/api/v1/namespaces/{ns}/resourcequotas", handle_quota_list},
    {"POST", "/api/v1/namespaces/{ns}/resourcequotas", handle_quota_create},
    {"GET", "/api/v1/namespaces/{ns}/resourcequotas/{name}", handle_quota_get},
    {"PUT", "/api/v1/namespaces/{ns}/resourcequotas/{name}", handle_quota_update},
    {"DELETE", "/api/v1/namespaces/{ns}/resourcequotas/{name}", handle_quota_delete},

    {"GET", VCJOB "/jobs", handle_job_list_all},
    {"GET", VCJOB "/namespaces/{ns}/jobs", handle_job_list},
    {"POST", VCJOB "/namespaces/{ns}/jobs", handle_job_create},
    {"GET", VCJOB "/namespaces/{ns}/jobs/{name}", handle_job_get},
    {"PUT", VCJOB "/namespaces/{ns}/jobs/{name}", handle_job_update},
    {"DELETE", VCJOB "/namespaces/{ns}/jobs/{name}", handle_job_delete},

    {"GET", VCBUS "/namespaces/{ns}/commands", handle_command_list},
    {"POST", VCBUS "/namespaces/{ns}/commands", handle_command_create},

    {"GET", VCSCHED "/queues", handle_queue_list},
    {"POST", VCSCHED "/queues", handle_queue_create},
    {"GET", VCSCHED "/queues/{name}", handle_queue_get},
    {"PUT", VCSCHED "/queues/{name}", handle_queue_update},
    {"DELETE", VCSCHED "/queues/{name}", handle_queue_delete},
    {"GET", VCSCHED "/podgroups", handle_podgroup_list_all},
    {"GET", VCSCHED "/namespaces/{ns}/podgroups", handle_podgroup_list},
    {"GET", VCSCHED "/namespaces/{ns}/podgroups/{name}", handle_podgroup_get},

    {"GET", K8SSCHED "/priorityclasses", handle_priorityclass_list},
    {"POST", K8SSCHED "/priorityclasses", handle_priorityclass_create},
    {"GET", K8SSCHED "/priorityclasses/{name}", handle_priorityclass_get},
    {"PUT", K8SSCHED "/priorityclasses/{name}", handle_priorityclass_update},
    {"DELETE", K8SSCHED "/priorityclasses/{name}", handle_priorityclass_delete},

    {"GET", CALDERA "/jobhistories", handle_jobhistory_list_all},
    {"GET", CALDERA "/namespaces/{ns}/jobhistories", handle_jobhistory_list},
    {"GET", CALDERA "/namespaces/{ns}/jobhistories/{name}", handle_job_history},
    {"GET", CALDERA "/namespaces/{ns}/jobs/{name}/history", handle_job_history},
    {"GET", CALDERA "/namespaces/{ns}/jobs/{name}/history/tasks/{task}", handle_task_history},
    {"GET", CALDERA "/namespaces/{ns}/jobs/{name}/history/pods/{pod}/attempts/{n}", handle_attempt_history},
    {"GET", CALDERA "/namespaces/{ns}/jobs/{name}/history/pods/{pod}/attempts/{n}/log", handle_attempt_log},
    {"GET", CALDERA "/namespaces/{ns}/jobs/{name}/manifest", handle_job_manifest},
    {"POST", CALDERA "/namespaces/{ns}/jobs/{name}/{action}", handle_job_action},
    {"POST", CALDERA "/queues/{name}/open", handle_queue_open},
    {"POST", CALDERA "/queues/{name}/close", handle_queue_close},
    {"GET", CALDERA "/stream", handle_stream_info},
    {"GET", CALDERA "/tokens", handle_token_list},
    {"POST", CALDERA "/tokens", handle_token_create},
    {"GET", CALDERA "/tokens/{name}", handle_token_get},
    {"DELETE", CALDERA "/tokens/{name}", handle_token_delete},

    /* Other dialects' jobs (adapters/dialect_registry.c), after every fixed path above. */
    {"GET", "/apis/{group}/{version}/{plural}", handle_dialect_list_all},
    {"GET", "/apis/{group}/{version}/namespaces/{ns}/{plural}", handle_dialect_list},
    {"POST", "/apis/{group}/{version}/namespaces/{ns}/{plural}", handle_dialect_create},
    {"GET", "/apis/{group}/{version}/namespaces/{ns}/{plural}/{name}", handle_dialect_get},
    {"DELETE", "/apis/{group}/{version}/namespaces/{ns}/{plural}/{name}", handle_dialect_delete},
    {NULL, NULL, NULL},
};
