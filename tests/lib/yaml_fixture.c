/* One YAML document parsed and adapted into a job, the helper the adapters' unit tests share (through
 * the Volcano Job adapter, as admitted, or a dialect). */
#include "tests/lib/yaml_fixture.h"

#include <string.h>

#include "adapters/intake/intake.h"
#include "adapters/dialects/volcano/job.h"

/* Parses yaml and adapts its first document with whichever of d (a dialect) or the Volcano Job
 * adapter (admitted or posted) is asked for. */
static struct job *adapt(const struct dialect *d, const char *yaml, const char *ns, bool admitted,
                         struct api_status *st)
{
    struct intake in;
    struct job *job = NULL;
    memset(st, 0, sizeof *st);
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, st) != 0)
        return NULL;
    if (d)
        dialect_job_from_doc(d, &in.docs[0], ns, &job, st);
    else if (admitted)
        volcano_job_from_admitted_doc(&in.docs[0], ns, &job, st);
    else
        volcano_job_from_doc(&in.docs[0], ns, &job, st);
    intake_free(&in);
    return job;
}

struct job *yaml_volcano_job(const char *yaml, const char *ns, bool admitted, struct api_status *st)
{
    return adapt(NULL, yaml, ns, admitted, st);
}

struct job *yaml_dialect_job(const struct dialect *d, const char *yaml, const char *ns, struct api_status *st)
{
    return adapt(d, yaml, ns, false, st);
}
