/* SPDX-License-Identifier: MIT */
/*
 * fs_seatbelt_path.c - path checks and the Darwin /private mapping, pure
 * functions of their arguments (t/test_profile.c checks them on Linux).
 */
#include <stdio.h>

#include "fs_seatbelt_internal.h"



bool sb_strictly_beneath(const char *path, const char *root)
{
        return stk_path_beneath(path, root) && !streq(path, root);
}

/* The root symlinks of macOS, each `/<name> -> private/<name>`.  Seatbelt
 * sees the target, so a rule must name /private/<name>. */
static const char *const private_links[] = { "/tmp", "/var", "/etc" };

int sb_canon(const char *path, bool darwin, char **ret)
{
        char *out = NULL;

        if (!stk_path_valid(path))
                return -EINVAL;
        for (size_t i = 0; darwin && i < sizeof(private_links) / sizeof(private_links[0]); i++)
                if (stk_path_beneath(path, private_links[i])) {
                        if (asprintf(&out, "/private%s", path) < 0)
                                return -ENOMEM;
                        *ret = out;
                        return 0;
                }
        out = strdup(path);
        if (!out)
                return -ENOMEM;
        *ret = out;
        return 0;
}

bool sb_mach_name_valid(const char *name)
{
        static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_@";
        size_t n = name ? strlen(name) : 0;

        return n > 0 && n <= 255 && name[strspn(name, ok)] == '\0';
}
