/* SPDX-License-Identifier: MIT */
/* stockade doctor: what the kernel offers (release, Landlock, seccomp) and
 * where we run (root, container). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <json-c/json.h>

#include "doctor_internal.h"
#include "util/util.h"

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444 /* the same number on every architecture */
#endif

/* First line of a small file, without its newline; -errno. */
static int read_line(const char *path, char *buf, size_t size)
{
        FILE *f = fopen(path, "re");

        if (!f)
                return -errno;
        if (!fgets(buf, (int) size, f)) {
                int r = ferror(f) ? -EIO : -ENODATA;
                fclose(f);
                return r;
        }
        fclose(f);
        buf[strcspn(buf, "\n")] = '\0';
        return 0;
}

void doctor_check_kernel(struct json_object *checks)
{
        struct utsname u;

        if (uname(&u) < 0) {
                doctor_add(checks, "kernel", DOCTOR_WARN, "uname: %s", strerror(errno));
                return;
        }
        struct json_object *o = doctor_add(checks, "kernel", DOCTOR_OK, "%s %s (%s)", u.sysname, u.release, u.machine);
        json_object_object_add(o, "release", json_object_new_string(u.release));
        json_object_object_add(o, "machine", json_object_new_string(u.machine));
}

void doctor_check_root(struct json_object *checks)
{
        uid_t uid = geteuid();
        struct json_object *o;

        if (uid != 0) {
                o = doctor_add(checks, "root", DOCTOR_OK, "not root (uid %u): doctor tests what this user gets", (unsigned) uid);
        } else {
                o = doctor_add(checks, "root", DOCTOR_OK, "running as root (uid 0): a bwrap run maps the command to host root");
                doctor_set(o, "note", "the namespace checks below say what root gets here; an unprivileged "
                           "user may get less (run `stockade doctor` as that user too). The command "
                           "holds no capabilities in its own user namespace, but its uid 0 is the host's: "
                           "files it makes in the workspace are root's, and fs_bwrap mounts /proc read-only "
                           "because procfs lets that uid write the host's kernel settings");
        }
        json_object_object_add(o, "uid", json_object_new_int((int) uid));
        json_object_object_add(o, "maps_to_host_root", json_object_new_boolean(uid == 0));
}

static bool cgroup_names_runtime(void)
{
        static const char *const words[] = { "docker", "kubepods", "containerd", "libpod", "lxc", "garden" };
        char line[512];
        bool found = false;
        FILE *f = fopen("/proc/1/cgroup", "re");

        if (!f)
                return false;
        while (!found && fgets(line, sizeof(line), f))
                for (size_t i = 0; i < ELEMENTSOF(words) && !found; i++)
                        found = strstr(line, words[i]) != NULL;
        fclose(f);
        return found;
}

/* The markers runtimes leave; none is proof, each is a strong hint. */
bool doctor_in_container(const char **ret_why)
{
        if (access("/.dockerenv", F_OK) == 0)
                *ret_why = "/.dockerenv exists";
        else if (access("/run/.containerenv", F_OK) == 0)
                *ret_why = "/run/.containerenv exists (podman)";
        else if (cgroup_names_runtime())
                *ret_why = "/proc/1/cgroup names a container runtime";
        else
                *ret_why = NULL;
        return *ret_why != NULL;
}

void doctor_check_container(struct json_object *checks)
{
        const char *why;
        struct json_object *o;

        if (!doctor_in_container(&why)) {
                o = doctor_add(checks, "container", DOCTOR_OK, "not in a container (no /.dockerenv, "
                               "/run/.containerenv, runtime in /proc/1/cgroup)");
        } else {
                o = doctor_add(checks, "container", DOCTOR_OK, "running in a container: %s", why);
                doctor_set(o, "note", "a container's default seccomp profile and masked /proc paths "
                           "can block user namespaces and mounting /proc; see userns and proc");
        }
        json_object_object_add(o, "in_container", json_object_new_boolean(why != NULL));
}

/* What each Landlock ABI added (Documentation/userspace-api/landlock.rst). */
static void landlock_features(int abi, char *buf, size_t size)
{
        static const char *const added[] = {
                NULL, "filesystem rights", "refer", "truncate", "TCP bind/connect rules",
                "device ioctl", "abstract unix socket and signal scoping", "audit logging",
        };
        buf[0] = '\0';
        for (int i = 1; i <= abi && i < (int) ELEMENTSOF(added); i++)
                snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i > 1 ? ", " : "", added[i]);
        if (abi >= (int) ELEMENTSOF(added))
                snprintf(buf + strlen(buf), size - strlen(buf), ", and more than this stockade knows");
}

