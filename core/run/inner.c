/* SPDX-License-Identifier: MIT */
/*
 * The inner helper (docs/ARCHITECTURE.md, Processes): in-sandbox hooks must run
 * inside the namespaces a wrapper creates, not before it (Landlock forbids
 * later mounts; a seccomp filter denying mount would break bwrap).  So the
 * wrapper's argv ends in `/proc/self/fd/N __inner CONFIG STATUS -- CMD...`:
 * this binary again, through an fd opened before the wrapper ran (the build
 * tree may sit under a /tmp the sandbox replaces; elsewhere than Linux, by
 * its path: os_self_exec).  It reads the settings and in-sandbox lines from
 * a sealed memfd (os_text_fd), loads those modules from fds the supervisor
 * opened and checked, applies them, and execs the command.
 */
#include <fcntl.h>
#include <stdio.h>
#include <limits.h>
#include <json-c/json.h>

#include "core.h"
#include "os/os.h"
#include "status.h"
#include "util/util.h"

static struct json_object *strv_json(const char *const *v)
{
        struct json_object *a = json_object_new_array();

        for (size_t i = 0; a && v && v[i]; i++)
                json_object_array_add(a, json_object_new_string(v[i]));
        return a;
}

static struct json_object *settings_json(const struct stk_settings *s)
{
        struct json_object *o = json_object_new_object();

        json_object_object_add(o, "profile", json_object_new_string(s->profile ? s->profile : ""));
        json_object_object_add(o, "workspace", json_object_new_string(s->workspace));
        json_object_object_add(o, "home", s->home ? json_object_new_string(s->home) : NULL);
        json_object_object_add(o, "write", strv_json(s->write));
        json_object_object_add(o, "read_only", strv_json(s->read_only));
        json_object_object_add(o, "hide", strv_json(s->hide));
        json_object_object_add(o, "net_allow", strv_json(s->net_allow));
        json_object_object_add(o, "net_deny", strv_json(s->net_deny));
        json_object_object_add(o, "private_tmp", json_object_new_int(s->private_tmp));
        json_object_object_add(o, "network", json_object_new_int(s->network));
        json_object_object_add(o, "approval", json_object_new_int(s->approval));
        json_object_object_add(o, "best_effort", json_object_new_int64(s->best_effort));
        json_object_object_add(o, "proxy_port", json_object_new_int(s->proxy_port));
        return o;
}

static struct json_object *line_json(const struct core_line *l, const struct core_module *m)
{
        struct json_object *o = json_object_new_object(), *args = json_object_new_object();

        json_object_object_add(o, "module", json_object_new_string(l->module));
        json_object_object_add(o, "fd", json_object_new_int(m->fd));
        json_object_object_add(o, "path", json_object_new_string(m->path)); /* where dlopen needs a path (os.h) */
        json_object_object_add(o, "control", json_object_new_int(l->control));
        json_object_object_add(o, "file", json_object_new_string(l->origin.file));
        json_object_object_add(o, "line", json_object_new_int((int) l->origin.line));
        json_object_object_add(o, "column", json_object_new_int((int) l->origin.column));
        json_object_object_add(o, "layer", json_object_new_int(l->origin.layer));
        for (size_t i = 0; i < l->n_args; i++)
                json_object_object_add(args, l->args[i].name, l->args[i].is_list
                                       ? strv_json((const char *const *) l->args[i].list)
                                       : json_object_new_string(l->args[i].scalar));
        json_object_object_add(o, "args", args);
        return o;
}

static int build_config(struct core_run *run, int *extra, size_t *n_extra, size_t max, int *ret_fd)
{
        struct json_object *cfg = json_object_new_object(), *lines = json_object_new_array(), *pass;
        int r;

        json_object_object_add(cfg, "settings", settings_json(&run->settings.pub));
        json_object_object_add(cfg, "covered", json_object_new_int64(run->covered));
        json_object_object_add(cfg, "log_level", json_object_new_int(core_log_level));
        pass = json_object_new_array();
        for (size_t i = 0; i < run->plan.n_pass_fds; i++)
                json_object_array_add(pass, json_object_new_int(run->plan.pass_fds[i]));
        json_object_object_add(cfg, "pass_fds", pass);
        for (size_t i = 0; i < run->policy->n_lines; i++) {
                const struct core_line *l = &run->policy->lines[i];
                if (l->phase != STK_PHASE_IN_SANDBOX)
                        continue;
                if (*n_extra >= max) {
                        json_object_put(cfg);
                        json_object_put(lines);
                        return -E2BIG;
                }
                extra[(*n_extra)++] = run->ctxs[i].mod->fd;
                json_object_array_add(lines, line_json(l, run->ctxs[i].mod));
        }
        json_object_object_add(cfg, "lines", lines);
        r = os_text_fd("inner", json_object_to_json_string_ext(cfg, JSON_C_TO_STRING_PLAIN), ret_fd);
        json_object_put(cfg);
        return r;
}

int core_inner_argv(struct core_run *run, int status_fd, char ***ret, int *extra, size_t *n_extra, size_t max)
{
        char self[PATH_MAX], cfg[16], st[16];
        int self_fd = -1, cfg_fd = -1, r;

        r = os_self_exec(&self_fd, self, sizeof(self));
        if (r < 0)
                return r;
        r = build_config(run, extra, n_extra, max - 3, &cfg_fd);
        if (r < 0) {
                closep(&self_fd);
                return r;
        }
        if (self_fd >= 0)
                extra[(*n_extra)++] = self_fd;
        extra[(*n_extra)++] = cfg_fd;
        extra[(*n_extra)++] = status_fd;
        snprintf(cfg, sizeof(cfg), "%d", cfg_fd);
        snprintf(st, sizeof(st), "%d", status_fd);
        *ret = strv_copy((const char *const[]) { self, "__inner", cfg, st, "--", NULL });
        return *ret ? 0 : -ENOMEM;
}

int core_in_sandbox_apply(struct core_run *run)
{
        int r = core_stack_act(run, STK_PHASE_IN_SANDBOX);

        /* The lines' shared seccomp filter last: it must not stand in the
         * way of what they did. */
        if (r >= 0)
                r = core_notify_load(run);
        if (r < 0)
                return r;
        return core_coverage_check(run);
}
