/* `promtool check metrics` on an exposition, for the tests that lint /metrics (test_metrics,
 * test_watchdog) where Debian's prometheus package is installed. */
#ifndef CALDERA_TEST_PROMTOOL_H
#define CALDERA_TEST_PROMTOOL_H

/* Runs `promtool check metrics` on text when promtool is installed: its exit status (0 too when its
 * only complaints are the DCGM exporter's own camelCase label names, UUID, modelName, Hostname:
 * kept as DCGM spells them so its dashboards work), or -1 when it is not installed (the caller
 * skips). What promtool says goes to stderr. */
int promtool_check(const char *text);

#endif
