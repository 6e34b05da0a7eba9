/* SPDX-License-Identifier: MIT */
/* The host-function table handed to modules (stockade-module(3)). */
#include <stdarg.h>
#include <stdio.h>
#include <fcntl.h>
#include <json-c/json.h>

#include "core.h"
#include "status.h"
#include "util/util.h"

static void host_log(struct stk_ctx *ctx, enum stk_log_level level, const char *fmt, ...)
{
        _cleanup_free_ char *msg = NULL;
        va_list ap;
        int n;

        if (!core_log_admit(level))
                return;
        va_start(ap, fmt);
        n = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (n >= 0 && core_probe_hold(ctx, level, msg))
                return;
        fprintf(stderr, "stockade: %s: %s (%s:%u): %s\n", core_log_level_name(level), ctx->mod->name,
                ctx->line->origin.file, ctx->line->origin.line, n < 0 ? fmt : msg);
}

static struct core_typed_arg *find_arg(struct stk_ctx *ctx, const char *name)
{
        for (size_t i = 0; i < ctx->n_args; i++)
                if (streq(ctx->args[i].spec->name, name))
                        return ctx->args[i].set ? &ctx->args[i] : NULL;
        return NULL;
}

static const char *host_arg_string(struct stk_ctx *ctx, const char *name)
{
        struct core_typed_arg *a = find_arg(ctx, name);
        return a && a->spec->type == STK_ARG_STRING ? a->string : NULL;
}

static const char *const *host_arg_list(struct stk_ctx *ctx, const char *name)
{
        struct core_typed_arg *a = find_arg(ctx, name);
        return (const char *const *) (a && a->spec->type == STK_ARG_LIST ? a->list : ctx->empty);
}

static int host_arg_bool(struct stk_ctx *ctx, const char *name, int dflt)
{
        struct core_typed_arg *a = find_arg(ctx, name);
        return a && a->spec->type == STK_ARG_BOOL ? (int) a->number : dflt;
}

static long long host_arg_int(struct stk_ctx *ctx, const char *name, long long dflt)
{
        struct core_typed_arg *a = find_arg(ctx, name);
        return a && a->spec->type == STK_ARG_INT ? a->number : dflt;
}

static const struct stk_settings *host_settings(struct stk_ctx *ctx)
{
        return &ctx->run->settings.pub;
}

static void *host_data(struct stk_ctx *ctx)
{
        return ctx->mod->data;
}

static struct core_plan *plan_of(struct stk_ctx *ctx)
{
        return ctx->run->phase == STK_PHASE_PRE_EXEC && !ctx->run->in_child ? &ctx->run->plan : NULL;
}

static const char *const *host_plan_argv(struct stk_ctx *ctx)
{
        return (const char *const *) ctx->run->plan.argv;
}

static int host_plan_wrap(struct stk_ctx *ctx, const char *const *prefix)
{
        struct core_plan *p = plan_of(ctx);
        char **nv = NULL;

        if (!p)
                return -EPERM;
        if (!prefix || !prefix[0] || prefix[0][0] != '/')
                return -EINVAL; /* wrappers run by absolute path, never through PATH */
        /* A later wrapper goes outside the earlier ones. */
        for (size_t i = 0; prefix[i]; i++)
                if (strv_push(&nv, prefix[i]) < 0)
                        return strv_free(nv), -ENOMEM;
        for (size_t i = 0; p->prefix && p->prefix[i]; i++)
                if (strv_push(&nv, p->prefix[i]) < 0)
                        return strv_free(nv), -ENOMEM;
        strv_free(p->prefix);
        p->prefix = nv;
        return 0;
}

static int host_plan_setenv(struct stk_ctx *ctx, const char *name, const char *value)
{
        struct core_plan *p = plan_of(ctx);
        return p ? core_plan_setenv(p, name, value) : -EPERM;
}

static int host_plan_unsetenv(struct stk_ctx *ctx, const char *name)
{
        struct core_plan *p = plan_of(ctx);
        return p ? core_plan_setenv(p, name, NULL) : -EPERM;
}