static void landlock_unavailable(struct json_object *checks, int err)
{
        char lsm[512];
        struct json_object *o;

        if (err == EOPNOTSUPP) {
                o = doctor_add(checks, "landlock", DOCTOR_WARN, "Landlock is built into this kernel but disabled at boot");
                doctor_set(o, "cause", "\"landlock\" is missing from the active LSM list");
                if (read_line("/sys/kernel/security/lsm", lsm, sizeof(lsm)) == 0 && lsm[0])
                        doctor_set(o, "fix", "add it to the lsm= kernel boot parameter, keeping the others: "
                                   "lsm=landlock,%s (then reboot); fs_landlock needs it", lsm);
                else
                        doctor_set(o, "fix", "add landlock to the lsm= kernel boot parameter, keeping the LSMs "
                                   "already listed (e.g. lsm=landlock,lockdown,yama,apparmor,bpf), then reboot");
        } else if (err == ENOSYS) {
                o = doctor_add(checks, "landlock", DOCTOR_WARN, "no Landlock: landlock_create_ruleset is ENOSYS");
                doctor_set(o, "cause", "kernel older than 5.13 or built without CONFIG_SECURITY_LANDLOCK, "
                           "or a seccomp filter answering ENOSYS");
                doctor_set(o, "fix", "fs_landlock cannot run here; use fs_bwrap (or a kernel with Landlock)");
        } else {
                o = doctor_add(checks, "landlock", DOCTOR_WARN, "landlock_create_ruleset: %s", strerror(err));
                doctor_set(o, "cause", err == EPERM ? "a seccomp filter (a container's profile?) refuses the Landlock syscalls"
                                                    : "unexpected error from the kernel");
                doctor_set(o, "fix", err == EPERM ? "allow landlock_create_ruleset, landlock_add_rule and "
                           "landlock_restrict_self in the container's seccomp profile" : "fs_landlock cannot run here");
        }
        json_object_object_add(o, "abi", json_object_new_int(0));
}

void doctor_check_landlock(struct json_object *checks)
{
        long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
        char features[256];
        struct json_object *o;

        if (abi < 0) {
                landlock_unavailable(checks, errno);
                return;
        }
        landlock_features((int) abi, features, sizeof(features));
        o = doctor_add(checks, "landlock", DOCTOR_OK, "Landlock ABI %ld (%s)", abi, features);
        json_object_object_add(o, "abi", json_object_new_int((int) abi));
        if (abi < 4)
                doctor_set(o, "note", "ABI < 4 has no TCP rules: network off then rests on net_seccomp or a network namespace");
}

/* "Seccomp:" and "Seccomp_filters:" of /proc/self/status; -1 when absent. */
static void seccomp_status(int *ret_mode, int *ret_filters)
{
        char line[256];
        FILE *f = fopen("/proc/self/status", "re");

        *ret_mode = *ret_filters = -1;
        while (f && fgets(line, sizeof(line), f)) {
                (void) sscanf(line, "Seccomp: %d", ret_mode); /* a non-matching line leaves the value */
                (void) sscanf(line, "Seccomp_filters: %d", ret_filters);
        }
        if (f)
                fclose(f);
}

void doctor_check_seccomp(struct json_object *checks)
{
        char actions[512] = "";
        const char *why;
        int mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0), err = errno, smode, filters;
        struct json_object *o;

        if (mode < 0) {
                o = doctor_add(checks, "seccomp", DOCTOR_WARN, "no seccomp: prctl(PR_GET_SECCOMP): %s", strerror(err));
                doctor_set(o, "cause", "kernel built without CONFIG_SECCOMP_FILTER");
                doctor_set(o, "fix", "net_seccomp cannot run here; rely on a network namespace (fs_bwrap) for network off");
                return;
        }
        seccomp_status(&smode, &filters);
        (void) read_line("/proc/sys/kernel/seccomp/actions_avail", actions, sizeof(actions)); /* absent: empty */
        bool notif = strstr(actions, "user_notif") != NULL;
        o = doctor_add(checks, "seccomp", notif ? DOCTOR_OK : DOCTOR_WARN, "seccomp filters available; actions: %s",
                       actions[0] ? actions : "(unknown: no /proc/sys/kernel/seccomp/actions_avail)");
        json_object_object_add(o, "actions", json_object_new_string(actions));
        json_object_object_add(o, "user_notif", json_object_new_boolean(notif));
        json_object_object_add(o, "filters_on_doctor", json_object_new_int(filters < 0 ? 0 : filters));
        if (!notif) {
                doctor_set(o, "cause", "no user_notif action (kernel older than 5.0, or not reported)");
                doctor_set(o, "fix", "modules that ask the supervisor about a syscall (seccomp notify) cannot run; "
                           "plain filters (net_seccomp) still work");
        }
        if (mode == 2 || filters > 0)
                doctor_set(o, "note", "doctor itself already runs under %d seccomp filter(s)%s; they stay in force for "
                           "every command and may refuse syscalls a wrapper needs (see userns)",
                           filters > 0 ? filters : 1, doctor_in_container(&why) ? " (the container's profile?)" : "");
}

void doctor_check_system(struct json_object *checks)
{
        doctor_check_kernel(checks);
        doctor_check_root(checks);
        doctor_check_container(checks);
        doctor_check_landlock(checks);
        doctor_check_seccomp(checks);
        doctor_check_userns(checks);
        doctor_check_proc(checks);
        doctor_check_bwrap(checks);
}
