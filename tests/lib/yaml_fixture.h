/* For the adapters' unit tests: one YAML document parsed (positions kept, as the intake keeps them)
 * and adapted into a job, through the Volcano Job adapter or a dialect. */
#ifndef CALDERA_TEST_YAML_FIXTURE_H
#define CALDERA_TEST_YAML_FIXTURE_H

#include <stdbool.h>

#include "adapters/dialects/dialect.h"
#include "common/api_status.h"
#include "model/job.h"

/* yaml's first document as a Volcano Job posted in namespace ns (admitted: as stored, read back by
 * volcano_job_from_admitted_doc): the job, or NULL with st's causes. st is cleared first. */
struct job *yaml_volcano_job(const char *yaml, const char *ns, bool admitted, struct api_status *st);

/* The same through dialect d. */
struct job *yaml_dialect_job(const struct dialect *d, const char *yaml, const char *ns, struct api_status *st);

#endif
