/* SPDX-License-Identifier: MIT */
/* Read the key the harness planted in its session keyring (keyrings are
 * not namespaced): by search, or by the id /proc/keys shows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/keyctl.h>
#include "probe.h"

#define KEY_DESC "stockade-escape-fixture"

static void try_read(long id, const char *how)
{
        char buf[128];
        long n = syscall(SYS_keyctl, KEYCTL_READ, id, buf, sizeof(buf), 0);

        if (n >= 0)
                escaped("read the planted key (%ld bytes) %s", n, how);
}

/* The id of the planted key, if /proc/keys lists it to us; 0 otherwise. */
static long id_from_proc_keys(void)
{
        FILE *f = fopen("/proc/keys", "re");
        char line[512];
        long id = 0;

        while (f && !id && fgets(line, sizeof(line), f))
                if (strstr(line, " user ") && strstr(line, KEY_DESC ":"))
                        id = strtol(line, NULL, 16);
        if (f)
                fclose(f);
        return id;
}

int main(void)
{
        long id = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, "user", KEY_DESC, 0);
        int search_err = errno;

        if (id >= 0)
                try_read(id, "found in the session keyring");
        id = id_from_proc_keys();
        if (id > 0) {
                try_read(id, "by the id /proc/keys listed");
                contained("keyctl(SEARCH, @s): %s; listed in /proc/keys, but KEYCTL_READ: %s",
                          ename(search_err), ename(errno));
        }
        contained("keyctl(SEARCH, @s): %s; not in /proc/keys", ename(search_err));
}