static int host_plan_bind(struct stk_ctx *ctx, const char *source, const char *dest, unsigned flags)
{
        struct core_plan *p = plan_of(ctx);
        return p ? core_plan_bind(p, source, dest, flags) : -EPERM;
}

static const struct stk_bind *host_plan_binds(struct stk_ctx *ctx, size_t *ret_n)
{
        *ret_n = ctx->run->plan.n_binds;
        return ctx->run->plan.binds;
}

static int host_plan_pass_fd(struct stk_ctx *ctx, int fd)
{
        struct core_plan *p = plan_of(ctx);
        return p ? core_plan_pass_fd(p, fd) : -EPERM;
}

static int host_plan_exec_fd(struct stk_ctx *ctx, int fd)
{
        struct core_plan *p = plan_of(ctx);
        int nfd;

        if (!p)
                return -EPERM;
        nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (nfd < 0)
                return -errno;
        closep(&p->exec_fd);
        p->exec_fd = nfd;
        return 0;
}

static int host_ask(struct stk_ctx *ctx, const struct stk_question *q, enum stk_verdict *ret)
{
        const char *decider;

        if (ctx->run->in_child)
                return -EPERM;
        return core_approval_ask(ctx->run, q, ret, &decider);
}

/* ABI 1.7: the agent server's client, when one set a way to ask it. */
static int host_client_confirm(struct stk_ctx *ctx, const char *message, int timeout_ms)
{
        struct core_run *run = ctx->run;

        if (run->in_child)
                return -EPERM;
        if (!message || !*message || timeout_ms < 1)
                return -EINVAL;
        if (!run->client_confirm)
                return -ENOTCONN;
        return run->client_confirm(run->client_confirm_data, message, timeout_ms);
}

static int host_audit(struct stk_ctx *ctx, const char *kind, const char *json_fields)
{
        struct json_object *o;

        if (!ctx->run->audit && !ctx->run->result)
                return 0; /* no log: do not parse what would be dropped (a proxy audits every connection) */
        o = json_fields ? json_tokener_parse(json_fields) : json_object_new_object();
        if (!o || !json_object_is_type(o, json_type_object)) {
                json_object_put(o);
                return -EINVAL;
        }
        json_object_object_add(o, "module", json_object_new_string(ctx->mod->name));
        return core_audit_record(ctx->run, kind, o);
}

static enum stk_phase host_line_phase(struct stk_ctx *ctx)
{
        return ctx->line->phase;
}

static uint32_t host_covered(struct stk_ctx *ctx)
{
        return ctx->run->covered;
}

static int host_send_fd(struct stk_ctx *ctx, int fd)
{
        if (!ctx->run->in_child || ctx->run->phase != STK_PHASE_IN_SANDBOX)
                return -EPERM;
        return core_status_send_fd(ctx->run->status_fd, fd, ctx->mod->name);
}

static int host_plan_proxy(struct stk_ctx *ctx, int port)
{
        if (!plan_of(ctx))
                return -EPERM;
        if (port < 1 || port > 65535)
                return -EINVAL;
        /* network.proxy_port names the port the proxy listens on; a proxy
         * that published another would leave every later line guarding
         * the wrong one */
        if (ctx->run->policy->proxy_port && port != ctx->run->policy->proxy_port)
                return -EADDRINUSE;
        ctx->run->settings.pub.proxy_port = port;
        return 0;
}

static int host_egress_decide(struct stk_ctx *ctx, const struct stk_egress *req, enum stk_verdict *ret,
                              const char **ret_decider)
{
        *ret = STK_DENY;
        *ret_decider = "stockade";
        if (ctx->run->in_child)
                return -EPERM;
        return core_egress_decide(ctx->run, req, ret, ret_decider);
}

static const char *const doctor_status_names[] = {
        [STK_DOCTOR_OK] = "ok",
        [STK_DOCTOR_WARN] = "warn",
        [STK_DOCTOR_FAIL] = "fail",
};

const char *core_doctor_status_name(enum stk_doctor_status s)
{
        return (unsigned) s < ELEMENTSOF(doctor_status_names) ? doctor_status_names[s] : "fail";
}

