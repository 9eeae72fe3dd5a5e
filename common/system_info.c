/* Reads the machine identity a kubelet reports (nodeInfo) from uname, /etc/os-release,
 * /etc/machine-id, the kernel's boot_id and the firmware's product UUID, once per process. */
#include "common/system_info.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "common/fs.h"

static struct system_info info;
static pthread_once_t read_once = PTHREAD_ONCE_INIT;

/* The first line of a small file, without its newline; "" when unreadable. */
static void first_line(const char *path, char *out, size_t len)
{
    char *data = NULL;
    size_t n = 0;
    out[0] = '\0';
    if (read_file(path, 4096, &data, &n) != 0)
        return;
    snprintf(out, len, "%.*s", (int)strcspn(data, "\n"), data);
    free(data);
}

/* PRETTY_NAME's value in os-release(5), its quotes taken off. */
static void os_pretty_name(char *out, size_t len)
{
    char *data = NULL;
    size_t n = 0;
    out[0] = '\0';
    if (read_file("/etc/os-release", 65536, &data, &n) != 0 && read_file("/usr/lib/os-release", 65536, &data, &n) != 0)
        return;
    for (char *line = data; line && *line;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (strncmp(line, "PRETTY_NAME=", 12) == 0) {
            char *v = line + 12;
            size_t vlen = strlen(v);
            if (vlen >= 2 && (v[0] == '"' || v[0] == '\'') && v[vlen - 1] == v[0]) {
                v++;
                vlen -= 2;
            }
            snprintf(out, len, "%.*s", (int)vlen, v);
            break;
        }
        line = next;
    }
    free(data);
}

static void read_all(void)
{
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(info.kernel_version, sizeof info.kernel_version, "%s", u.release);
    os_pretty_name(info.os_image, sizeof info.os_image);
    first_line("/etc/machine-id", info.machine_id, sizeof info.machine_id);
    first_line("/proc/sys/kernel/random/boot_id", info.boot_id, sizeof info.boot_id);
    first_line("/sys/class/dmi/id/product_uuid", info.system_uuid, sizeof info.system_uuid);
    if (!info.system_uuid[0])
        snprintf(info.system_uuid, sizeof info.system_uuid, "%s", info.machine_id);
}

const struct system_info *system_info_get(void)
{
    pthread_once(&read_once, read_all);
    return &info;
}
