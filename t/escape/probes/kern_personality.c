/* SPDX-License-Identifier: MIT */
/* personality(ADDR_NO_RANDOMIZE): turn ASLR off for whatever the command
 * runs next (Docker's profile allows only the harmless values). */
#include <sys/personality.h>
#include "probe.h"

int main(void)
{
        int cur = personality(0xffffffff);

        if (cur < 0)
                contained("personality(query): %s", ename(errno));
        if (cur & ADDR_NO_RANDOMIZE)
                na("ADDR_NO_RANDOMIZE is already set for this process");
        if (personality((unsigned long) cur | ADDR_NO_RANDOMIZE) < 0)
                contained("personality(ADDR_NO_RANDOMIZE): %s", ename(errno));
        if (!(personality(0xffffffff) & ADDR_NO_RANDOMIZE))
                contained("personality(ADDR_NO_RANDOMIZE) returned, but the flag did not stick");
        escaped("personality(ADDR_NO_RANDOMIZE) accepted: ASLR off for what runs next");
}
