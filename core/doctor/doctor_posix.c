/* SPDX-License-Identifier: MIT */
/*
 * doctor_check_system where the Linux checks do not apply (os.h): the
 * system, root, and Seatbelt's sandbox-exec, which fs_seatbelt runs.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <json-c/json.h>

#include "doctor_internal.h"
#include "os/os.h"
#include "util/util.h"

static void check_system(struct json_object *checks)
{
        struct utsname u;
        struct json_object *o;

        if (uname(&u) < 0) {
                doctor_add(checks, "system", DOCTOR_WARN, "uname: %s", strerror(errno));
                return;
        }
        o = doctor_add(checks, "system", DOCTOR_OK, "%s %s (%s), stockade's %s build", u.sysname, u.release,
                       u.machine, os_backend);
        json_object_object_add(o, "release", json_object_new_string(u.release));
        json_object_object_add(o, "machine", json_object_new_string(u.machine));
}

/* os_drop_capabilities refuses root: say so before a run does. */
static void check_root(struct json_object *checks)
{
        struct json_object *o;

        if (geteuid() != 0) {
                doctor_add(checks, "root", DOCTOR_OK, "not root (uid %u)", (unsigned) geteuid());
                return;
        }
        o = doctor_add(checks, "root", DOCTOR_WARN, "running as root: sandboxed runs are refused here, "
                       "where nothing takes root's privileges away from the command");
        doctor_set(o, "fix", "run stockade as the user the agent works as");
}

void doctor_check_system(struct json_object *checks)
{
        struct json_object *o;

        check_system(checks);
        check_root(checks);
        o = doctor_add(checks, "orphans", DOCTOR_WARN, "what the command leaves is killed as its process group");
        doctor_set(o, "cause", "this system has no child subreaper: a daemon that called setsid outlives the run");
}
