/* SPDX-License-Identifier: MIT */
/* keyring-helper plant CMD...: put a user key into a new session keyring,
 *                               then exec CMD (which should not see it).
 * keyring-helper look:          exit 0 if the planted key is found (escaped),
 *                               1 if not. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/keyctl.h>

int main(int argc, char **argv)
{
        static const char payload[] = "FIXTURE-SECRET";
        long id;

        if (argc >= 3 && strcmp(argv[1], "plant") == 0) {
                if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 ||
                    syscall(SYS_add_key, "user", "stockade-test", payload, sizeof(payload),
                            KEY_SPEC_SESSION_KEYRING) < 0) {
                        perror("keyring-helper: plant");
                        return 77;
                }
                execv(argv[2], argv + 2);
                perror("keyring-helper: exec");
                return 127;
        }
        if (argc == 2 && strcmp(argv[1], "look") == 0) {
                id = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, "user", "stockade-test", 0);
                printf("%s\n", id >= 0 ? "FOUND" : strerror(errno));
                return id >= 0 ? 0 : 1;
        }
        fprintf(stderr, "usage: keyring-helper plant CMD... | look\n");
        return 2;
}
