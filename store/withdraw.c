/* Withdrawn jobs: a creation whose client was told "not created" (its commit could not land in
 * time) is taken back by dropping every queued entry about the job before the writer writes it. */
#include "store/store_internal.h"

#include <stdio.h>
#include <string.h>

enum store_withdraw_result store_withdraw_job(struct store *s, const char *job_uid, uint64_t created_seq)
{
    pthread_mutex_lock(&s->commit_mu); /* no commit attempt is under way: the next one sees this */
    pthread_mutex_lock(&s->mu);
    bool landed = s->committed_seq >= created_seq;
    pthread_mutex_unlock(&s->mu);
    enum store_withdraw_result result = landed ? STORE_WITHDRAW_LANDED : STORE_WITHDRAW_FULL;
    if (!landed && s->nwithdrawn < STORE_WITHDRAW_MAX) {
        struct store_withdrawal *w = &s->withdrawn[s->nwithdrawn++];
        snprintf(w->job_uid, sizeof w->job_uid, "%s", job_uid);
        w->through = UINT64_MAX;
        result = STORE_WITHDRAWN;
    }
    pthread_mutex_unlock(&s->commit_mu);
    return result;
}

void store_withdraw_seal(struct store *s, const char *job_uid, uint64_t through)
{
    pthread_mutex_lock(&s->commit_mu);
    for (int i = 0; i < s->nwithdrawn; i++)
        if (strcmp(s->withdrawn[i].job_uid, job_uid) == 0)
            s->withdrawn[i].through = through;
    pthread_mutex_unlock(&s->commit_mu);
}

static bool is_withdrawn(const struct store *s, const struct journal_entry *e)
{
    const char *uid = e->ev.job_uid && *e->ev.job_uid ? e->ev.job_uid : e->job_uid;
    if (!uid || !*uid)
        uid = e->attempt.job_uid;
    for (int i = 0; uid && *uid && i < s->nwithdrawn; i++)
        if (e->ev.seq <= s->withdrawn[i].through && strcmp(s->withdrawn[i].job_uid, uid) == 0)
            return true;
    return false;
}

void store_withdrawn_drop(struct store *s, struct journal_list *batch)
{
    if (s->nwithdrawn == 0)
        return;
    struct journal_list kept = {0};
    for (struct journal_entry *e = batch->head, *next; e; e = next) {
        next = e->next;
        e->next = NULL;
        if (is_withdrawn(s, e))
            journal_entry_free(e);
        else
            journal_list_push(&kept, e);
    }
    *batch = kept;
}

void store_withdrawn_forget(struct store *s, uint64_t committed_seq)
{
    for (int i = 0; i < s->nwithdrawn;) {
        if (s->withdrawn[i].through <= committed_seq)
            s->withdrawn[i] = s->withdrawn[--s->nwithdrawn];
        else
            i++;
    }
}
