/* SPDX-License-Identifier: MIT */
/* bpf(2): create a map, the first step to loading programs into the
 * kernel (a large attack surface). */
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include "probe.h"

int main(void)
{
        union bpf_attr a;
        long fd;

        memset(&a, 0, sizeof(a));
        a.map_type = BPF_MAP_TYPE_ARRAY;
        a.key_size = 4;
        a.value_size = 4;
        a.max_entries = 1;
        fd = syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a));
        if (fd < 0)
                contained("bpf(BPF_MAP_CREATE): %s", ename(errno));
        escaped("bpf(BPF_MAP_CREATE) succeeded");
}
