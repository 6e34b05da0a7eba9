/* SPDX-License-Identifier: MIT */
/*
 * stockade doctor: user namespaces and what blocks them (the sysctls,
 * Ubuntu's AppArmor restriction, a container's seccomp profile), and the
 * nested-container /proc problem.  Every probe runs in a forked child with
 * a deadline, so doctor's own process never changes namespace.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <json-c/json.h>

#include "doctor_internal.h"
#include "util/util.h"

enum ns_stage {
        NS_OK = 0,
        NS_UNSHARE,
        NS_SETGROUPS,
        NS_UID_MAP,
        NS_GID_MAP,
        NS_MOUNT_PRIVATE,
        NS_FORK,
        NS_MOUNT_PROC,
};

static const char *const stage_names[] = {
        [NS_OK] = "ok",
        [NS_UNSHARE] = "unshare",
        [NS_SETGROUPS] = "writing /proc/self/setgroups",
        [NS_UID_MAP] = "writing /proc/self/uid_map",
        [NS_GID_MAP] = "writing /proc/self/gid_map",
        [NS_MOUNT_PRIVATE] = "making / a private mount",
        [NS_FORK] = "fork into the new PID namespace",
        [NS_MOUNT_PROC] = "mount(\"proc\", \"/proc\", \"proc\")",
};

struct ns_result {
        int stage;
        int err;
};

static int write_file(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return -errno;
        n = write(fd, text, strlen(text));
        int r = n < 0 ? -errno : (size_t) n == strlen(text) ? 0 : -EIO;
        (void) close(fd); /* the write's result is what counts */
        return r;
}

/* unshare(flags) and map our uid/gid to root inside, as bwrap does. */
static struct ns_result enter_userns(int flags)
{
        char map[64];
        uid_t uid = geteuid();
        gid_t gid = getegid();
        int r;

        if (unshare(flags) < 0)
                return (struct ns_result) { NS_UNSHARE, errno };
        r = write_file("/proc/self/setgroups", "deny");
        if (r < 0 && r != -ENOENT) /* ENOENT: a kernel before 3.19 has no setgroups file */
                return (struct ns_result) { NS_SETGROUPS, -r };
        snprintf(map, sizeof(map), "0 %u 1\n", (unsigned) uid);
        r = write_file("/proc/self/uid_map", map);
        if (r < 0)
                return (struct ns_result) { NS_UID_MAP, -r };
        snprintf(map, sizeof(map), "0 %u 1\n", (unsigned) gid);
        r = write_file("/proc/self/gid_map", map);
        if (r < 0)
                return (struct ns_result) { NS_GID_MAP, -r };
        return (struct ns_result) { NS_OK, 0 };
}

static int send_result(int fd, struct ns_result res)
{
        return write(fd, &res, sizeof(res)) == (ssize_t) sizeof(res) ? 0 : -EIO;
}

static int userns_child(void *arg, int fd)
{
        return send_result(fd, enter_userns(CLONE_NEWUSER));
}

/* A new user, mount and PID namespace, then mount a fresh /proc from
 * inside the PID namespace (its first process), as `bwrap --proc` does. */
static int proc_child(void *arg, int fd)
{
        struct ns_result res = enter_userns(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID);
        pid_t pid;

        if (res.stage != NS_OK)
                return send_result(fd, res);
        /* private first: the proc mount must not propagate anywhere */
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                return send_result(fd, (struct ns_result) { NS_MOUNT_PRIVATE, errno });
        pid = fork();
        if (pid < 0)
                return send_result(fd, (struct ns_result) { NS_FORK, errno });
        if (pid == 0) {
                if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                        _exit(send_result(fd, (struct ns_result) { NS_MOUNT_PROC, errno }) < 0);
                _exit(send_result(fd, (struct ns_result) { NS_OK, 0 }) < 0);
        }
        (void) close(fd); /* the grandchild answers; the parent's deadline bounds this wait */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        return 0;
}

