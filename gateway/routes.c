/* Every route the server answers, with what the OpenAPI document and discovery say of it: the one
 * list of paths. Kubernetes paths for Kubernetes and Volcano objects, caldera.io for what Caldera adds. */
#include "gateway/openapi/openapi.h"
#include "gateway/resources/handlers.h"
#include "gateway/routes.h"

#define VCJOB "/apis/batch.volcano.sh/v1alpha1"
#define VCSCHED "/apis/scheduling.volcano.sh/v1beta1"
#define K8SSCHED "/apis/scheduling.k8s.io/v1"
#define VCBUS "/apis/bus.volcano.sh/v1alpha1"
#define VCFLOW "/apis/flow.volcano.sh/v1alpha1"
#define EVENTSV1 "/apis/events.k8s.io/v1"
#define CALDERA "/apis/caldera.io/v1"
#define DIALECT "/apis/{group}/{version}"

/* The query parameters and errors of the usual kinds of operation. */
#define Q_LIST (OQ_PRETTY | OQ_LABEL_SELECTOR | OQ_FIELD_SELECTOR | OQ_INCLUDE_OBJECT | Q_WATCH)
#define Q_WATCH \
    (OQ_WATCH | OQ_RESOURCE_VERSION | OQ_TIMEOUT_SECONDS | OQ_ALLOW_WATCH_BOOKMARKS | OQ_SEND_INITIAL_EVENTS)
#define Q_PAGED (Q_LIST | OQ_LIMIT | OQ_CONTINUE) /* the lists answered in pages (gateway/resources/list_page.c) */
#define Q_HISTORY (OQ_PRETTY | OQ_PHASE | OQ_SINCE | OQ_UNTIL | OQ_LIMIT | OQ_CONTINUE | Q_WATCH)
#define Q_PATCH (OQ_PRETTY | OQ_FIELD_VALIDATION | OQ_FIELD_MANAGER | OQ_FORCE)
#define Q_WRITE (OQ_PRETTY | OQ_FIELD_VALIDATION) /* a POST or PUT with a body */
#define E_READ (OE_400 | OE_404)
#define E_LIST (OE_400 | OE_410 | OE_504)
#define E_CREATE (OE_400 | OE_409 | OE_413 | OE_415 | OE_422 | OE_503 | OE_507)
#define E_UPDATE (E_CREATE | OE_404)
#define E_DELETE (OE_404 | OE_409 | OE_503 | OE_507)
#define E_ACT (OE_404 | OE_409 | OE_503 | OE_507)

#define TEXT "text/plain"

/* Each row: method, pattern, handler, then {operationId, summary, query parameters, body, success
 * code, answer, media, errors, discovery's short names} (route_doc.h). Discovery's resources,
 * kinds and verbs are read from these rows (gateway/openapi/discovery_resources.c), the OpenAPI tag from the
 * pattern. A fixed path must come before a pattern that would also match it. */
