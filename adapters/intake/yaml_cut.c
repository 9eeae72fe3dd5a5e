/* Where a big YAML body can be cut so that its parts parse side by side: the long block sequence
 * (a Job's tasks) is cut at entries near equal shares of the body; the reader checks each cut. */
#include "adapters/intake/internal.h"

#include <stdint.h>
#include <string.h>

#define SEARCH_WINDOW ((size_t)16 << 10) /* bytes after a share's start searched for the outermost entry */
#define MAX_COLUMN 256

static size_t next_line(const char *data, size_t len, size_t at)
{
    const char *nl = memchr(data + at, '\n', len - at);
    return nl ? (size_t)(nl - data) + 1 : len;
}

/* The start of the line that holds `at` (or `at` itself at a line start). */
static size_t line_start(const char *data, size_t at)
{
    while (at > 0 && data[at - 1] != '\n')
        at--;
    return at;
}

/* Spaces before the first other byte of the line at `at`, and that byte in *first (0 at the end). */
static int indent_of(const char *data, size_t len, size_t at, char *first)
{
    size_t i = at;
    while (i < len && data[i] == ' ' && i - at < MAX_COLUMN)
        i++;
    *first = i < len ? data[i] : 0;
    return (int)(i - at);
}

static bool blank_or_comment(char first) { return first == 0 || first == '\n' || first == '\r' || first == '#'; }

/* Whether the line at `at` is a block sequence entry ("- ", "-" alone) and at which column. */
static bool entry_line(const char *data, size_t len, size_t at, int *column)
{
    char first;
    int col = indent_of(data, len, at, &first);
    size_t dash = at + (size_t)col;
    if (first != '-')
        return false;
    char after = dash + 1 < len ? data[dash + 1] : '\n';
    *column = col;
    return after == ' ' || after == '\t' || after == '\n' || after == '\r';
}

/* Line breaks other than "\n" and "\r\n" (a lone CR, NEL, LS, PS) would make libyaml count lines the
 * cuts do not see; bodies holding one are read whole. */
static bool odd_breaks(const char *data, size_t len)
{
    for (const char *p = data, *end = data + len; (p = memchr(p, '\r', (size_t)(end - p))) != NULL; p++)
        if (p + 1 == end || p[1] != '\n')
            return true;
    for (const char *p = data, *end = data + len; (p = memchr(p, 0xC2, (size_t)(end - p))) != NULL; p++)
        if (p + 1 < end && (unsigned char)p[1] == 0x85)
            return true;
    for (const char *p = data, *end = data + len; (p = memchr(p, 0xE2, (size_t)(end - p))) != NULL; p++)
        if (p + 2 < end && (unsigned char)p[1] == 0x80 && ((unsigned char)p[2] == 0xA8 || (unsigned char)p[2] == 0xA9))
            return true;
    return false;
}

/* The outermost entry line (least indented) among those starting in [from, from + window). */
static bool outermost_entry(const char *data, size_t len, size_t from, size_t *at, int *column)
{
    bool found = false;
    size_t end = from + SEARCH_WINDOW < len ? from + SEARCH_WINDOW : len;
    for (size_t l = line_start(data, from) == from ? from : next_line(data, len, from); l < end;
         l = next_line(data, len, l)) {
        int col;
        if (entry_line(data, len, l, &col) && (!found || col < *column)) {
            found = true;
            *at = l;
            *column = col;
        }
    }
    return found;
}

/* The first entry line at `column` starting in [from, limit). */
static bool entry_at_column(const char *data, size_t len, size_t from, size_t limit, int column, size_t *at)
{
    for (size_t l = line_start(data, from) == from ? from : next_line(data, len, from); l < limit;
         l = next_line(data, len, l)) {
        int col;
        if (entry_line(data, len, l, &col) && col == column) {
            *at = l;
            return true;
        }
    }
    return false;
}

/* Where the sequence's entries end: the first line after `from` (an entry) less indented than
 * `column`, or as indented and no entry; len when the body ends first. A forward scan: the text after
 * the tasks may hold sequences at the same column (`policies:` under `spec:`). */
static size_t sequence_end(const char *data, size_t len, size_t from, int column)
{
    for (size_t l = next_line(data, len, from); l < len; l = next_line(data, len, l)) {
        char first;
        int col = indent_of(data, len, l, &first);
        if (col > column || blank_or_comment(first))
            continue;
        int entry_col;
        if (col < column || !(entry_line(data, len, l, &entry_col) && entry_col == column))
            return l;
    }
    return len;
}

int yaml_cut_plan(const char *data, size_t len, int parts, struct yaml_cut *cut)
{
    *cut = (struct yaml_cut){0};
    int pieces = parts - 1; /* the first part is the body around them */
    if (pieces > YAML_CUT_MAX_PIECES)
        pieces = YAML_CUT_MAX_PIECES;
    if (pieces < 1 || odd_breaks(data, len))
        return 0;
    size_t share = len / (size_t)parts;
    int column = 0;
    size_t first = 0;
    if (!outermost_entry(data, len, share, &first, &column))
        return 0;
    cut->at[0] = first;
    int n = 1;
    for (int i = 1; i < pieces; i++) {
        size_t from = share * (size_t)(i + 1), at;
        if (from <= cut->at[n - 1])
            from = cut->at[n - 1] + 1;
        if (!entry_at_column(data, len, from, share * (size_t)(i + 2), column, &at))
            break;
        cut->at[n++] = at;
    }
    size_t end = sequence_end(data, len, cut->at[n - 1], column);
    if (end <= cut->at[n - 1])
        return 0;
    cut->at[n] = end;
    cut->column = column;
    cut->npieces = n;
    return n;
}

size_t yaml_cut_count_lines(const char *p, size_t n)
{
    const uint64_t ones = 0x0101010101010101ull, low7 = 0x7F7F7F7F7F7F7F7Full;
    size_t count = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, sizeof w);
        uint64_t x = w ^ (ones * '\n');             /* a line feed becomes a zero byte */
        uint64_t nonzero = ((x & low7) + low7) | x; /* high bit set in every nonzero byte */
        count += (size_t)__builtin_popcountll(~nonzero & ~low7);
    }
    for (; i < n; i++)
        count += p[i] == '\n';
    return count;
}

size_t yaml_cut_count_chars(const char *p, size_t n)
{
    size_t continuing = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, sizeof w);
        continuing += (size_t)__builtin_popcountll(w & ~(w << 1) & 0x8080808080808080ull); /* 10xxxxxx */
    }
    for (; i < n; i++)
        continuing += ((unsigned char)p[i] & 0xC0) == 0x80;
    return n - continuing;
}