static struct ns_result run_ns_probe(doctor_child_fn fn)
{
        struct ns_result res = { 0 };
        int status, r = doctor_fork_call(fn, NULL, DOCTOR_TIMEOUT_MS, &res, sizeof(res), &status);

        if (r == -ETIMEDOUT)
                return (struct ns_result) { -1, ETIMEDOUT };
        if (r < (int) sizeof(res))
                return (struct ns_result) { -1, r < 0 ? -r : EPIPE };
        return res;
}

/* An integer sysctl; -1 when absent or unreadable. */
static long sysctl_int(const char *path)
{
        FILE *f = fopen(path, "re");
        long v = -1;

        if (!f)
                return -1;
        if (fscanf(f, "%ld", &v) != 1)
                v = -1;
        fclose(f);
        return v;
}

static const char *stage_name(int stage)
{
        return stage >= 0 && stage < (int) ELEMENTSOF(stage_names) ? stage_names[stage] : "the probe child";
}

/* The AppArmor profile that lets bwrap (and only bwrap) create user
 * namespaces under Ubuntu's restriction; the sysctl stays on for everything
 * else.  https://ubuntu.com/blog/ubuntu-23-10-restricted-unprivileged-user-namespaces */
static const char apparmor_profile[] =
        "abi <abi/4.0>,\n"
        "include <tunables/global>\n"
        "profile bwrap " DOCTOR_BWRAP " flags=(unconfined) {\n"
        "  userns,\n"
        "}\n";

/* A file in /etc/apparmor.d that names bwrap and grants userns. */
static bool apparmor_bwrap_profile(char *ret_path, size_t size)
{
        DIR *d = opendir("/etc/apparmor.d");
        struct dirent *e;
        bool found = false;

        while (d && !found && (e = readdir(d))) {
                char path[512], line[512];
                bool names_bwrap = false, userns = false;
                if (e->d_name[0] == '.' || snprintf(path, sizeof(path), "/etc/apparmor.d/%s", e->d_name) >= (int) sizeof(path))
                        continue;
                FILE *f = fopen(path, "re");
                while (f && fgets(line, sizeof(line), f)) {
                        names_bwrap |= strstr(line, DOCTOR_BWRAP) != NULL;
                        userns |= strstr(line, "userns") != NULL && !strchr(line, '#');
                }
                if (f)
                        fclose(f);
                if ((found = names_bwrap && userns))
                        snprintf(ret_path, size, "%s", path);
        }
        if (d)
                closedir(d);
        return found;
}

static void check_apparmor(struct json_object *checks, long restrict_userns)
{
        char path[512];
        struct json_object *o;

        if (restrict_userns < 0) {
                doctor_add(checks, "apparmor_userns", DOCTOR_OK, "no AppArmor user-namespace restriction "
                           "(no kernel.apparmor_restrict_unprivileged_userns)");
                return;
        }
        if (restrict_userns == 0) {
                doctor_add(checks, "apparmor_userns", DOCTOR_OK, "kernel.apparmor_restrict_unprivileged_userns = 0");
                return;
        }
        if (apparmor_bwrap_profile(path, sizeof(path))) {
                o = doctor_add(checks, "apparmor_userns", DOCTOR_OK, "unprivileged user namespaces are restricted, "
                               "and %s gives %s the userns permission", path, DOCTOR_BWRAP);
                return;
        }
        o = doctor_add(checks, "apparmor_userns", geteuid() == 0 ? DOCTOR_WARN : DOCTOR_FAIL,
                       "kernel.apparmor_restrict_unprivileged_userns = 1 and no AppArmor profile lets %s create user namespaces",
                       DOCTOR_BWRAP);
        doctor_set(o, "cause", "Ubuntu's AppArmor lets only profiled programs use unprivileged user namespaces; "
                   "bwrap then cannot set up its sandbox%s", geteuid() == 0 ? " (root is exempt, other users are not)" : "");
        doctor_set(o, "fix", "give bwrap, and only bwrap, the permission: save this as /etc/apparmor.d/bwrap and run "
                   "`apparmor_parser -r /etc/apparmor.d/bwrap` as root (do not set the sysctl to 0: that lifts the "
                   "restriction for every program):\n%s", apparmor_profile);
        json_object_object_add(o, "profile", json_object_new_string(apparmor_profile));
}

