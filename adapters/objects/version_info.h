/* The Kubernetes version Caldera answers as (GET /version's version.Info), and what its nodes say
 * of their kubelet: the API level its objects follow, so clients check skew against it. */
#ifndef CALDERA_VERSION_INFO_H
#define CALDERA_VERSION_INFO_H

#include <jansson.h>

#define KUBE_VERSION_MAJOR "1"
#define KUBE_VERSION_MINOR "31"
#define KUBE_GIT_VERSION "v1.31.0-caldera"
#define CONTAINER_RUNTIME_VERSION "caldera-process://1.0.0"

/* version.Info: major, minor, gitVersion, gitCommit, gitTreeState, buildDate, goVersion, compiler,
 * platform (linux/<arch>, arch as Kubernetes spells it). NULL when memory runs out. */
json_t *version_info_render(const char *arch);

#endif
