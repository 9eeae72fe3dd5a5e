/* GET /version's body: Kubernetes' version.Info with Caldera's build in it (a C build has no Go
 * version: goVersion and compiler name the C compiler). */
#include "adapters/objects/version_info.h"

#include <stdio.h>

json_t *version_info_render(const char *arch)
{
    char platform[96];
    snprintf(platform, sizeof platform, "linux/%s", arch && *arch ? arch : "amd64");
#ifdef __clang__
    const char *compiler = "clang", *compiler_version = __clang_version__;
#else
    const char *compiler = "gcc", *compiler_version = __VERSION__;
#endif
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "major", KUBE_VERSION_MAJOR, "minor",
                     KUBE_VERSION_MINOR, "gitVersion", KUBE_GIT_VERSION, "gitCommit", "", "gitTreeState", "",
                     "buildDate", __DATE__ " " __TIME__, "goVersion", compiler_version, "compiler", compiler,
                     "platform", platform);
}
