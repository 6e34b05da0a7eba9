/* SPDX-License-Identifier: MIT */
/* `stockade __inner CONFIG_FD STATUS_FD -- CMD...`: the reading side of
 * inner.c, running inside the wrapper. */
#include <fcntl.h>
#include <stdio.h>
#include <json-c/json.h>

#include "core.h"
#include "status.h"
#include "util/util.h"

static char **json_strv(struct json_object *o, const char *key)
{
        struct json_object *a = json_object_object_get(o, key);
        char **v = calloc(1, sizeof(char *));

        for (size_t i = 0; v && a && i < json_object_array_length(a); i++)
                if (strv_push(&v, json_object_get_string(json_object_array_get_idx(a, i))) < 0)
                        return strv_free(v);
        return v;
}

static int get_int(struct json_object *o, const char *key)
{
        return json_object_get_int(json_object_object_get(o, key));
}

static int settings_from_json(struct json_object *o, struct core_settings *s, struct core_policy *p)
{
        s->write = json_strv(o, "write");
        s->read_only = json_strv(o, "read_only");
        s->hide = json_strv(o, "hide");
        s->net_allow = json_strv(o, "net_allow");
        s->net_deny = json_strv(o, "net_deny");
        p->profile = strdup(json_object_get_string(json_object_object_get(o, "profile")));
        p->workspace = strdup(json_object_get_string(json_object_object_get(o, "workspace")));
        if (!s->write || !s->read_only || !s->hide || !s->net_allow || !s->net_deny || !p->profile || !p->workspace)
                return -ENOMEM;
        core_settings_publish(s, &(struct stk_settings) {
                .profile = p->profile,
                .workspace = p->workspace,
                .private_tmp = get_int(o, "private_tmp"),
                .network = (enum stk_network) get_int(o, "network"),
                .approval = (enum stk_approval) get_int(o, "approval"),
                .best_effort = (uint32_t) json_object_get_int64(json_object_object_get(o, "best_effort")),
                .home = json_object_get_string(json_object_object_get(o, "home")),
                .proxy_port = get_int(o, "proxy_port"),
        });
        return 0;
}

static int line_from_json(struct json_object *o, struct core_line *l)
{
        struct json_object *args = json_object_object_get(o, "args");

        l->phase = STK_PHASE_IN_SANDBOX;
        l->control = (enum core_control) get_int(o, "control");
        l->module = strdup(json_object_get_string(json_object_object_get(o, "module")));
        l->origin = (struct core_origin) {
                .file = json_object_get_string(json_object_object_get(o, "file")),
                .line = (unsigned) get_int(o, "line"),
                .column = (unsigned) get_int(o, "column"),
                .layer = (enum core_layer) get_int(o, "layer"),
        };
        l->args = calloc((size_t) json_object_object_length(args) + 1, sizeof(*l->args));
        if (!l->module || !l->args)
                return -ENOMEM;
        json_object_object_foreach(args, key, val) {
                struct core_arg *a = &l->args[l->n_args++];
                a->name = strdup(key);
                a->origin = l->origin;
                a->is_list = json_object_is_type(val, json_type_array);
                if (a->is_list)
                        a->list = json_strv(args, key);
                else
                        a->scalar = strdup(json_object_get_string(val));
                if (!a->name || (a->is_list ? !a->list : !a->scalar))
                        return -ENOMEM;
        }
        return 0;
}

#define CONFIG_MAX (1 << 20)
static int read_config(int fd, struct json_object **ret)
{
        _cleanup_free_ char *buf = malloc(CONFIG_MAX + 1);
        size_t n = 0;
        ssize_t k = 0;

        if (!buf)
                return -ENOMEM;
        while (n <= CONFIG_MAX && (k = read(fd, buf + n, CONFIG_MAX + 1 - n)) > 0)
                n += (size_t) k;
        if (k < 0)
                return -errno;
        if (n > CONFIG_MAX)
                return -E2BIG; /* never parsed cut short (found by review) */
        buf[n] = '\0';
        *ret = json_tokener_parse(buf);
        return *ret ? 0 : -EBADMSG;
}

/* Build the run: the in-sandbox lines, their modules loaded from the fds
 * the supervisor opened and checked. */
static int run_from_config(struct json_object *cfg, struct core_policy *p, struct core_run *run)
{
        struct json_object *lines = json_object_object_get(cfg, "lines");
        size_t n = lines ? json_object_array_length(lines) : 0;
        int r;

        p->lines = calloc(n + 1, sizeof(*p->lines));
        run->ctxs = calloc(n + 1, sizeof(*run->ctxs));
        run->modules = calloc(n + 1, sizeof(*run->modules));
        if (!p->lines || !run->ctxs || !run->modules)
                return -ENOMEM;
        r = settings_from_json(json_object_object_get(cfg, "settings"), &run->settings, p);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                struct json_object *o = json_object_array_get_idx(lines, i);
                struct core_module *m = &run->modules[run->n_modules];
                r = line_from_json(o, &p->lines[p->n_lines++]);
                if (r < 0)
                        break;
                *m = (struct core_module) {
                        .fd = get_int(o, "fd"),
                        .name = strdup(p->lines[i].module),
                        .path = strdup(json_object_get_string(json_object_object_get(o, "path"))),
                };
                r = m->name && m->path ? core_module_load_fd(m->name, m->fd, m) : -ENOMEM;
                run->n_modules++;
                if (r >= 0)
                        r = core_ctx_setup(run, i, m);
        }
        run->covered = (uint32_t) json_object_get_int64(json_object_object_get(cfg, "covered"));
        return r;
}

static int keep_only_pass_fds(struct json_object *cfg, int status_fd)
{
        struct json_object *a = json_object_object_get(cfg, "pass_fds");
        int keep[33];
        size_t n = 0;

        keep[n++] = status_fd; /* close-on-exec already */
        for (size_t i = 0; a && i < json_object_array_length(a) && n < ELEMENTSOF(keep); i++)
                keep[n++] = json_object_get_int(json_object_array_get_idx(a, i));
        return close_fds_except(3, keep, n);
}

int core_inner_main(int argc, char **argv)
{
        struct core_policy p = { 0 };
        struct core_run run = { .policy = &p, .in_child = true, .plan.exec_fd = -1 };
        struct json_object *cfg = NULL;
        int cfg_fd, status_fd, r;

        if (argc < 6 || !streq(argv[4], "--"))
                return STK_EXIT_USAGE;
        cfg_fd = atoi(argv[2]);
        status_fd = atoi(argv[3]);
        if (fcntl(status_fd, F_SETFD, FD_CLOEXEC) < 0)
                return STK_EXIT_SETUP;
        r = read_config(cfg_fd, &cfg);
        if (r >= 0) {
                core_log_level = get_int(cfg, "log_level");
                r = run_from_config(cfg, &p, &run);
        }
        if (r >= 0)
                r = core_run_init_modules(&run, STK_PHASE_IN_SANDBOX);
        /* The modules are mapped; their fds, the config and our own binary go. */
        if (r >= 0)
                r = keep_only_pass_fds(cfg, status_fd);
        if (r < 0) {
                core_status_send(status_fd, CORE_STATUS_FAIL_SETUP, -r, "inner helper: %s", strerror(-r));
                return STK_EXIT_SETUP;
        }
        core_exec_command(&run, status_fd, argv + 5, NULL);
}
