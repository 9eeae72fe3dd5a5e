/* `promtool check metrics` on an exposition, for the tests that lint /metrics (test_metrics,
 * test_watchdog) where Debian's prometheus package is installed. */
#ifndef CALDERA_TEST_PROMTOOL_H
#define CALDERA_TEST_PROMTOOL_H

/* Runs `promtool check metrics` on text when promtool is installed: its exit status, or -1 when it
 * is not (the caller skips). */
int promtool_check(const char *text);

#endif