static int host_doctor_check(struct stk_ctx *ctx, enum stk_doctor_status status, const char *name,
                             const char *fmt, ...)
{
        struct core_run *run = ctx->run;
        _cleanup_free_ char *summary = NULL;
        struct json_object *o;
        va_list ap;
        int n;

        if (!run->doctor_checks)
                return -EPERM;
        if (!name || !*name || (unsigned) status >= ELEMENTSOF(doctor_status_names) || !fmt)
                return -EINVAL;
        va_start(ap, fmt);
        n = vasprintf(&summary, fmt, ap);
        va_end(ap);
        o = json_object_new_object();
        if (n < 0 || !o) {
                json_object_put(o);
                return -ENOMEM;
        }
        json_object_object_add(o, "name", json_object_new_string(name));
        json_object_object_add(o, "status", json_object_new_string(doctor_status_names[status]));
        json_object_object_add(o, "summary", json_object_new_string(summary));
        json_object_object_add(o, "module", json_object_new_string(ctx->mod->name));
        if (json_object_array_add(run->doctor_checks, o) < 0) {
                json_object_put(o);
                return -ENOMEM;
        }
        run->doctor_last = o;
        return 0;
}

static int host_doctor_detail(struct stk_ctx *ctx, const char *key, const char *fmt, ...)
{
        struct core_run *run = ctx->run;
        _cleanup_free_ char *text = NULL;
        va_list ap;
        int n;

        if (!run->doctor_checks)
                return -EPERM;
        if (!run->doctor_last || !key || !*key || !fmt || streq(key, "name") || streq(key, "status") ||
            streq(key, "module"))
                return -EINVAL;
        va_start(ap, fmt);
        n = vasprintf(&text, fmt, ap);
        va_end(ap);
        if (n < 0)
                return -ENOMEM;
        json_object_object_add(run->doctor_last, key, json_object_new_string(text));
        return 0;
}

/* Islands and hidden paths: what no command may write, made once a run.
 * Out of memory, the answer is empty and the next call tries again. */
static const char *const *host_protected_paths(struct stk_ctx *ctx)
{
        static const char *const none[] = { NULL };
        struct core_run *run = ctx->run;
        char **v;

        if (run->protected_paths)
                return (const char *const *) run->protected_paths;
        v = strv_copy((const char *const *) run->settings.read_only);
        for (char **l = run->settings.hide; v && l && *l; l++)
                if (!strv_contains((const char *const *) v, *l) && strv_push(&v, *l) < 0)
                        v = strv_free(v);
        run->protected_paths = v;
        return v ? (const char *const *) v : none;
}

const struct stk_host core_host = {
        .size = sizeof(struct stk_host),
        .abi_minor = STK_ABI_MINOR,
        .log = host_log,
        .arg_string = host_arg_string,
        .arg_list = host_arg_list,
        .arg_bool = host_arg_bool,
        .arg_int = host_arg_int,
        .settings = host_settings,
        .data = host_data,
        .plan_argv = host_plan_argv,
        .plan_wrap = host_plan_wrap,
        .plan_setenv = host_plan_setenv,
        .plan_unsetenv = host_plan_unsetenv,
        .plan_bind = host_plan_bind,
        .plan_binds = host_plan_binds,
        .plan_pass_fd = host_plan_pass_fd,
        .plan_exec_fd = host_plan_exec_fd,
        .ask = host_ask,
        .watch_fd = core_watch_fd,
        .unwatch_fd = core_unwatch_fd,
        .audit = host_audit,
        .line_phase = host_line_phase,
        .covered = host_covered,
        .send_fd = host_send_fd,
        .plan_proxy = host_plan_proxy,
        .egress_decide = host_egress_decide,
        .handoff = core_handoff,
        .handoff_take = core_handoff_take,
        .doctor_check = host_doctor_check,
        .doctor_detail = host_doctor_detail,
        .protected_paths = host_protected_paths,

        .seccomp_notify = core_notify_add,
        .client_confirm = host_client_confirm,
};
