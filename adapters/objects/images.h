/* The images file (`jobserver --images FILE`, YAML): which software environment each container image
 * names, since the process runtime pulls no image and runs the command on the node. Pure but for the
 * set in force, which main sets once before any thread starts.
 *
 * The format: one mapping with
 *
 *   unknownImages: warn | refuse      an image no entry matches: runs in the default environment with a
 *                                     Warning Event UnknownImage on its job (warn, the default), or the
 *                                     Job is refused at submit (422 naming the container's image)
 *   environments:                     a list, tried in order: the first entry with a matching pattern wins
 *     - name:       torch             a DNS-1123 label, unique; the pod's caldera.io/environment
 *       images:     ["pytorch/pytorch:*", "nvcr.io/nvidia/pytorch:*"]   glob patterns (fnmatch)
 *       venv:       /opt/venvs/torch  a Python venv: its bin/ first on PATH, VIRTUAL_ENV set
 *       conda:      /opt/conda        (instead of venv) a conda prefix: its bin/ first, CONDA_PREFIX set
 *       path:       [/opt/tools/bin]  directories put before the default PATH (after venv's or conda's bin/)
 *       env:        {NAME: value}     variables added (the container's own env still wins)
 *       workingDir: /srv/work         where the task starts when its container names no workingDir
 *
 * Paths are absolute. A container without an image runs in the default environment, never warned. */
#ifndef CALDERA_IMAGES_H
#define CALDERA_IMAGES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "adapters/intake/fields.h"
#include "common/api_status.h"

#define IMAGES_DEFAULT_ENVIRONMENT "default" /* the name of the environment of unmatched images */

/* One software environment and the image patterns that name it. */
struct image_env {
    char *name;
    char **patterns;
    char *venv, *conda; /* at most one; NULL: none */
    char **path_prefix; /* directories before the default PATH */
    char **env;         /* NAME=value */
    char *working_dir;  /* NULL: the job's working directory */
};

struct images_config {
    struct image_env *envs;
    int n;
    bool refuse_unknown; /* unknownImages: refuse */
    bool configured;     /* read from a file: unmatched images are unknown (warned or refused) */
};

/* Reads an images file into *out (configured). Every mistake is a cause with its field path and line
 * ("environments[0].venv"); then the whole is a 422 Invalid and *out is empty. An empty file (or only
 * comments) is a configuration with no entries. Returns 0 or -1. */
int images_parse(const char *data, size_t len, struct images_config *out, struct api_status *st);
void images_free(struct images_config *c);

/* The first entry with a pattern matching image, or NULL (no image, or none matches). */
const struct image_env *images_match(const struct images_config *c, const char *image);
/* Whether image is unknown to a configured set: given, and matched by no entry. */
bool images_unknown(const struct images_config *c, const char *image);
/* The environment's name for image: the entry's, else IMAGES_DEFAULT_ENVIRONMENT. */
const char *images_environment_name(const struct images_config *c, const char *image);

/* The set in force (set once by main before any thread starts; never freed while in use). With none
 * set, every image runs in the default environment without warnings. */
void images_set_active(const struct images_config *c);
const struct images_config *images_active(void);

/* At submit: with unknownImages: refuse, an unknown image of container (at path, e.g.
 * "spec.tasks[0].template.spec.containers[0]") is a cause on its image field. Documents read back
 * from the store (f->admitted) always pass. Returns false after adding the cause. */
bool images_check_container(struct fields *f, const json_t *container, const char *path, const char *image);

#endif
