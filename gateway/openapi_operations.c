/* What the OpenAPI document says of each route of gateway/routes.c: one line per route, with its
 * query parameters, body, answer and errors. A route missing here fails tests/unit/test_openapi.c. */
#include <stddef.h>

#include "gateway/openapi_internal.h"

#define VCJOB "/apis/batch.volcano.sh/v1alpha1"
#define VCSCHED "/apis/scheduling.volcano.sh/v1beta1"
#define K8SSCHED "/apis/scheduling.k8s.io/v1"
#define VCBUS "/apis/bus.volcano.sh/v1alpha1"
#define CALDERA "/apis/caldera.io/v1"
#define DIALECT "/apis/{group}/{version}"

/* Tags: one per API group and version, as Kubernetes' document has them. */
#define T_CORE "core_v1"
#define T_VCJOB "batch.volcano.sh_v1alpha1"
#define T_VCSCHED "scheduling.volcano.sh_v1beta1"
#define T_K8SSCHED "scheduling.k8s.io_v1"
#define T_VCBUS "bus.volcano.sh_v1alpha1"
#define T_CALDERA "caldera.io_v1"
#define T_DIALECT "{group}_{version}"

/* The query parameters and errors of the usual kinds of operation. */
#define Q_LIST (OQ_PRETTY | OQ_LABEL_SELECTOR | OQ_FIELD_SELECTOR | Q_WATCH)
#define Q_WATCH (OQ_WATCH | OQ_RESOURCE_VERSION | OQ_TIMEOUT_SECONDS | OQ_ALLOW_WATCH_BOOKMARKS | OQ_SEND_INITIAL_EVENTS)
#define Q_PAGED (Q_LIST | OQ_LIMIT | OQ_CONTINUE) /* the lists answered in pages (gateway/list_page.c) */
#define Q_HISTORY (OQ_PRETTY | OQ_PHASE | OQ_SINCE | OQ_UNTIL | OQ_LIMIT | OQ_CONTINUE | Q_WATCH)
#define E_READ (OE_400 | OE_404)
#define E_LIST (OE_400 | OE_410 | OE_504)
#define E_CREATE (OE_400 | OE_409 | OE_413 | OE_415 | OE_422 | OE_503 | OE_507)
#define E_UPDATE (E_CREATE | OE_404)
#define E_DELETE (OE_404 | OE_409 | OE_503 | OE_507)
#define E_ACT (OE_404 | OE_409 | OE_503 | OE_507)

#define TEXT "text/plain"

