/* Server log lines on stderr: time, level, message. Thread-safe; one line per call.
 * log_limited() says a kind of thing at most once per interval (a flood of failed accepts, refused
 * connections), with how many like it were left out. */
#ifndef CALDERA_LOG_H
#define CALDERA_LOG_H

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };

void log_set_level(enum log_level level);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* How often log_limited() says each kind of line. */
#define LOG_LIMIT_INTERVAL_MS 10000

/* Logs the line unless a line of the same kind was logged in the last LOG_LIMIT_INTERVAL_MS; then
 * it is only counted, and the next line of its kind ends with how many were left out. The kind is
 * key with its digits left out ("accept: errno 24" and "accept: errno 23" are one kind); a fixed
 * number of kinds is kept, the rest share one. */
void log_limited(enum log_level level, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)

#endif
