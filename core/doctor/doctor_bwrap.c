/* SPDX-License-Identifier: MIT */
/* stockade doctor: bubblewrap, by absolute path only (never through PATH),
 * its version, and one real sandbox started with it. */
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <json-c/json.h>

#include "doctor_internal.h"
#include "util/util.h"

/* fs_bwrap's floor (modules/fs_bwrap: FS_BWRAP_MIN_VERSION): --disable-userns. */
#define BWRAP_MIN_VERSION 800

static int parse_version(const char *out, int *ret)
{
        unsigned a = 0, b = 0, c = 0;

        if (sscanf(out, "bubblewrap %u.%u.%u", &a, &b, &c) < 2)
                return -EINVAL;
        *ret = (int) (a * 10000 + b * 100 + c);
        return 0;
}

static bool bwrap_present(struct json_object *checks, struct stat *st)
{
        struct json_object *o;

        if (stat(DOCTOR_BWRAP, st) == 0 && S_ISREG(st->st_mode) && (st->st_mode & 0111))
                return true;
        o = doctor_add(checks, "bwrap", DOCTOR_FAIL, "no executable bwrap at %s", DOCTOR_BWRAP);
        doctor_set(o, "cause", "bubblewrap is not installed there (stockade runs it by absolute path, never through PATH)");
        doctor_set(o, "fix", "as root: `apt-get install bubblewrap` (or your distribution's package); a bwrap "
                   "elsewhere must be named in the fs_bwrap line's arguments (stockade-fs_bwrap(8))");
        return false;
}

/* Returns whether bwrap is usable enough to try a sandbox with it. */
static bool check_binary(struct json_object *checks)
{
        const char *argv[] = { DOCTOR_BWRAP, "--version", NULL };
        char out[256];
        struct stat st;
        int status = 0, version = 0, r;
        struct json_object *o;

        if (!bwrap_present(checks, &st))
                return false;
        r = doctor_exec_capture(argv, DOCTOR_TIMEOUT_MS, out, sizeof(out), &status);
        out[strcspn(out, "\n")] = '\0';
        if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || parse_version(out, &version) < 0) {
                o = doctor_add(checks, "bwrap", DOCTOR_FAIL, "`%s --version` failed: %s", DOCTOR_BWRAP,
                               r < 0 ? strerror(-r) : out[0] ? out : "no output");
                doctor_set(o, "fix", "reinstall bubblewrap");
                return false;
        }
        bool old = version < BWRAP_MIN_VERSION;
        o = doctor_add(checks, "bwrap", old ? DOCTOR_FAIL : DOCTOR_OK, "%s: %s", DOCTOR_BWRAP, out);
        json_object_object_add(o, "path", json_object_new_string(DOCTOR_BWRAP));
        json_object_object_add(o, "version", json_object_new_string(out + strlen("bubblewrap ")));
        json_object_object_add(o, "setuid", json_object_new_boolean(st.st_mode & S_ISUID));
        if (old) {
                doctor_set(o, "cause", "fs_bwrap needs bubblewrap 0.8.0 or later (--disable-userns)");
                doctor_set(o, "fix", "install a newer bubblewrap package");
        } else if (st.st_mode & S_ISUID)
                doctor_set(o, "note", "bwrap is setuid root: it needs no unprivileged user namespaces itself");
        if (st.st_uid != 0 || (st.st_mode & 022))
                doctor_set(o, "note", "%s is owned by uid %u, mode %04o: fs_bwrap refuses a binary others can write",
                           DOCTOR_BWRAP, (unsigned) st.st_uid, (unsigned) (st.st_mode & 07777));
        return !old;
}

/* One sandbox like fs_bwrap's, minus the policy: with a fresh /proc, or
 * with the host /proc bound (the nested-container fallback). */
static int try_sandbox(bool host_proc, char *out, size_t size)
{
        static const char *const head[] = {
                DOCTOR_BWRAP, "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net",
                "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev",
        };
        const char *argv[ELEMENTSOF(head) + 10];
        size_t n = 0;

        for (size_t i = 0; i < ELEMENTSOF(head); i++)
                argv[n++] = head[i];
        if (host_proc) {
                argv[n++] = "--ro-bind";
                argv[n++] = "/proc";
        } else
                argv[n++] = "--proc";
        argv[n++] = "/proc";
        argv[n++] = "--tmpfs";
        argv[n++] = "/tmp";
        argv[n++] = "--";
        argv[n++] = access("/bin/true", X_OK) == 0 ? "/bin/true" : "/usr/bin/true";
        argv[n] = NULL;
        int status = 0, r = doctor_exec_capture(argv, DOCTOR_TIMEOUT_MS, out, size, &status);

        out[strcspn(out, "\n")] = '\0';
        if (r == -ETIMEDOUT)
                snprintf(out, size, "timed out after %d ms", DOCTOR_TIMEOUT_MS);
        if (r < 0)
                return r;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EPERM;
}

static void check_sandbox(struct json_object *checks)
{
        char out[512], out2[512];
        struct json_object *o;

        if (try_sandbox(false, out, sizeof(out)) == 0) {
                doctor_add(checks, "bwrap_run", DOCTOR_OK, "a bwrap sandbox (user, PID, net, IPC, UTS namespaces, "
                           "fresh /proc) starts");
                return;
        }
        if (try_sandbox(true, out2, sizeof(out2)) == 0) {
                o = doctor_add(checks, "bwrap_run", DOCTOR_WARN, "a bwrap sandbox starts only with the host /proc bound");
                doctor_set(o, "cause", "bwrap --proc: %s (see proc)", out);
                doctor_set(o, "fix", "nothing needed: fs_bwrap falls back to binding the host /proc read-only");
                return;
        }
        o = doctor_add(checks, "bwrap_run", DOCTOR_FAIL, "bwrap cannot start a sandbox: %s", out[0] ? out : "no message");
        doctor_set(o, "cause", "see the userns, apparmor_userns and max_user_namespaces checks");
        doctor_set(o, "fix", "fix the first failing one of those; or use a profile whose stack falls back to fs_landlock");
}

void doctor_check_bwrap(struct json_object *checks)
{
        struct json_object *o;

        if (check_binary(checks))
                check_sandbox(checks);
        else {
                o = doctor_add(checks, "bwrap_run", DOCTOR_WARN, "not tested: no usable bwrap");
                doctor_set(o, "cause", "see bwrap");
        }
}