const struct openapi_operation openapi_operations[] = {
    {"GET", "/healthz", "getHealthz", "server", "whether the server and its job database are healthy", 0, NULL, 200,
     NULL, TEXT, 0},
    {"GET", "/", "getRoot", "server", "redirects to the browser UI at /ui/", 0, NULL, 302, NULL, NULL, 0},
    {"GET", "/ui", "getUI", "server", "the browser UI", 0, NULL, 200, NULL, "text/html", OE_404},
    {"GET", "/ui/{file}", "getUIFile", "server", "a file of the browser UI", 0, NULL, 200, NULL, "*/*", OE_404},
    {"GET", "/openapi/v3", "getOpenAPIV3", "server", "this document", OQ_PRETTY, NULL, 200, "OpenAPIDocument", NULL,
     0},
    {"GET", "/metrics", "getMetrics", "server", "Prometheus metrics (text format 0.0.4)", 0, NULL, 200, NULL,
     "text/plain", 0},

    {"GET", "/api", "getCoreAPIVersions", "discovery", "the versions of the core API", OQ_PRETTY, NULL, 200,
     "APIVersions", NULL, 0},
    {"GET", "/api/v1", "getCoreV1APIResources", "discovery", "the resources of the core API", OQ_PRETTY, NULL, 200,
     "APIResourceList", NULL, 0},
    {"GET", "/apis", "getAPIGroups", "discovery", "the API groups", OQ_PRETTY, NULL, 200, "APIGroupList", NULL, 0},
    {"GET", "/apis/{group}", "getAPIGroup", "discovery", "one API group and its versions", OQ_PRETTY, NULL, 200,
     "APIGroup", NULL, OE_404},
    {"GET", "/apis/{group}/{version}", "getAPIGroupResources", "discovery", "the resources of a group's version",
     OQ_PRETTY, NULL, 200, "APIResourceList", NULL, OE_404},

    {"GET", "/api/v1/nodes", "listCoreV1Node", T_CORE, "list the nodes", Q_LIST, NULL, 200, "NodeList", NULL, E_LIST},
    {"GET", "/api/v1/nodes/{name}", "readCoreV1Node", T_CORE, "read a node", OQ_PRETTY, NULL, 200, "Node", NULL,
     OE_404},
    {"GET", "/api/v1/pods", "listCoreV1PodForAllNamespaces", T_CORE, "list the pods of every namespace", Q_PAGED, NULL,
     200, "PodList", NULL, E_LIST},
    {"GET", "/api/v1/namespaces/{ns}/pods", "listCoreV1NamespacedPod", T_CORE, "list the pods of a namespace",
     Q_PAGED, NULL, 200, "PodList", NULL, E_LIST},
    {"GET", "/api/v1/namespaces/{ns}/pods/{name}", "readCoreV1NamespacedPod", T_CORE, "read a pod", OQ_PRETTY, NULL,
     200, "Pod", NULL, E_READ},
    {"DELETE", "/api/v1/namespaces/{ns}/pods/{name}", "deleteCoreV1NamespacedPod", T_CORE,
     "delete a pod: it is created again, and PodEvicted goes through its job's policies", OQ_PRETTY, NULL, 200,
     "Status", NULL, E_DELETE},
    {"GET", "/api/v1/namespaces/{ns}/pods/{name}/log", "readCoreV1NamespacedPodLog", T_CORE,
     "read a pod's log (from the history once its job is gone)", OQ_PREVIOUS | OQ_ATTEMPT, NULL, 200, NULL, TEXT,
     E_READ},
    {"GET", "/api/v1/events", "listCoreV1EventForAllNamespaces", T_CORE,
     "list the events of every namespace (each recorded change, oldest first), or watch them",
     Q_LIST | OQ_LIMIT | OQ_CONTINUE, NULL, 200, "EventList", NULL, E_LIST},
    {"GET", "/api/v1/namespaces/{ns}/events", "listCoreV1NamespacedEvent", T_CORE,
     "list the events of a namespace (each recorded change, oldest first), or watch them",
     Q_LIST | OQ_LIMIT | OQ_CONTINUE, NULL, 200, "EventList", NULL, E_LIST},
    {"GET", "/api/v1/resourcequotas", "listCoreV1ResourceQuotaForAllNamespaces", T_CORE,
     "list the resource quotas of every namespace", Q_LIST, NULL, 200, "ResourceQuotaList", NULL, E_LIST},
    {"GET", "/api/v1/namespaces/{ns}/resourcequotas", "listCoreV1NamespacedResourceQuota", T_CORE,
     "list the resource quotas of a namespace", Q_LIST, NULL, 200, "ResourceQuotaList", NULL, E_LIST},
    {"POST", "/api/v1/namespaces/{ns}/resourcequotas", "createCoreV1NamespacedResourceQuota", T_CORE,
     "create a resource quota", OQ_PRETTY, "ResourceQuota", 201, "ResourceQuota", NULL, E_CREATE},
    {"GET", "/api/v1/namespaces/{ns}/resourcequotas/{name}", "readCoreV1NamespacedResourceQuota", T_CORE,
     "read a resource quota", OQ_PRETTY, NULL, 200, "ResourceQuota", NULL, OE_404},
    {"PUT", "/api/v1/namespaces/{ns}/resourcequotas/{name}", "replaceCoreV1NamespacedResourceQuota", T_CORE,
     "replace a resource quota", OQ_PRETTY, "ResourceQuota", 200, "ResourceQuota", NULL, E_UPDATE},
    {"DELETE", "/api/v1/namespaces/{ns}/resourcequotas/{name}", "deleteCoreV1NamespacedResourceQuota", T_CORE,
     "delete a resource quota", OQ_PRETTY, NULL, 200, "Status", NULL, E_DELETE},

    {"GET", VCJOB "/jobs", "listBatchVolcanoShV1alpha1JobForAllNamespaces", T_VCJOB, "list the jobs of every namespace",
     Q_PAGED, NULL, 200, "JobList", NULL, E_LIST},
    {"GET", VCJOB "/namespaces/{ns}/jobs", "listBatchVolcanoShV1alpha1NamespacedJob", T_VCJOB,
     "list the jobs of a namespace", Q_PAGED, NULL, 200, "JobList", NULL, E_LIST},
    {"POST", VCJOB "/namespaces/{ns}/jobs", "createBatchVolcanoShV1alpha1NamespacedJob", T_VCJOB, "submit a job",
     OQ_PRETTY, "Job", 201, "Job", NULL, E_CREATE},
    {"GET", VCJOB "/namespaces/{ns}/jobs/{name}", "readBatchVolcanoShV1alpha1NamespacedJob", T_VCJOB, "read a job",
     OQ_PRETTY, NULL, 200, "Job", NULL, E_READ},
    {"PUT", VCJOB "/namespaces/{ns}/jobs/{name}", "replaceBatchVolcanoShV1alpha1NamespacedJob", T_VCJOB,
     "replace a job: what Volcano lets change (a scale: minAvailable, priorityClassName, the tasks' replicas and "
     "minAvailable)",
     OQ_PRETTY, "Job", 200, "Job", NULL, E_UPDATE},
    {"DELETE", VCJOB "/namespaces/{ns}/jobs/{name}", "deleteBatchVolcanoShV1alpha1NamespacedJob", T_VCJOB,
     "delete a job", OQ_PRETTY, NULL, 200, "Status", NULL, E_DELETE},

    {"GET", VCBUS "/namespaces/{ns}/commands", "listBusVolcanoShV1alpha1NamespacedCommand", T_VCBUS,
     "list the commands of a namespace (always empty: a command is run at once, never kept; a watch sees each one "
     "run)", Q_LIST, NULL, 200, "CommandList", NULL, E_LIST},
    {"POST", VCBUS "/namespaces/{ns}/commands", "createBusVolcanoShV1alpha1NamespacedCommand", T_VCBUS,
     "run a command on a job or a queue", OQ_PRETTY, "Command", 201, "Command", NULL, E_CREATE | OE_404},

    {"GET", VCSCHED "/queues", "listSchedulingVolcanoShV1beta1Queue", T_VCSCHED, "list the queues", Q_LIST, NULL,
     200, "QueueList", NULL, E_LIST},
    {"POST", VCSCHED "/queues", "createSchedulingVolcanoShV1beta1Queue", T_VCSCHED, "create a queue", OQ_PRETTY,
     "Queue", 201, "Queue", NULL, E_CREATE},
    {"GET", VCSCHED "/queues/{name}", "readSchedulingVolcanoShV1beta1Queue", T_VCSCHED, "read a queue", OQ_PRETTY,
     NULL, 200, "Queue", NULL, OE_404},
    {"PUT", VCSCHED "/queues/{name}", "replaceSchedulingVolcanoShV1beta1Queue", T_VCSCHED, "replace a queue",
     OQ_PRETTY, "Queue", 200, "Queue", NULL, E_UPDATE},
    {"DELETE", VCSCHED "/queues/{name}", "deleteSchedulingVolcanoShV1beta1Queue", T_VCSCHED,
     "delete a queue (only a Closed one, never default)", OQ_PRETTY, NULL, 200, "Status", NULL, E_DELETE},
    {"GET", VCSCHED "/podgroups", "listSchedulingVolcanoShV1beta1PodGroupForAllNamespaces", T_VCSCHED,
     "list the pod groups of every namespace", Q_PAGED, NULL, 200, "PodGroupList", NULL, E_LIST},
    {"GET", VCSCHED "/namespaces/{ns}/podgroups", "listSchedulingVolcanoShV1beta1NamespacedPodGroup", T_VCSCHED,
     "list the pod groups of a namespace", Q_PAGED, NULL, 200, "PodGroupList", NULL, E_LIST},
    {"GET", VCSCHED "/namespaces/{ns}/podgroups/{name}", "readSchedulingVolcanoShV1beta1NamespacedPodGroup", T_VCSCHED,
     "read a job's pod group", OQ_PRETTY, NULL, 200, "PodGroup", NULL, OE_404},

    {"GET", K8SSCHED "/priorityclasses", "listSchedulingV1PriorityClass", T_K8SSCHED, "list the priority classes",
     Q_LIST, NULL, 200, "PriorityClassList", NULL, E_LIST},
    {"POST", K8SSCHED "/priorityclasses", "createSchedulingV1PriorityClass", T_K8SSCHED, "create a priority class",
     OQ_PRETTY, "PriorityClass", 201, "PriorityClass", NULL, E_CREATE},
    {"GET", K8SSCHED "/priorityclasses/{name}", "readSchedulingV1PriorityClass", T_K8SSCHED,
     "read a priority class", OQ_PRETTY, NULL, 200, "PriorityClass", NULL, OE_404},
    {"PUT", K8SSCHED "/priorityclasses/{name}", "replaceSchedulingV1PriorityClass", T_K8SSCHED,
     "replace a priority class", OQ_PRETTY, "PriorityClass", 200, "PriorityClass", NULL, E_UPDATE},
    {"DELETE", K8SSCHED "/priorityclasses/{name}", "deleteSchedulingV1PriorityClass", T_K8SSCHED,
     "delete a priority class", OQ_PRETTY, NULL, 200, "Status", NULL, E_DELETE},

    {"GET", CALDERA "/jobhistories", "listCalderaIoV1JobHistoryForAllNamespaces", T_CALDERA,
     "list the histories of live and deleted jobs of every namespace, newest first (a watch: each job's summary "
     "as its history changes)", Q_HISTORY, NULL, 200, "JobHistoryList", NULL, E_LIST},
    {"GET", CALDERA "/namespaces/{ns}/jobhistories", "listCalderaIoV1NamespacedJobHistory", T_CALDERA,
     "list the histories of live and deleted jobs of a namespace, newest first (a watch: each job's summary as its "
     "history changes)", Q_HISTORY, NULL, 200, "JobHistoryList", NULL, E_LIST},
    {"GET", CALDERA "/namespaces/{ns}/jobhistories/{name}", "readCalderaIoV1NamespacedJobHistory", T_CALDERA,
     "read a job's history", OQ_PRETTY | OQ_UID, NULL, 200, "JobHistory", NULL, OE_404},
    {"GET", CALDERA "/namespaces/{ns}/jobs/{name}/history", "readCalderaIoV1NamespacedJobHistoryOfJob", T_CALDERA,
     "read a job's history: tasks, phase transitions, commands and every attempt", OQ_PRETTY | OQ_UID, NULL, 200,
     "JobHistory", NULL, OE_404},
    {"GET", CALDERA "/namespaces/{ns}/jobs/{name}/history/tasks/{task}", "readCalderaIoV1NamespacedTaskHistory",
     T_CALDERA, "read the history of one task of a job", OQ_PRETTY | OQ_UID, NULL, 200, "TaskHistory", NULL, OE_404},
    {"GET", CALDERA "/namespaces/{ns}/jobs/{name}/history/pods/{pod}/attempts/{n}",
     "readCalderaIoV1NamespacedPodAttempt", T_CALDERA, "read one attempt of a pod of a job", OQ_PRETTY | OQ_UID, NULL,
     200, "PodAttempt", NULL, E_READ},
    {"GET", CALDERA "/namespaces/{ns}/jobs/{name}/history/pods/{pod}/attempts/{n}/log",
     "readCalderaIoV1NamespacedPodAttemptLog", T_CALDERA, "read the log of one attempt of a pod of a job", OQ_UID,
     NULL, 200, NULL, TEXT, E_READ},
    {"GET", CALDERA "/namespaces/{ns}/jobs/{name}/manifest", "readCalderaIoV1NamespacedJobManifest", T_CALDERA,
     "read a job as the manifest a Kubernetes cluster running Volcano accepts", OQ_PRETTY, NULL, 200, "Job", NULL,
     OE_404},
    {"POST", CALDERA "/namespaces/{ns}/jobs/{name}/{action}", "actOnCalderaIoV1NamespacedJob", T_CALDERA,
     "suspend (abort), resume, restart, terminate or complete a job, as a Volcano Command would", OQ_PRETTY, NULL,
     200, "Job", NULL, E_ACT},
    {"POST", CALDERA "/queues/{name}/open", "openCalderaIoV1Queue", T_CALDERA, "open a queue", OQ_PRETTY, NULL, 200,
     "Queue", NULL, E_ACT},
    {"POST", CALDERA "/queues/{name}/close", "closeCalderaIoV1Queue", T_CALDERA, "close a queue", OQ_PRETTY, NULL, 200,
     "Queue", NULL, E_ACT},
    {"GET", CALDERA "/stream", "readCalderaIoV1StreamInfo", T_CALDERA,
     "where the WebSocket stream of committed events listens: open a WebSocket to its url with "
     "?namespace=NS[&job=NAME|&pod=NAME][&since=SEQ]; each message is one event with its seq",
     OQ_PRETTY, NULL, 200, "StreamInfo", NULL, OE_503},
    {"GET", CALDERA "/tokens", "listCalderaIoV1Token", T_CALDERA,
     "list the tokens (an admin: every one; anyone else: their own user's), never the tokens themselves",
     OQ_PRETTY, NULL, 200, "TokenList", NULL, 0},
    {"POST", CALDERA "/tokens", "createCalderaIoV1Token", T_CALDERA,
     "create a token (admins): the answer's status.token is the only time it is shown", OQ_PRETTY, "Token", 201,
     "Token", NULL, E_CREATE & ~OE_409},
    {"GET", CALDERA "/tokens/{name}", "readCalderaIoV1Token", T_CALDERA, "read a token (never the token itself)",
     OQ_PRETTY, NULL, 200, "Token", NULL, OE_404},
    {"DELETE", CALDERA "/tokens/{name}", "deleteCalderaIoV1Token", T_CALDERA,
     "delete a token (admins): requests bearing it are refused at once", OQ_PRETTY, NULL, 200, "Status", NULL,
     OE_404 | OE_503 | OE_507},

    {"GET", DIALECT "/{plural}", "list{kind}ForAllNamespaces", T_DIALECT, "list the {kind} objects of every namespace",
     Q_PAGED | OQ_AS, NULL, 200, "{kind}List", NULL, E_LIST},
    {"GET", DIALECT "/namespaces/{ns}/{plural}", "listNamespaced{kind}", T_DIALECT,
     "list the {kind} objects of a namespace", Q_PAGED | OQ_AS, NULL, 200, "{kind}List", NULL, E_LIST},
    {"POST", DIALECT "/namespaces/{ns}/{plural}", "createNamespaced{kind}", T_DIALECT,
     "submit a {kind}: it runs as a Volcano Job of the same name", OQ_PRETTY | OQ_AS, "{kind}", 201, "{kind}", NULL,
     E_CREATE},
    {"GET", DIALECT "/namespaces/{ns}/{plural}/{name}", "readNamespaced{kind}", T_DIALECT, "read a {kind}",
     OQ_PRETTY | OQ_AS, NULL, 200, "{kind}", NULL, E_READ},
    {"DELETE", DIALECT "/namespaces/{ns}/{plural}/{name}", "deleteNamespaced{kind}", T_DIALECT, "delete a {kind}",
     OQ_PRETTY | OQ_AS, NULL, 200, "Status", NULL, E_DELETE},
    {NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, NULL, 0},
};
