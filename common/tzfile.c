/* Reading the TZ database's compiled zone files (TZif): the transitions and the offsets of their
 * local time types, and the offset in force at an instant (binary search). */
#include "common/tzfile.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"

#define TZ_FILE_MAX (256 * 1024)

void tz_utc(struct tz_zone *z) { memset(z, 0, sizeof *z); }

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const unsigned char *p) { return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4)); }

struct tz_header {
    uint32_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
};

static bool read_header(const unsigned char *p, size_t len, struct tz_header *h)
{
    if (len < 44 || memcmp(p, "TZif", 4) != 0)
        return false;
    h->isutcnt = be32(p + 20);
    h->isstdcnt = be32(p + 24);
    h->leapcnt = be32(p + 28);
    h->timecnt = be32(p + 32);
    h->typecnt = be32(p + 36);
    h->charcnt = be32(p + 40);
    return true;
}

static size_t block_size(const struct tz_header *h, int time_size)
{
    return (size_t)h->timecnt * (size_t)time_size + h->timecnt + (size_t)h->typecnt * 6 + h->charcnt +
           (size_t)h->leapcnt * (size_t)(time_size + 4) + h->isstdcnt + h->isutcnt;
}

int tz_decode(const unsigned char *data, size_t len, struct tz_zone *z, char *why, size_t why_len)
{
    struct tz_header h;
    if (!read_header(data, len, &h)) {
        snprintf(why, why_len, "not a TZif file");
        return -1;
    }
    int time_size = 4;
    const unsigned char *p = data + 44;
    if (data[4] >= '2') { /* skip the 32-bit part: the 64-bit one follows with its own header */
        size_t skip = block_size(&h, 4);
        if (skip > len - 44 || !read_header(p + skip, len - 44 - skip, &h)) {
            snprintf(why, why_len, "truncated TZif file");
            return -1;
        }
        p += skip + 44;
        time_size = 8;
    }
    size_t need = block_size(&h, time_size);
    if (need > len - (size_t)(p - data) || h.typecnt == 0 || h.timecnt > TZ_MAX_TRANSITIONS ||
        h.typecnt > TZ_MAX_TYPES) {
        snprintf(why, why_len, "truncated or oversized TZif file");
        return -1;
    }
    memset(z, 0, sizeof *z);
    z->ntransitions = (int)h.timecnt;
    z->ntypes = (int)h.typecnt;
    for (uint32_t i = 0; i < h.timecnt; i++)
        z->at[i] = time_size == 8 ? be64(p + i * 8) : (int64_t)(int32_t)be32(p + i * 4);
    const unsigned char *idx = p + (size_t)h.timecnt * (size_t)time_size;
    const unsigned char *types = idx + h.timecnt;
    for (uint32_t i = 0; i < h.timecnt; i++) {
        if (idx[i] >= h.typecnt) {
            snprintf(why, why_len, "TZif transition names no type");
            return -1;
        }
        z->type_of[i] = idx[i];
    }
    for (uint32_t i = 0; i < h.typecnt; i++)
        z->offset_s[i] = (int32_t)be32(types + i * 6);
    /* before the first transition: the first standard-time type (RFC 8536 3.2), else type 0 */
    z->first_offset_s = z->offset_s[0];
    for (uint32_t i = 0; i < h.typecnt; i++)
        if (types[i * 6 + 4] == 0) {
            z->first_offset_s = z->offset_s[i];
            break;
        }
    return 0;
}

static bool name_ok(const char *name)
{
    if (!*name || name[0] == '/' || strstr(name, "..") || strlen(name) > 255)
        return false;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || strchr("/_-+", *c)))
            return false;
    return true;
}

int tz_load(const char *dir, const char *name, struct tz_zone *z, char *why, size_t why_len)
{
    if (!name_ok(name)) {
        snprintf(why, why_len, "unknown time zone %s", name);
        return -1;
    }
    if (!dir)
        dir = getenv("TZDIR") && *getenv("TZDIR") ? getenv("TZDIR") : "/usr/share/zoneinfo";
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *data = NULL;
    size_t len = 0;
    if (read_file(path, TZ_FILE_MAX, &data, &len) != 0) {
        snprintf(why, why_len, "unknown time zone %s", name);
        return -1;
    }
    char detail[128];
    int rc = tz_decode((const unsigned char *)data, len, z, detail, sizeof detail);
    free(data);
    if (rc != 0)
        snprintf(why, why_len, "unknown time zone %s: %s", name, detail);
    return rc;
}

int32_t tz_offset_at(const struct tz_zone *z, int64_t t)
{
    if (z->ntransitions == 0 || t < z->at[0])
        return z->ntransitions == 0 && z->ntypes > 0 ? z->offset_s[0] : z->first_offset_s;
    int lo = 0, hi = z->ntransitions - 1; /* the last transition at or before t */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (z->at[mid] <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return z->offset_s[z->type_of[lo]];
}
