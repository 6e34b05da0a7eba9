/* SPDX-License-Identifier: MIT */
/*
 * fs_bwrap_doctor.c - `stockade doctor` for fs_bwrap (ABI 1.5): the same
 * steps the module takes before a run, each reported with its cause and
 * fix: the binary (by absolute path, never through PATH, trusted as a
 * module is), its pin, its version, and what user namespaces allow here.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "fs_bwrap_internal.h"

static void report_binary(struct stk_ctx *ctx, const struct stk_host *h, const char *bwrap, int fd, int version)
{
        struct stat st;
        bool old = version < FS_BWRAP_MIN_VERSION, setuid = fstat(fd, &st) == 0 && (st.st_mode & S_ISUID);

        h->doctor_check(ctx, old ? STK_DOCTOR_FAIL : STK_DOCTOR_OK, "bwrap", "%s: bubblewrap %d.%d.%d", bwrap,
                        version / 10000, version / 100 % 100, version % 100);
        h->doctor_detail(ctx, "path", "%s", bwrap);
        h->doctor_detail(ctx, "version", "%d.%d.%d", version / 10000, version / 100 % 100, version % 100);
        if (old) {
                h->doctor_detail(ctx, "cause", "fs_bwrap needs bubblewrap 0.8.0 or later (--disable-userns)");
                h->doctor_detail(ctx, "fix", "install a newer bubblewrap package");
        } else if (setuid)
                h->doctor_detail(ctx, "note", "bwrap is setuid root: it needs no unprivileged user namespaces itself");
}

/* 0 with *ret_fd and *ret_version, or -errno after reporting. */
static int check_binary(struct stk_ctx *ctx, const struct stk_host *h, const char *bwrap, const char *pin,
                        int *ret_fd, int *ret_version)
{
        _cleanup_close_ int fd = -1;
        const char *why = NULL;
        char hex[65];
        int r = fs_bwrap_open_binary(bwrap, &fd, &why);

        if (r < 0) {
                h->doctor_check(ctx, STK_DOCTOR_FAIL, "bwrap", "%s: %s (%s)", bwrap, why, strerror(-r));
                h->doctor_detail(ctx, "fix", r == -ENOENT ? "as root: `apt-get install bubblewrap` (or your distribution's "
                                 "package); a bwrap elsewhere is named by the fs_bwrap line's bwrap argument"
                                 : "make it owned by root (or you) and writable by its owner alone");
                return r;
        }
        if (pin && (r = fs_bwrap_sha256_fd(fd, hex)) >= 0 && strcasecmp(hex, pin) != 0) {
                h->doctor_check(ctx, STK_DOCTOR_FAIL, "bwrap", "%s has SHA-256 %s, bwrap_sha256 pins %s", bwrap, hex, pin);
                h->doctor_detail(ctx, "fix", "update the pin after checking the new binary, or restore the pinned one");
                return -EKEYREJECTED;
        }
        r = r < 0 ? r : fs_bwrap_version(fd, ret_version);
        if (r < 0) {
                h->doctor_check(ctx, STK_DOCTOR_FAIL, "bwrap", "%s: %s", bwrap, strerror(-r));
                h->doctor_detail(ctx, "fix", "reinstall bubblewrap");
                return r;
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static void report_namespaces(struct stk_ctx *ctx, const struct stk_host *h, bool proc_fallback)
{
        struct fs_bwrap_ns_probe ns;
        char buf[256];
        int r = fs_bwrap_probe_ns(&ns);

        if (r < 0) {
                h->doctor_check(ctx, STK_DOCTOR_FAIL, "bwrap_run", "probing user namespaces: %s", strerror(-r));
                return;
        }
        switch (ns.stage) {
        case FS_BWRAP_NS_OK:
                h->doctor_check(ctx, STK_DOCTOR_OK, "bwrap_run", "user, mount and PID namespaces and a fresh /proc "
                                "work: fs_bwrap can set up its sandbox");
                return;
        case FS_BWRAP_NS_PROC:
                h->doctor_check(ctx, proc_fallback ? STK_DOCTOR_WARN : STK_DOCTOR_FAIL, "bwrap_run",
                                "a bwrap sandbox starts only with the host /proc bound");
                h->doctor_detail(ctx, "cause", "%s", fs_bwrap_ns_hint(&ns, buf, sizeof(buf)));
                h->doctor_detail(ctx, "fix", proc_fallback ? "nothing needed: fs_bwrap falls back to binding the host "
                                 "/proc read-only" : "set proc_fallback: true, or use a stack that falls back to fs_landlock");
                return;
        default:
                h->doctor_check(ctx, STK_DOCTOR_FAIL, "bwrap_run", "fs_bwrap cannot set up its sandbox: %s",
                                fs_bwrap_ns_hint(&ns, buf, sizeof(buf)));
                h->doctor_detail(ctx, "cause", "see the userns, apparmor_userns and max_user_namespaces checks");
                h->doctor_detail(ctx, "fix", "fix the first failing one of those; or use a profile whose stack falls "
                                 "back to fs_landlock");
        }
}

int fs_bwrap_doctor(struct stk_ctx *ctx, const struct stk_host *h)
{
        const char *bwrap = h->arg_string(ctx, "bwrap"), *pin = h->arg_string(ctx, "bwrap_sha256"), *what = NULL;
        _cleanup_close_ int fd = -1;
        int version = 0;

        bwrap = bwrap ? bwrap : FS_BWRAP_DEFAULT;
        if (fs_bwrap_check_args(bwrap, pin, &what) < 0) {
                h->doctor_check(ctx, STK_DOCTOR_FAIL, "bwrap", "%s", what);
                return 0;
        }
        if (check_binary(ctx, h, bwrap, pin, &fd, &version) < 0) {
                h->doctor_check(ctx, STK_DOCTOR_WARN, "bwrap_run", "not tested: no usable bwrap");
                h->doctor_detail(ctx, "cause", "see bwrap");
                return 0;
        }
        report_binary(ctx, h, bwrap, fd, version);
        if (version >= FS_BWRAP_MIN_VERSION)
                report_namespaces(ctx, h, h->arg_bool(ctx, "proc_fallback", 1));
        return 0;
}
