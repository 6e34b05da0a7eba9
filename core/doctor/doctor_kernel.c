/* SPDX-License-Identifier: MIT */
/* stockade doctor: the kernel's release and where we run (root, a
 * container).  What Landlock and seccomp offer, their modules say. */
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <json-c/json.h>

#include "doctor_internal.h"
#include "util/util.h"

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

/* Whether what the command starts dies with the run, however the
 * supervisor ends (docs/ARCHITECTURE.md, Processes: the keeper). */
static void check_orphans(struct json_object *checks)
{
        struct json_object *o;

        if (prctl(PR_GET_CHILD_SUBREAPER, &(int) { 0 }, 0, 0, 0) < 0) {
                o = doctor_add(checks, "orphans", DOCTOR_WARN, "no child subreaper (PR_GET_CHILD_SUBREAPER: %s)",
                               strerror(errno));
                doctor_set(o, "cause", "kernel older than 3.4");
                doctor_set(o, "fix", "a daemon the command starts under the Landlock stack may outlive the run; "
                           "use fs_bwrap (its PID namespace ends with the run)");
                return;
        }
        o = doctor_add(checks, "orphans", DOCTOR_OK, "a keeper process reaps everything the command starts and kills "
                       "it when the command ends or the supervisor dies (SIGKILL included)");
        doctor_set(o, "note", "no per-run cgroup is needed: the keeper is a child subreaper; under fs_bwrap the "
                   "sandbox's PID namespace ends with it too");
}

void doctor_check_system(struct json_object *checks)
{
        doctor_check_kernel(checks);
        doctor_check_root(checks);
        doctor_check_container(checks);
        doctor_check_userns(checks);
        doctor_check_proc(checks);
        check_orphans(checks);
}
