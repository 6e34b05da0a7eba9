/* SPDX-License-Identifier: MIT */
/*
 * fs_seatbelt_internal.h - what the files of fs_seatbelt share with each
 * other and with their unit tests (t/test_*.c).  Nothing here is exported
 * from the .so/.dylib: the version script (exported-symbol list on Darwin)
 * keeps `stockade_module` alone.
 */
#pragma once
#include "common/stk_path.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "stockade/module.h"

#include "common/stk_buf.h"
#include "common/stk_util.h"

/* Run by absolute path only, never looked up in PATH.  /usr/bin is on the
 * sealed system volume (SIP), so the file is Apple's. */
#define SB_SANDBOX_EXEC "/usr/bin/sandbox-exec"
/* mkdtemp(3) template of the per-run TMPDIR, beneath the host's /tmp. */
#define SB_TMP_NAME "stockade-sb.XXXXXX"

/* ---- fs_seatbelt_path.c: path checks and the Darwin mapping (pure) ----- */

/* Absolute, and canonical in form: no empty, "." or ".." component and no
 * trailing slash.  (That no component is a symlink is the core's job.) */
/* path == root, or inside it */
bool sb_strictly_beneath(const char *path, const char *root);

/*
 * The name Seatbelt sees for `path`.  Seatbelt matches the path a vnode
 * resolves to, and on macOS /tmp, /var and /etc are symlinks into /private:
 * a rule on /var/folders/x would never match.  The core canonicalises the
 * settings (realpath) but keeps the part of a path that does not exist yet
 * as written, so the mapping is applied here again when `darwin` is set.
 * Elsewhere (explain on Linux) paths are already what the kernel sees and
 * are copied unchanged.  0 and a malloc'd string, -EINVAL for a path that is
 * not absolute and canonical in form, or -ENOMEM.
 */
int sb_canon(const char *path, bool darwin, char **ret);

/* A Mach service name as the policy may add it (mach_lookup): letters,
 * digits, '.', '-', '_', '@'; nothing that could end a string literal. */
bool sb_mach_name_valid(const char *name);

/* ---- fs_seatbelt_profile.c: the profile and argv, a pure function ------ */

enum sb_role {
        SB_ROLE_WRITE = 0, /* a writable root */
        SB_ROLE_BIND,      /* a writable path another module planned */
        SB_ROLE_READ_ONLY, /* an island */
        SB_ROLE_HIDE,      /* a hidden path */
        SB_ROLE_KEEP,      /* a directory holding an island or hidden path: not renamed */
        SB_ROLE_TMPDIR,    /* the per-run TMPDIR */
        SB_ROLE_HOST_TMP,  /* the host's /tmp, hidden when private_tmp */
        SB_ROLE_MAX
};

/* The word for each role in explain's "paths:" block. */
const char *sb_role_name(enum sb_role r);

struct sb_param {
        char *name;  /* WRITE_0, READ_ONLY_3, TMPDIR, ... */
        char *value; /* a canonical path */
        enum sb_role role;
};

struct sb_conf {
        const char *sandbox_exec; /* argv[0]: absolute */
        bool darwin;              /* map /tmp, /var, /etc into /private (sb_canon) */
        int proxy_port;           /* network proxy: the loopback port, 1..65535 */
        const char *tmpdir;       /* private_tmp: the per-run directory (required then) */
        const char *const *mach;  /* more Mach services to allow, or NULL */
};

struct sb_profile {
        char *text;              /* the SBPL profile: the -p argument */
        struct sb_param *params; /* every -D, in argv order */
        size_t n_params;
        char **argv;             /* sandbox_exec -p TEXT (-D NAME=VALUE)... --, NULL-terminated */
};

/* Settings (and the binds earlier lines planned) -> profile, params, argv.
 * Nothing here touches the filesystem.  -EINVAL for a path that is not
 * absolute and canonical, a bind that moves a path (Seatbelt cannot), a
 * proxy mode without a port, a bad Mach name or a missing tmpdir; on
 * failure *ret is untouched. */
int sb_build(const struct stk_settings *s, const struct stk_bind *binds, size_t n_binds,
             const struct sb_conf *conf, struct sb_profile *ret);
void sb_profile_done(struct sb_profile *p);

/* ---- fs_seatbelt_text.c: shell quoting and explain's text -------------- */

/* Append `s` quoted for a POSIX shell ($'...', as zsh and bash read it,
 * where it holds a control character), or as is when it needs no quoting. */
void sb_buf_quoted(struct stk_buf *b, const char *s);

/* explain's text: the paths by role, the argv, the profile.  `tmp_note`
 * is appended to the TMPDIR line (the directory is made per run),
 * `platform_note` (or NULL) to the first line. */
int sb_explain_text(const struct sb_profile *p, const char *tmp_note, const char *platform_note, char **ret);

/* ---- fs_seatbelt_tmp.c: the per-run TMPDIR ----------------------------- */

/* mkdtemp(base/SB_TMP_NAME), mode 0700. */
int sb_tmp_create(const char *base, char **ret_path);
/* Remove what sb_tmp_create made and everything the command left in it,
 * fd-relative without following a symlink. -EINVAL for any other path. */
int sb_tmp_remove(const char *base, const char *path);

/* ---- fs_seatbelt.c: knobs the unit tests turn ---------------------------
 * They let t/test_hooks.c run the macOS code paths on Linux: a stand-in for
 * sandbox-exec, a temp dir as the base of TMPDIR.  Not exported (the
 * version script keeps stockade_module alone); the module never changes
 * them itself. */
extern bool sb_on_darwin;
extern const char *sb_sandbox_exec;
/* sandbox-exec is there and trusted: 0, or -errno with *ret_why. */
int sb_check_sandbox_exec(const char **ret_why);
extern const char *sb_tmp_base;
