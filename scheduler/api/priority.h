/* Priority classes: the name a job gives in priorityClassName and the integer the scheduler orders
 * by. Kubernetes' two system classes are built in; more come with the priorityclasses API. */
#ifndef CALDERA_PRIORITY_H
#define CALDERA_PRIORITY_H

#include <stdbool.h>
#include <stdint.h>

/* Looks a class up; returns true and sets *value when it exists. */
bool priority_class_value(const char *name, int32_t *value);

#endif
