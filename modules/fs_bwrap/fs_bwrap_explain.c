/* SPDX-License-Identifier: MIT */
/*
 * `stockade explain --details` for fs_bwrap: the bwrap argv the line would
 * run here, built by the same pure function as pre_exec but without making
 * anything on the host, and a "paths:" block read back from that argv, so
 * the comparison with the other enforcement modules (modules/fs_seatbelt/t/
 * compare.sh) checks what bwrap would really mount, not the settings again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fs_bwrap_internal.h"

/* The mount option whose destination is `path`, or NULL. */
static const char *mount_of(char **argv, const char *path)
{
        const char *found = NULL;

        /* The last mount on a path is the one the command sees. */
        for (size_t i = 1; argv[i]; i++)
                if (streq(argv[i], path) && argv[i - 1] && argv[i - 1][0] != '-' && i >= 2 && argv[i - 2][0] == '-')
                        found = argv[i - 2];
                else if (streq(argv[i], path) && argv[i - 1][0] == '-')
                        found = argv[i - 1];
        return found;
}

static bool beneath_any(const char *p, const char *const *roots)
{
        for (size_t i = 0; roots[i]; i++)
                if (stk_path_beneath(p, roots[i]))
                        return true;
        return false;
}

/* Outside every writable root, an absent path stays absent: / is read-only. */
static bool absent_and_uncreatable(const char *p, const struct stk_settings *s)
{
        struct stat st;

        return lstat(p, &st) < 0 && !beneath_any(p, s->write);
}

static void paths_block(FILE *f, char **argv, const struct stk_settings *s)
{
        fprintf(f, "paths:\n");
        for (size_t i = 0; s->write[i]; i++) {
                const char *m = mount_of(argv, s->write[i]);
                if (m && streq(m, "--bind"))
                        fprintf(f, "  write %s\n", s->write[i]);
        }
        for (size_t i = 0; s->read_only[i]; i++) {
                const char *m = mount_of(argv, s->read_only[i]);
                if ((m && streq(m, "--ro-bind")) || absent_and_uncreatable(s->read_only[i], s) ||
                    !beneath_any(s->read_only[i], s->write))
                        fprintf(f, "  read_only %s\n", s->read_only[i]);
        }
        for (size_t i = 0; s->hide[i]; i++) {
                const char *m = mount_of(argv, s->hide[i]);
                if ((m && (streq(m, "--ro-bind") || streq(m, "--remount-ro") || streq(m, "--tmpfs"))) ||
                    absent_and_uncreatable(s->hide[i], s))
                        fprintf(f, "  hide %s\n", s->hide[i]);
        }
}

int fs_bwrap_explain_text(const struct stk_settings *s, const struct stk_bind *binds, size_t n_binds,
                          const struct fs_bwrap_conf *conf, char **ret_text)
{
        struct fs_bwrap_argv a = { 0 };
        char *text = NULL;
        size_t len = 0;
        FILE *f;
        int r = fs_bwrap_build(s, binds, n_binds, conf, &a);

        if (r < 0)
                return r;
        f = open_memstream(&text, &len);
        if (!f) {
                fs_bwrap_argv_done(&a);
                return -ENOMEM;
        }
        fprintf(f, "argv:\n");
        for (size_t i = 0; a.argv[i]; i++)
                fprintf(f, "  %s\n", a.argv[i]);
        for (size_t i = 0; a.mountpoints && a.mountpoints[i]; i++)
                fprintf(f, "mount point made on the host for the run: %s\n", a.mountpoints[i]);
        paths_block(f, a.argv, s);
        fs_bwrap_argv_done(&a);
        if (fclose(f) != 0 || !text) {
                free(text);
                return -ENOMEM;
        }
        *ret_text = text;
        return 0;
}
