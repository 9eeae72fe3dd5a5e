/* What a webhook is sent about a notice: one line of text for people, and the body in the webhook's
 * format (Slack's {"text"}, Lark/Feishu's text message, or the notice as plain JSON). Pure. */
#ifndef CALDERA_NOTICE_BODY_H
#define CALDERA_NOTICE_BODY_H

#include <stddef.h>

#include "model/watchdog.h"

/* "[Caldera] Job team-a/train-3 Failed (PodFailed, exit code 3, pod train-3-worker-0): ..." into buf. */
void notice_text(const struct notice *n, char *buf, size_t len);
/* The JSON body for format, as a new string (NULL: out of memory). */
char *notice_body(const struct notice *n, enum notify_format format);

#endif
