/* SPDX-License-Identifier: MIT */
/* perf_event_open(2) on a whole CPU (pid -1): watches every process on
 * it, the host's included (needs CAP_PERFMON or perf_event_paranoid < 1). */
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "probe.h"

int main(void)
{
        struct perf_event_attr a;
        long fd;

        memset(&a, 0, sizeof(a));
        a.size = sizeof(a);
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_CPU_CLOCK;
        a.disabled = 1;
        fd = syscall(SYS_perf_event_open, &a, -1, 0, -1, 0);
        if (fd < 0)
                contained("perf_event_open(pid -1, cpu 0): %s", ename(errno));
        escaped("perf_event_open on all of CPU 0 (every process on it)");
}
