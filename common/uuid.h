/* Random (version 4) UUIDs for object uids, from the kernel's random source, in the canonical
 * 8-4-4-4-12 text form. */
#ifndef CALDERA_UUID_H
#define CALDERA_UUID_H

#define UUID_STR_LEN 37

/* Writes "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx" and a NUL into out. */
void uuid_v4(char out[UUID_STR_LEN]);

#endif