/* Rows as written by hand (one route a row or two), which the formatter leaves alone. */
/* clang-format off */
const struct route gateway_routes[] = {
    {"GET", "/healthz", handle_healthz, {"getHealthz", "whether the server and its job database are healthy", 0, NULL,
     200, NULL, TEXT, 0}},
    {"GET", "/", handle_root, {"getRoot", "redirects to the browser UI at /ui/", 0, NULL, 302, NULL, NULL, 0}},
    {"GET", "/ui", handle_ui, {"getUI", "the browser UI", 0, NULL, 200, NULL, "text/html", OE_404}},
    {"GET", "/ui/{file}", handle_ui_file, {"getUIFile", "a file of the browser UI", 0, NULL, 200, NULL, "*/*", OE_404}},
    {"GET", "/openapi/v3", handle_openapi_v3, {"getOpenAPIV3", "the index of the OpenAPI documents, one per API group "
     "version, as Kubernetes serves it (kubectl explain and kubectl's field validation read it)", 0, NULL, 200,
     "OpenAPIIndex", NULL, 0}},
    {"GET", "/openapi/v3/all", handle_openapi_v3_all, {"getOpenAPIV3All", "this document: every path", OQ_PRETTY,
     NULL, 200, "OpenAPIDocument", NULL, 0}},
    {"GET", "/openapi/v3/api/{version}", handle_openapi_v3_core, {"getOpenAPIV3Core",
     "the OpenAPI document of the core API's paths (api/v1)", OQ_PRETTY, NULL, 200, "OpenAPIDocument", NULL,
     OE_404}},
    {"GET", "/openapi/v3/apis/{group}/{version}", handle_openapi_v3_group, {"getOpenAPIV3Group",
     "the OpenAPI document of one API group version's paths", OQ_PRETTY, NULL, 200, "OpenAPIDocument", NULL,
     OE_404}},
    {"GET", "/openapi/v2", handle_openapi_v2, {"getOpenAPIV2", "the schemas as a Swagger 2.0 document (JSON only: "
     "a client asking only for protobuf gets 406)", OQ_PRETTY, NULL, 200, "OpenAPIDocument", NULL, 0}},
    {"GET", "/metrics", handle_metrics, {"getMetrics", "Prometheus metrics (text format 0.0.4)", 0, NULL, 200, NULL,
     "text/plain", 0}},

    {"GET", "/api", handle_api_versions, {"getCoreAPIVersions", "the versions of the core API", OQ_PRETTY, NULL, 200,
     "APIVersions", NULL, 0}},
    {"GET", "/api/v1", handle_api_core_resources, {"getCoreV1APIResources", "the resources of the core API", OQ_PRETTY,
     NULL, 200, "APIResourceList", NULL, 0}},
    {"GET", "/apis", handle_api_groups, {"getAPIGroups", "the API groups", OQ_PRETTY, NULL, 200, "APIGroupList", NULL,
     0}},
    {"GET", "/apis/{group}", handle_api_group, {"getAPIGroup", "one API group and its versions", OQ_PRETTY, NULL, 200,
     "APIGroup", NULL, OE_404}},
    {"GET", "/apis/{group}/{version}", handle_api_group_resources, {"getAPIGroupResources",
     "the resources of a group's version", OQ_PRETTY, NULL, 200, "APIResourceList", NULL, OE_404}},

    {"GET", "/api/v1/nodes", handle_node_list, {"listCoreV1Node", "list the nodes", Q_LIST, NULL, 200, "NodeList", NULL,
     E_LIST, "no"}},
    {"GET", "/api/v1/nodes/{name}", handle_node_get, {"readCoreV1Node", "read a node", OQ_PRETTY, NULL, 200, "Node",
     NULL, OE_404}},
    {"GET", "/api/v1/pods", handle_pod_list_all, {"listCoreV1PodForAllNamespaces", "list the pods of every namespace",
     Q_PAGED, NULL, 200, "PodList", NULL, E_LIST, "po"}},
    {"GET", "/api/v1/namespaces/{ns}/pods", handle_pod_list, {"listCoreV1NamespacedPod", "list the pods of a namespace",
     Q_PAGED, NULL, 200, "PodList", NULL, E_LIST}},
    {"GET", "/api/v1/namespaces/{ns}/pods/{name}", handle_pod_get, {"readCoreV1NamespacedPod", "read a pod", OQ_PRETTY,
     NULL, 200, "Pod", NULL, E_READ}},
    {"DELETE", "/api/v1/namespaces/{ns}/pods/{name}", handle_pod_delete, {"deleteCoreV1NamespacedPod",
     "delete a pod: it is created again, and PodEvicted goes through its job's policies", OQ_PRETTY, NULL, 200,
     "Status", NULL, E_DELETE}},
    {"GET", "/api/v1/namespaces/{ns}/pods/{name}/log", handle_pod_log, {"readCoreV1NamespacedPodLog",
     "read a pod's log (from the history once its job is gone)", OQ_PREVIOUS | OQ_ATTEMPT | OQ_FOLLOW, NULL, 200, NULL, TEXT,
     E_READ}},
    {"GET", "/api/v1/events", handle_event_list_all, {"listCoreV1EventForAllNamespaces",
     "list the events of every namespace (each recorded change, oldest first), or watch them",
     Q_LIST | OQ_LIMIT | OQ_CONTINUE, NULL, 200, "EventList", NULL, E_LIST, "ev"}},
    {"GET", "/api/v1/namespaces/{ns}/events", handle_event_list, {"listCoreV1NamespacedEvent",
     "list the events of a namespace (each recorded change, oldest first), or watch them",
     Q_LIST | OQ_LIMIT | OQ_CONTINUE, NULL, 200, "EventList", NULL, E_LIST}},
    {"GET", "/api/v1/resourcequotas", handle_quota_list_all, {"listCoreV1ResourceQuotaForAllNamespaces",
     "list the resource quotas of every namespace", Q_LIST, NULL, 200, "ResourceQuotaList", NULL, E_LIST, "quota"}},
    {"GET", "/api/v1/namespaces/{ns}/resourcequotas", handle_quota_list, {"listCoreV1NamespacedResourceQuota",
     "list the resource quotas of a namespace", Q_LIST, NULL, 200, "ResourceQuotaList", NULL, E_LIST}},
    {"POST", "/api/v1/namespaces/{ns}/resourcequotas", handle_quota_create, {"createCoreV1NamespacedResourceQuota",
     "create a resource quota", Q_WRITE, "ResourceQuota", 201, "ResourceQuota", NULL, E_CREATE}},
    {"GET", "/api/v1/namespaces/{ns}/resourcequotas/{name}", handle_quota_get, {"readCoreV1NamespacedResourceQuota",
     "read a resource quota", OQ_PRETTY, NULL, 200, "ResourceQuota", NULL, OE_404}},
    {"PUT", "/api/v1/namespaces/{ns}/resourcequotas/{name}", handle_quota_update,
     {"replaceCoreV1NamespacedResourceQuota", "replace a resource quota", Q_WRITE, "ResourceQuota", 200,
     "ResourceQuota", NULL, E_UPDATE}},
    {"PATCH", "/api/v1/namespaces/{ns}/resourcequotas/{name}", handle_quota_patch,
     {"patchCoreV1NamespacedResourceQuota",
     "patch a resource quota (merge, JSON or strategic merge patch, or server-side apply)", Q_PATCH,
     "ResourceQuota", 200, "ResourceQuota", NULL, E_UPDATE}},
    {"DELETE", "/api/v1/namespaces/{ns}/resourcequotas/{name}", handle_quota_delete,
     {"deleteCoreV1NamespacedResourceQuota", "delete a resource quota", OQ_PRETTY, NULL, 200, "Status", NULL,
     E_DELETE}},

    {"GET", VCJOB "/jobs", handle_job_list_all, {"listBatchVolcanoShV1alpha1JobForAllNamespaces",
     "list the jobs of every namespace", Q_PAGED, NULL, 200, "JobList", NULL, E_LIST, "vcjob vj"}},
    {"GET", VCJOB "/namespaces/{ns}/jobs", handle_job_list, {"listBatchVolcanoShV1alpha1NamespacedJob",
     "list the jobs of a namespace", Q_PAGED, NULL, 200, "JobList", NULL, E_LIST}},
    {"POST", VCJOB "/namespaces/{ns}/jobs", handle_job_create, {"createBatchVolcanoShV1alpha1NamespacedJob",
     "submit a job", Q_WRITE, "Job", 201, "Job", NULL, E_CREATE}},
    {"GET", VCJOB "/namespaces/{ns}/jobs/{name}", handle_job_get, {"readBatchVolcanoShV1alpha1NamespacedJob",
     "read a job", OQ_PRETTY, NULL, 200, "Job", NULL, E_READ}},
    {"PUT", VCJOB "/namespaces/{ns}/jobs/{name}", handle_job_update,
     {"replaceBatchVolcanoShV1alpha1NamespacedJob",
     "replace a job: what Volcano lets change (a scale: minAvailable, priorityClassName, the tasks' replicas and "
     "minAvailable)",
     Q_WRITE, "Job", 200, "Job", NULL, E_UPDATE}},
    {"PATCH", VCJOB "/namespaces/{ns}/jobs/{name}", handle_job_patch, {"patchBatchVolcanoShV1alpha1NamespacedJob",
     "patch a job (merge, JSON or strategic merge patch, or server-side apply): what Volcano lets change, as a PUT",
     Q_PATCH, "Job", 200, "Job", NULL, E_UPDATE}},
    {"DELETE", VCJOB "/namespaces/{ns}/jobs/{name}", handle_job_delete, {"deleteBatchVolcanoShV1alpha1NamespacedJob",
     "delete a job", OQ_PRETTY, NULL, 200, "Status", NULL, E_DELETE}},

    {"GET", VCJOB "/cronjobs", handle_cronjob_list_all, {"listBatchVolcanoShV1alpha1CronJobForAllNamespaces",
     "list the cron jobs of every namespace", Q_LIST, NULL, 200, "CronJobList", NULL, E_LIST, "cronvcjob cronvj"}},
    {"GET", VCJOB "/namespaces/{ns}/cronjobs", handle_cronjob_list, {"listBatchVolcanoShV1alpha1NamespacedCronJob",
     "list the cron jobs of a namespace", Q_LIST, NULL, 200, "CronJobList", NULL, E_LIST}},
    {"POST", VCJOB "/namespaces/{ns}/cronjobs", handle_cronjob_create,
     {"createBatchVolcanoShV1alpha1NamespacedCronJob", "create a cron job", OQ_PRETTY, "CronJob", 201, "CronJob",
     NULL, E_CREATE}},
    {"GET", VCJOB "/namespaces/{ns}/cronjobs/{name}", handle_cronjob_get,
     {"readBatchVolcanoShV1alpha1NamespacedCronJob", "read a cron job", OQ_PRETTY, NULL, 200, "CronJob", NULL,
     OE_404}},
    {"PUT", VCJOB "/namespaces/{ns}/cronjobs/{name}", handle_cronjob_update,
     {"replaceBatchVolcanoShV1alpha1NamespacedCronJob", "replace a cron job", OQ_PRETTY, "CronJob", 200, "CronJob",
     NULL, E_UPDATE}},
    {"DELETE", VCJOB "/namespaces/{ns}/cronjobs/{name}", handle_cronjob_delete,
     {"deleteBatchVolcanoShV1alpha1NamespacedCronJob", "delete a cron job and its jobs", OQ_PRETTY, NULL, 200,
     "Status", NULL, E_DELETE}},

    {"GET", VCFLOW "/jobtemplates", handle_jobtemplate_list_all,
     {"listFlowVolcanoShV1alpha1JobTemplateForAllNamespaces", "list the job templates of every namespace", Q_LIST,
     NULL, 200, "JobTemplateList", NULL, E_LIST, "jt"}},
    {"GET", VCFLOW "/namespaces/{ns}/jobtemplates", handle_jobtemplate_list,
     {"listFlowVolcanoShV1alpha1NamespacedJobTemplate", "list the job templates of a namespace", Q_LIST, NULL, 200,
     "JobTemplateList", NULL, E_LIST}},
    {"POST", VCFLOW "/namespaces/{ns}/jobtemplates", handle_jobtemplate_create,
     {"createFlowVolcanoShV1alpha1NamespacedJobTemplate", "create a job template (a Volcano Job spec kept for flows)",
     Q_WRITE, "JobTemplate", 201, "JobTemplate", NULL, E_CREATE}},
    {"GET", VCFLOW "/namespaces/{ns}/jobtemplates/{name}", handle_jobtemplate_get,
     {"readFlowVolcanoShV1alpha1NamespacedJobTemplate", "read a job template", OQ_PRETTY, NULL, 200, "JobTemplate",
     NULL, OE_404}},
    {"DELETE", VCFLOW "/namespaces/{ns}/jobtemplates/{name}", handle_jobtemplate_delete,
     {"deleteFlowVolcanoShV1alpha1NamespacedJobTemplate", "delete a job template", OQ_PRETTY, NULL, 200, "Status",
     NULL, E_DELETE}},
    {"GET", VCFLOW "/jobflows", handle_jobflow_list_all,
     {"listFlowVolcanoShV1alpha1JobFlowForAllNamespaces", "list the job flows of every namespace", Q_LIST, NULL, 200,
     "JobFlowList", NULL, E_LIST, "jf"}},
    {"GET", VCFLOW "/namespaces/{ns}/jobflows", handle_jobflow_list,
     {"listFlowVolcanoShV1alpha1NamespacedJobFlow", "list the job flows of a namespace", Q_LIST, NULL, 200,
     "JobFlowList", NULL, E_LIST}},
    {"POST", VCFLOW "/namespaces/{ns}/jobflows", handle_jobflow_create,
     {"createFlowVolcanoShV1alpha1NamespacedJobFlow",
     "create a job flow: its templates run as jobs <flow>-<template> in the order of their dependencies", Q_WRITE,
     "JobFlow", 201, "JobFlow", NULL, E_CREATE}},
    {"GET", VCFLOW "/namespaces/{ns}/jobflows/{name}", handle_jobflow_get,
     {"readFlowVolcanoShV1alpha1NamespacedJobFlow", "read a job flow", OQ_PRETTY, NULL, 200, "JobFlow", NULL,
     OE_404}},
    {"DELETE", VCFLOW "/namespaces/{ns}/jobflows/{name}", handle_jobflow_delete,
     {"deleteFlowVolcanoShV1alpha1NamespacedJobFlow",
     "delete a job flow: its running jobs are stopped, and deleted under jobRetainPolicy delete", OQ_PRETTY, NULL,
     200, "Status", NULL, E_DELETE}},

    {"GET", VCBUS "/namespaces/{ns}/commands", handle_command_list,
     {"listBusVolcanoShV1alpha1NamespacedCommand",
     "list the commands of a namespace (always empty: a command is run at once, never kept; a watch sees each one "
     "run)",
     Q_LIST, NULL, 200, "CommandList", NULL, E_LIST}},
    {"POST", VCBUS "/namespaces/{ns}/commands", handle_command_create, {"createBusVolcanoShV1alpha1NamespacedCommand",
     "run a command on a job or a queue", Q_WRITE, "Command", 201, "Command", NULL, E_CREATE | OE_404}},

    {"GET", VCSCHED "/queues", handle_queue_list, {"listSchedulingVolcanoShV1beta1Queue", "list the queues", Q_LIST,
     NULL, 200, "QueueList", NULL, E_LIST, "q queue-v1beta1"}},
    {"POST", VCSCHED "/queues", handle_queue_create, {"createSchedulingVolcanoShV1beta1Queue", "create a queue",
     Q_WRITE, "Queue", 201, "Queue", NULL, E_CREATE}},
    {"GET", VCSCHED "/queues/{name}", handle_queue_get, {"readSchedulingVolcanoShV1beta1Queue", "read a queue",
     OQ_PRETTY, NULL, 200, "Queue", NULL, OE_404}},
    {"PUT", VCSCHED "/queues/{name}", handle_queue_update, {"replaceSchedulingVolcanoShV1beta1Queue", "replace a queue",
     Q_WRITE, "Queue", 200, "Queue", NULL, E_UPDATE}},
    {"PATCH", VCSCHED "/queues/{name}", handle_queue_patch, {"patchSchedulingVolcanoShV1beta1Queue",
     "patch a queue (merge, JSON or strategic merge patch, or server-side apply)", Q_PATCH, "Queue", 200, "Queue",
     NULL, E_UPDATE}},
    {"DELETE", VCSCHED "/queues/{name}", handle_queue_delete, {"deleteSchedulingVolcanoShV1beta1Queue",
     "delete a queue (only a Closed one, never default)", OQ_PRETTY, NULL, 200, "Status", NULL, E_DELETE}},
    {"GET", VCSCHED "/podgroups", handle_podgroup_list_all, {"listSchedulingVolcanoShV1beta1PodGroupForAllNamespaces",
     "list the pod groups of every namespace", Q_PAGED, NULL, 200, "PodGroupList", NULL, E_LIST,
     "pg podgroup-v1beta1"}},
    {"GET", VCSCHED "/namespaces/{ns}/podgroups", handle_podgroup_list,
     {"listSchedulingVolcanoShV1beta1NamespacedPodGroup", "list the pod groups of a namespace", Q_PAGED, NULL, 200,
     "PodGroupList", NULL, E_LIST}},
    {"GET", VCSCHED "/namespaces/{ns}/podgroups/{name}", handle_podgroup_get,
     {"readSchedulingVolcanoShV1beta1NamespacedPodGroup", "read a job's pod group", OQ_PRETTY, NULL, 200, "PodGroup",
     NULL, OE_404}},

    {"GET", K8SSCHED "/priorityclasses", handle_priorityclass_list, {"listSchedulingV1PriorityClass",
     "list the priority classes", Q_LIST, NULL, 200, "PriorityClassList", NULL, E_LIST, "pc"}},
    {"POST", K8SSCHED "/priorityclasses", handle_priorityclass_create, {"createSchedulingV1PriorityClass",
     "create a priority class", Q_WRITE, "PriorityClass", 201, "PriorityClass", NULL, E_CREATE}},
    {"GET", K8SSCHED "/priorityclasses/{name}", handle_priorityclass_get, {"readSchedulingV1PriorityClass",
     "read a priority class", OQ_PRETTY, NULL, 200, "PriorityClass", NULL, OE_404}},
    {"PUT", K8SSCHED "/priorityclasses/{name}", handle_priorityclass_update, {"replaceSchedulingV1PriorityClass",
     "replace a priority class", Q_WRITE, "PriorityClass", 200, "PriorityClass", NULL, E_UPDATE}},
    {"PATCH", K8SSCHED "/priorityclasses/{name}", handle_priorityclass_patch, {"patchSchedulingV1PriorityClass",
     "patch a priority class (merge, JSON or strategic merge patch, or server-side apply)", Q_PATCH,
     "PriorityClass", 200, "PriorityClass", NULL, E_UPDATE}},
    {"DELETE", K8SSCHED "/priorityclasses/{name}", handle_priorityclass_delete, {"deleteSchedulingV1PriorityClass",
     "delete a priority class", OQ_PRETTY, NULL, 200, "Status", NULL, E_DELETE}},

    {"GET", CALDERA "/companions", handle_companion_list_all, {"listCalderaIoV1CompanionForAllNamespaces",
     "list the companions (Jupyter, TensorBoard, a terminal... beside a job's task) of every namespace",
     Q_LIST, NULL, 200, "CompanionList", NULL, E_LIST}},
    {"GET", CALDERA "/namespaces/{ns}/companions", handle_companion_list, {"listCalderaIoV1NamespacedCompanion",
     "list or watch the companions of a namespace", Q_LIST, NULL, 200, "CompanionList", NULL, E_LIST}},
    {"POST", CALDERA "/namespaces/{ns}/companions", handle_companion_create, {"createCalderaIoV1NamespacedCompanion",
     "start a companion beside a job's task (spec.jobName, spec.type; spec.task and spec.index: the first task's "
     "first replica by default)", Q_WRITE, "Companion", 201, "Companion", NULL, E_CREATE | OE_404}},
    {"GET", CALDERA "/namespaces/{ns}/companions/{name}", handle_companion_get, {"readCalderaIoV1NamespacedCompanion",
     "read a companion: its phase, URL (/proxy/{ns}/{name}/), port and last activity", OQ_PRETTY, NULL, 200,
     "Companion", NULL, OE_404}},
    {"DELETE", CALDERA "/namespaces/{ns}/companions/{name}", handle_companion_delete,
     {"deleteCalderaIoV1NamespacedCompanion", "stop a companion and remove it", OQ_PRETTY, NULL, 200, "Status", NULL,
     E_DELETE}},

    {"GET", CALDERA "/jobhistories", handle_jobhistory_list_all,
     {"listCalderaIoV1JobHistoryForAllNamespaces",
     "list the histories of live and deleted jobs of every namespace, newest first (a watch: each job's summary as "
     "its history changes)", Q_HISTORY, NULL, 200, "JobHistoryList", NULL, E_LIST}},
    {"GET", CALDERA "/namespaces/{ns}/jobhistories", handle_jobhistory_list,
     {"listCalderaIoV1NamespacedJobHistory",
     "list the histories of live and deleted jobs of a namespace, newest first (a watch: each job's summary as its "
     "history changes)", Q_HISTORY, NULL, 200, "JobHistoryList", NULL, E_LIST}},
    {"GET", CALDERA "/namespaces/{ns}/jobhistories/{name}", handle_job_history, {"readCalderaIoV1NamespacedJobHistory",
     "read a job's history", OQ_PRETTY | OQ_UID, NULL, 200, "JobHistory", NULL, OE_404}},
    {"GET", CALDERA "/namespaces/{ns}/jobs/{name}/history", handle_job_history,
     {"readCalderaIoV1NamespacedJobHistoryOfJob",
     "read a job's history: tasks, phase transitions, commands and every attempt", OQ_PRETTY | OQ_UID, NULL, 200,
     "JobHistory", NULL, OE_404}},
    {"GET", CALDERA "/namespaces/{ns}/jobs/{name}/history/tasks/{task}", handle_task_history,
     {"readCalderaIoV1NamespacedTaskHistory", "read the history of one task of a job", OQ_PRETTY | OQ_UID, NULL, 200,
     "TaskHistory", NULL, OE_404}},
    {"GET", CALDERA "/namespaces/{ns}/jobs/{name}/history/pods/{pod}/attempts/{n}", handle_attempt_history,
     {"readCalderaIoV1NamespacedPodAttempt", "read one attempt of a pod of a job", OQ_PRETTY | OQ_UID, NULL, 200,
     "PodAttempt", NULL, E_READ}},
    {"GET", CALDERA "/namespaces/{ns}/jobs/{name}/history/pods/{pod}/attempts/{n}/log", handle_attempt_log,
     {"readCalderaIoV1NamespacedPodAttemptLog", "read the log of one attempt of a pod of a job", OQ_UID, NULL, 200,
     NULL, TEXT, E_READ}},
    {"GET", CALDERA "/namespaces/{ns}/jobs/{name}/manifest", handle_job_manifest,
     {"readCalderaIoV1NamespacedJobManifest", "read a job as the manifest a Kubernetes cluster running Volcano accepts; "
     "with companions a v1 List of the Job and each companion's Pod, Service and Ingress, owned by the Job of uid "
     "ownerUid", OQ_PRETTY | OQ_OWNER_UID, NULL, 200, "Job", NULL, OE_400 | OE_404}},
    {"POST", CALDERA "/namespaces/{ns}/jobs/{name}/{action}", handle_job_action, {"actOnCalderaIoV1NamespacedJob",
     "suspend (abort), resume, restart, terminate or complete a job, as a Volcano Command would", OQ_PRETTY, NULL, 200,
     "Job", NULL, E_ACT}},
    {"POST", CALDERA "/namespaces/{ns}/jobflows/{name}/retry", handle_jobflow_retry,
     {"retryCalderaIoV1NamespacedJobFlow",
     "run a Failed job flow again from its failed flows, keeping the completed ones and their jobs", OQ_PRETTY, NULL,
     200, "JobFlow", NULL, E_ACT}},
    {"POST", CALDERA "/queues/{name}/open", handle_queue_open, {"openCalderaIoV1Queue", "open a queue", OQ_PRETTY, NULL,
     200, "Queue", NULL, E_ACT}},
    {"POST", CALDERA "/queues/{name}/close", handle_queue_close, {"closeCalderaIoV1Queue", "close a queue", OQ_PRETTY,
     NULL, 200, "Queue", NULL, E_ACT}},
    {"GET", CALDERA "/stream", handle_stream_info, {"readCalderaIoV1StreamInfo", "where the WebSocket stream of "
     "committed events listens: open a WebSocket to its url with ?namespace=NS[&job=NAME|&pod=NAME][&since=SEQ]; each "
     "message is one event with its seq", OQ_PRETTY, NULL, 200, "StreamInfo", NULL, OE_503}},
    {"GET", CALDERA "/tokens", handle_token_list, {"listCalderaIoV1Token",
     "list the tokens (an admin: every one; anyone else: their own user's), never the tokens themselves", OQ_PRETTY,
     NULL, 200, "TokenList", NULL, 0}},
    {"POST", CALDERA "/tokens", handle_token_create, {"createCalderaIoV1Token",
     "create a token (admins): the answer's status.token is the only time it is shown", OQ_PRETTY, "Token", 201,
     "Token", NULL, E_CREATE & ~OE_409}},
    {"GET", CALDERA "/tokens/{name}", handle_token_get, {"readCalderaIoV1Token",
     "read a token (never the token itself)", OQ_PRETTY, NULL, 200, "Token", NULL, OE_404}},
    {"DELETE", CALDERA "/tokens/{name}", handle_token_delete, {"deleteCalderaIoV1Token",
     "delete a token (admins): requests bearing it are refused at once", OQ_PRETTY, NULL, 200, "Status", NULL,
     OE_404 | OE_503 | OE_507}},

    /* What the Kubernetes clients read besides: the version, namespaces, events.k8s.io, /status. */
    {"GET", "/version", handle_version, {"getCodeVersion", "the Kubernetes version this server answers as "
     "(version.Info)", OQ_PRETTY, NULL, 200, "VersionInfo", NULL, 0}},
    {"GET", "/api/v1/namespaces", handle_namespace_list, {"listCoreV1Namespace", "list the namespaces: those created, "
     "those something lives in, and default", OQ_PRETTY, NULL, 200, "NamespaceList", NULL, E_LIST, "ns"}},
    {"POST", "/api/v1/namespaces", handle_namespace_create, {"createCoreV1Namespace", "create a namespace",
     OQ_PRETTY, "Namespace", 201, "Namespace", NULL, E_CREATE}},
    {"GET", "/api/v1/namespaces/{name}", handle_namespace_get, {"readCoreV1Namespace", "read a namespace", OQ_PRETTY,
     NULL, 200, "Namespace", NULL, OE_404}},
    {"GET", "/api/v1/nodes/{name}/status", handle_node_get, {"readCoreV1NodeStatus", "read a node's status",
     OQ_PRETTY, NULL, 200, "Node", NULL, OE_404}},
    {"GET", "/api/v1/namespaces/{ns}/pods/{name}/status", handle_pod_get, {"readCoreV1NamespacedPodStatus",
     "read a pod's status (Caldera's runtime alone sets it)", OQ_PRETTY, NULL, 200, "Pod", NULL, E_READ}},
    {"GET", VCJOB "/namespaces/{ns}/jobs/{name}/status", handle_job_get,
     {"readBatchVolcanoShV1alpha1NamespacedJobStatus", "read a job's status (its controller alone sets it)",
     OQ_PRETTY, NULL, 200, "Job", NULL, E_READ}},
    {"GET", VCSCHED "/queues/{name}/status", handle_queue_get, {"readSchedulingVolcanoShV1beta1QueueStatus",
     "read a queue's status", OQ_PRETTY, NULL, 200, "Queue", NULL, OE_404}},
    {"GET", VCSCHED "/namespaces/{ns}/podgroups/{name}/status", handle_podgroup_get,
     {"readSchedulingVolcanoShV1beta1NamespacedPodGroupStatus", "read a pod group's status", OQ_PRETTY, NULL, 200,
     "PodGroup", NULL, OE_404}},
    {"POST", VCSCHED "/namespaces/{ns}/podgroups", handle_podgroup_create,
     {"createSchedulingVolcanoShV1beta1NamespacedPodGroup", "create a PodGroup on its own: kept and listed, Pending "
     "(Caldera's pods all come from Jobs, each with its own PodGroup, so none names it)", OQ_PRETTY, "PodGroup", 201,
     "PodGroup", NULL, E_CREATE}},
    {"DELETE", VCSCHED "/namespaces/{ns}/podgroups/{name}", handle_podgroup_delete,
     {"deleteSchedulingVolcanoShV1beta1NamespacedPodGroup", "delete a PodGroup posted on its own (a Job's: 409, "
     "delete the Job)", OQ_PRETTY, NULL, 200, "Status", NULL, E_DELETE}},
    {"GET", EVENTSV1 "/events", handle_events_v1_list_all, {"listEventsV1EventForAllNamespaces",
     "list the events of every namespace as events.k8s.io/v1 Events, or watch them", Q_LIST | OQ_LIMIT | OQ_CONTINUE,
     NULL, 200, "EventList", NULL, E_LIST, "ev"}},
    {"GET", EVENTSV1 "/namespaces/{ns}/events", handle_events_v1_list, {"listEventsV1NamespacedEvent",
     "list the events of a namespace as events.k8s.io/v1 Events, or watch them", Q_LIST | OQ_LIMIT | OQ_CONTINUE,
     NULL, 200, "EventList", NULL, E_LIST}},

    /* Other dialects' jobs (adapters/dialects.c), after every fixed path above. */
    {"GET", DIALECT "/{plural}", handle_dialect_list_all, {"list{kind}ForAllNamespaces",
     "list the {kind} objects of every namespace", Q_PAGED | OQ_AS, NULL, 200, "{kind}List", NULL, E_LIST}},
    {"GET", DIALECT "/namespaces/{ns}/{plural}", handle_dialect_list, {"listNamespaced{kind}",
     "list the {kind} objects of a namespace", Q_PAGED | OQ_AS, NULL, 200, "{kind}List", NULL, E_LIST}},
    {"POST", DIALECT "/namespaces/{ns}/{plural}", handle_dialect_create, {"createNamespaced{kind}",
     "submit a {kind}: it runs as a Volcano Job of the same name", Q_WRITE | OQ_AS, "{kind}", 201, "{kind}", NULL,
     E_CREATE}},
    {"GET", DIALECT "/namespaces/{ns}/{plural}/{name}", handle_dialect_get, {"readNamespaced{kind}", "read a {kind}",
     OQ_PRETTY | OQ_AS, NULL, 200, "{kind}", NULL, E_READ}},
    {"PUT", DIALECT "/namespaces/{ns}/{plural}/{name}", handle_dialect_update, {"replaceNamespaced{kind}",
     "replace a {kind}: only what its kind lets change (a DebugSession's spec.duration or "
     "spec.activeDeadlineSeconds: its deadline moves, counted from its start); anything else is 422",
     Q_WRITE | OQ_AS, "{kind}", 200, "{kind}", NULL, E_UPDATE}},
    {"PATCH", DIALECT "/namespaces/{ns}/{plural}/{name}", handle_dialect_patch, {"patchNamespaced{kind}",
     "change a {kind} by a JSON merge patch (application/merge-patch+json): only what its kind lets change (a "
     "DebugSession's spec.duration or spec.activeDeadlineSeconds); anything else is 422",
     Q_WRITE | OQ_AS, "{kind}", 200, "{kind}", NULL, E_UPDATE}},
    {"DELETE", DIALECT "/namespaces/{ns}/{plural}/{name}", handle_dialect_delete, {"deleteNamespaced{kind}",
     "delete a {kind}", OQ_PRETTY | OQ_AS, NULL, 200, "Status", NULL, E_DELETE}},
    {NULL, NULL, NULL, {NULL}},
};
/* clang-format on */