static void check_max_userns(struct json_object *checks, long max)
{
        struct json_object *o;

        if (max < 0) {
                o = doctor_add(checks, "max_user_namespaces", DOCTOR_FAIL, "no /proc/sys/user/max_user_namespaces");
                doctor_set(o, "cause", "kernel built without user namespaces (CONFIG_USER_NS)");
                doctor_set(o, "fix", "fs_bwrap cannot run here; use fs_landlock, or a kernel with CONFIG_USER_NS=y");
                return;
        }
        o = doctor_add(checks, "max_user_namespaces", max > 0 ? DOCTOR_OK : DOCTOR_FAIL, "user.max_user_namespaces = %ld", max);
        json_object_object_add(o, "value", json_object_new_int64(max));
        if (max == 0) {
                doctor_set(o, "cause", "user namespaces are switched off for everyone");
                doctor_set(o, "fix", "as root: `sysctl -w user.max_user_namespaces=15000` and the same line "
                           "(without sysctl -w) in /etc/sysctl.d/60-userns.conf");
        }
}

/* Why unshare(CLONE_NEWUSER) gave EPERM, and the narrowest fix. */
static void explain_userns_eperm(struct json_object *o, long unpriv_clone)
{
        const char *why;

        if (unpriv_clone == 0 && geteuid() != 0) {
                doctor_set(o, "cause", "kernel.unprivileged_userns_clone = 0 (a Debian kernel knob) forbids unprivileged user namespaces");
                doctor_set(o, "fix", "as root: `sysctl -w kernel.unprivileged_userns_clone=1`, persisted in /etc/sysctl.d/; "
                           "or use a profile whose stack falls back to fs_landlock");
        } else if (doctor_in_container(&why)) {
                doctor_set(o, "cause", "running in a container (%s): its default seccomp profile (Docker's, podman's) refuses "
                           "unshare(CLONE_NEWUSER) to processes without CAP_SYS_ADMIN", why);
                doctor_set(o, "fix", "start the container with a seccomp profile that is the runtime's default plus "
                           "unshare/clone/clone3 with CLONE_NEWUSER allowed (docker run --security-opt seccomp=FILE.json); "
                           "not --privileged or seccomp=unconfined; or stack fs_landlock as the fallback (stockade.yaml(5))");
        } else {
                doctor_set(o, "cause", "a seccomp filter or a security module refuses new user namespaces "
                           "(or the process runs in a chroot)");
                doctor_set(o, "fix", "find the filter (grep Seccomp /proc/self/status) or LSM policy and allow "
                           "CLONE_NEWUSER for bwrap; or stack fs_landlock as the fallback");
        }
}

