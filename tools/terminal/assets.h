/* The files caldera-terminal serves, compiled in: its own page, script and style, and xterm.js with its
 * fit add-on and style when npm could fetch them at build time (tools/terminal/embed-assets). */
#ifndef CALDERA_TERMINAL_ASSETS_H
#define CALDERA_TERMINAL_ASSETS_H

#include <stddef.h>

struct term_asset {
    const char *name; /* "index.html", "xterm.js", ... (served under BASE/static/) */
    const char *content_type;
    const unsigned char *data;
    size_t len;
};

extern const struct term_asset term_assets[];
extern const size_t term_asset_count;
/* "" when xterm.js is compiled in; otherwise why not (the page falls back to a line console). */
extern const char term_assets_missing[];

/* The asset called name, or NULL. */
const struct term_asset *term_asset_find(const char *name);

#endif
