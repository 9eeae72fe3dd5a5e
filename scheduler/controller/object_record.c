/* Recording what the core does not keep: objects another part of the server owns (the gateway's
 * Tokens, kept in the objects table and read back by the gateway), and events about nothing the
 * core holds (audit: refused requests). Same journal, same sequence, same durability as the rest. */
#include <stdlib.h>
#include <string.h>

#include "scheduler/controller/internal.h"

/* An object exists or not; its events say Active while it does, as PriorityClasses' do. */
#define ACTIVE "Active"

uint64_t controller_record_object(struct controller *ctl, const char *kind, const char *ns, const char *name,
                                  const char *json, const char *reason, const char *message)
{
    cluster_assert_owner(ctl->cluster);
    uint64_t rv = 0;
    bool put = json != NULL;
    char *copy = put ? strdup(json) : NULL;
    if (put && !copy)
        return 0;
    struct journal_entry *e = record_object_event(ctl, put ? JOURNAL_OBJECT_PUT : JOURNAL_OBJECT_DELETE, kind, ns, name,
                                                  &rv, put ? "" : ACTIVE, put ? ACTIVE : "", reason, "%s", message);
    record_object_row(e, kind, ns, name, copy);
    return e ? rv : 0;
}

uint64_t controller_record_event(struct controller *ctl, const char *kind, const char *ns, const char *name,
                                 const char *reason, const char *message)
{
    cluster_assert_owner(ctl->cluster);
    uint64_t rv = 0;
    struct journal_entry *e = record_object_event(ctl, JOURNAL_EVENT, kind, ns, name, &rv, "", "", reason, "%s",
                                                  message);
    return e ? rv : 0;
}
