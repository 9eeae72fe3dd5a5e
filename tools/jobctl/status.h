/* A failed answer from the job server as jobctl's error text: one line for a Kubernetes Status
 * (its message, code and reason) plus one line per field cause the message does not already say. */
#ifndef CALDERA_JOBCTL_STATUS_H
#define CALDERA_JOBCTL_STATUS_H

/* For a Status body:   "jobctl: <message> (<code> <reason>)\n" then "  <field>: <message>\n" per
 * cause not already in the message. For any other body:
 *   "jobctl: the server answered HTTP <code>: <first line of the body>\n".
 * Returns a heap string (NULL only when memory runs out). */
char *status_describe(long http_code, const char *body);

#endif
