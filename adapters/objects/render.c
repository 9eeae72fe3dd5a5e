/* Small helpers for rendering Kubernetes objects: timestamps, quantities, resource maps.
 * Quantities print as Kubernetes prints them ("500m", "4Gi"). */
#include "adapters/objects/render.h"

#include "common/clock.h"

json_t *render_time(int64_t wall_ms)
{
    if (wall_ms <= 0)
        return json_null();
    char buf[RFC3339_LEN];
    return json_string(rfc3339(wall_ms, buf));
}

json_t *render_resources(const struct resvec *r, bool with_zero)
{
    json_t *obj = json_object();
    for (int i = 0; i < resource_count(); i++) {
        if (!with_zero && r->v[i] == 0)
            continue;
        char buf[48];
        resource_format(i, r->v[i], buf, sizeof buf);
        json_object_set_new(obj, resource_name(i), json_string(buf));
    }
    return obj;
}

void render_set(json_t *obj, const char *key, json_t *value)
{
    if (value)
        json_object_set_new(obj, key, value);
}