static void explain_userns_error(struct json_object *o, struct ns_result res, long restrict_userns, long unpriv_clone)
{
        if (res.stage == NS_UNSHARE && res.err == EPERM)
                explain_userns_eperm(o, unpriv_clone);
        else if (res.stage == NS_UNSHARE && res.err == ENOSPC) {
                doctor_set(o, "cause", "the user.max_user_namespaces limit is reached (or 0)");
                doctor_set(o, "fix", "raise it: `sysctl -w user.max_user_namespaces=15000` (see max_user_namespaces)");
        } else if (res.stage == NS_UNSHARE && res.err == EUSERS) {
                doctor_set(o, "cause", "user namespaces are nested 32 deep already");
                doctor_set(o, "fix", "run stockade from a less deeply nested environment");
        } else if (res.stage == NS_UNSHARE && res.err == EINVAL) {
                doctor_set(o, "cause", "kernel built without user namespaces (CONFIG_USER_NS)");
                doctor_set(o, "fix", "use fs_landlock, or a kernel with CONFIG_USER_NS=y");
        } else if (res.stage == NS_UID_MAP && res.err == EPERM && restrict_userns == 1) {
                doctor_set(o, "cause", "Ubuntu's AppArmor restriction: an unconfined program's new user namespace holds no "
                           "capabilities, so it cannot even map its uid");
                doctor_set(o, "fix", "bwrap needs an AppArmor profile granting userns (see apparmor_userns); "
                           "stockade itself does not");
        } else {
                doctor_set(o, "cause", "unexpected: %s failed with %s", stage_name(res.stage), strerror(res.err));
                doctor_set(o, "fix", "run `" DOCTOR_BWRAP " --unshare-user --ro-bind / / /bin/true` to see bwrap's own message");
        }
}

void doctor_check_userns(struct json_object *checks)
{
        long restrict_userns = sysctl_int("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
        long unpriv_clone = sysctl_int("/proc/sys/kernel/unprivileged_userns_clone");
        struct ns_result res = run_ns_probe(userns_child);
        struct json_object *o;

        check_max_userns(checks, sysctl_int("/proc/sys/user/max_user_namespaces"));
        if (res.stage == NS_OK) {
                o = doctor_add(checks, "userns", DOCTOR_OK, "unshare(CLONE_NEWUSER) and a uid map work for uid %u",
                               (unsigned) geteuid());
        } else {
                /* Under the AppArmor restriction our own (unprofiled) probe fails by
                 * design; whether bwrap can is apparmor_userns' and bwrap_run's call. */
                bool apparmor = res.stage == NS_UID_MAP && res.err == EPERM && restrict_userns == 1;
                o = doctor_add(checks, "userns", apparmor ? DOCTOR_WARN : DOCTOR_FAIL, "%s: %s", stage_name(res.stage),
                               strerror(res.err));
                explain_userns_error(o, res, restrict_userns, unpriv_clone);
        }
        json_object_object_add(o, "errno", json_object_new_int(res.err));
        json_object_object_add(o, "stage", json_object_new_string(stage_name(res.stage)));
        check_apparmor(checks, restrict_userns);
}

void doctor_check_proc(struct json_object *checks)
{
        struct ns_result res = run_ns_probe(proc_child);
        struct json_object *o;

        if (res.stage == NS_OK) {
                doctor_add(checks, "proc", DOCTOR_OK, "a fresh /proc mounts in a new PID namespace (bwrap --proc works)");
                return;
        }
        if (res.stage != NS_MOUNT_PROC) {
                o = doctor_add(checks, "proc", DOCTOR_WARN, "not tested: %s failed: %s", stage_name(res.stage), strerror(res.err));
                doctor_set(o, "cause", "no user, mount and PID namespace for doctor (see userns)");
                return;
        }
        o = doctor_add(checks, "proc", DOCTOR_WARN, "mounting a fresh /proc in a new PID namespace fails: %s", strerror(res.err));
        json_object_object_add(o, "errno", json_object_new_int(res.err));
        if (res.err == EPERM) {
                doctor_set(o, "cause", "this /proc has paths over-mounted by the outer container (masked paths such as "
                           "/proc/kcore, read-only /proc/sys); the kernel refuses a new proc mount that would reveal them, "
                           "so `bwrap --proc` fails");
                doctor_set(o, "fix", "nothing needed: fs_bwrap binds the host /proc instead (the command then sees the "
                           "container's processes). To get a private /proc, start the outer container without masked paths: "
                           "docker run --security-opt systempaths=unconfined, podman run --security-opt unmask=/proc/*; "
                           "not --privileged");
        } else {
                doctor_set(o, "cause", "unexpected error from mount(2)");
        }
}
