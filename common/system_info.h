/* What a kubelet reports of its machine in a Node's status.nodeInfo: the kernel, the OS image, the
 * machine and boot identifiers and the system UUID, read once from this machine. */
#ifndef CALDERA_SYSTEM_INFO_H
#define CALDERA_SYSTEM_INFO_H

struct system_info {
    char kernel_version[128]; /* uname's release: "6.1.0-18-amd64" */
    char os_image[256];       /* /etc/os-release's PRETTY_NAME: "Debian GNU/Linux 12 (bookworm)" */
    char machine_id[128];     /* /etc/machine-id */
    char boot_id[128];        /* /proc/sys/kernel/random/boot_id */
    char system_uuid[128];    /* /sys/class/dmi/id/product_uuid (root only), else the machine id */
};

/* This machine's, read at the first call (thread-safe); a value that cannot be read is "". Never
 * fails. */
const struct system_info *system_info_get(void);

#endif
