/* SPDX-License-Identifier: MIT */
/* Write into a host process's System V shared memory segment (X11's
 * MIT-SHM, a database's buffers): shmat(2) takes a plain id, anyone may try
 * every id, and only the segment's mode stands in the way for its owner's
 * other processes.  An IPC namespace hides the host's segments; without one
 * the syscalls themselves must be refused. */
#include <stdlib.h>
#include <sys/shm.h>
#include "probe.h"

int main(void)
{
        int id = atoi(fixture("ESC_VICTIM_SHM"));
        volatile int *flag = shmat(id, NULL, 0);

        if (flag == (void *) -1)
                contained("shmat(the victim's segment %d): %s", id, ename(errno));
        *flag = VICTIM_TAMPERED;
        (void) shmdt((const void *) flag);
        escaped("wrote the victim's shared memory segment %d", id);
}
