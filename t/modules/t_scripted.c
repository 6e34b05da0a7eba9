/* SPDX-License-Identifier: MIT */
/*
 * t_scripted: a test-only module whose every hook does what its line's args
 * say (never installed).  Drives the control-flag truth table through the
 * real core, and proves with marker files which hooks ran.
 *
 *   result:  ok | fail | allow | deny | ask | ignore | bogus   (the hook's outcome)
 *   approve: allow | deny | ignore                              (approval hook)
 *   marker:  a file to create when a hook runs
 *   covers:  cover names this line claims (write, hide, ...)
 *   probe_fail / init_fail: make probe / init fail
 *   setenv:  NAME=VALUE added to the plan (pre-exec)
 *   wrap:    an argv prefix for the plan (pre-exec): a stand-in wrapper
 *   handoff: text prepare hands to the in-sandbox hook (ABI 1.4), which
 *            writes "handoff:TEXT" to the marker; prepare_fail: prepare fails
 *   doctor:  ok | warn | fail | silent | error: the doctor hook's report
 *            (ABI 1.5); the permission hook also tries doctor_check there,
 *            where it must be refused, and writes "doctor_check:ERRNO"
 *   protected: the permission hook writes host->protected_paths() to the
 *            marker, "protected:PATH" a line (ABI 1.5)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stockade/module.h"

static const struct stk_host *host;

static const struct stk_arg_spec args[] = {
        { "result", STK_ARG_STRING, 0, "hook outcome" },
        { "approve", STK_ARG_STRING, 0, "approval answer" },
        { "marker", STK_ARG_STRING, 0, "file created when a hook runs" },
        { "covers", STK_ARG_LIST, 0, "cover names claimed" },
        { "probe_fail", STK_ARG_BOOL, 0, "probe fails" },
        { "init_fail", STK_ARG_BOOL, 0, "init fails" },
        { "setenv", STK_ARG_STRING, 0, "NAME=VALUE for the plan" },
        { "wrap", STK_ARG_LIST, 0, "argv prefix for the plan" },
        { "handoff", STK_ARG_STRING, 0, "text prepare hands to in-sandbox" },
        { "prepare_fail", STK_ARG_BOOL, 0, "prepare fails" },
        { "doctor", STK_ARG_STRING, 0, "doctor hook: ok, warn, fail, silent or error" },
        { "protected", STK_ARG_BOOL, 0, "permission: write the protected paths to the marker" },
        { NULL, 0, 0, NULL },
};

static void touch_marker(struct stk_ctx *ctx, const char *hook)
{
        const char *m = host->arg_string(ctx, "marker");
        int fd;

        if (!m)
                return;
        fd = open(m, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0) {
                (void) !write(fd, hook, strlen(hook));
                (void) !write(fd, "\n", 1);
                close(fd);
        }
}

static int to_verdict(const char *s, enum stk_verdict *v)
{
        if (!s || !strcmp(s, "ok") || !strcmp(s, "allow"))
                *v = STK_ALLOW;
        else if (!strcmp(s, "deny"))
                *v = STK_DENY;
        else if (!strcmp(s, "ask"))
                *v = STK_ASK;
        else if (!strcmp(s, "ignore"))
                *v = STK_IGNORE;
        else if (!strcmp(s, "bogus"))
                *v = (enum stk_verdict) 99;
        else
                return -EIO; /* "fail" */
        return 0;
}

static int scripted_init(struct stk_ctx *ctx, const struct stk_host *h, void **ret)
{
        host = h;
        *ret = NULL;
        return host->arg_bool(ctx, "init_fail", 0) ? -EIO : 0;
}

static const struct { const char *name; uint32_t bit; } cover_names[] = {
        { "write", STK_COVER_WRITE }, { "read_only", STK_COVER_READ_ONLY }, { "hide", STK_COVER_HIDE },
        { "private_tmp", STK_COVER_PRIVATE_TMP }, { "net_tcp", STK_COVER_NET_TCP },
        { "net_other", STK_COVER_NET_OTHER }, { "net_abstract", STK_COVER_NET_ABSTRACT },
        { "net_unix", STK_COVER_NET_UNIX }, { "process", STK_COVER_PROCESS }, { "ipc", STK_COVER_IPC },
        { "metadata", STK_COVER_METADATA }, { "proc", STK_COVER_PROC_OTHERS },
};

static int scripted_probe(struct stk_ctx *ctx, uint32_t *ret)
{
        const char *const *c = host->arg_list(ctx, "covers");

        *ret = 0;
        for (size_t i = 0; c[i]; i++)
                for (size_t k = 0; k < sizeof(cover_names) / sizeof(cover_names[0]); k++)
                        if (!strcmp(c[i], cover_names[k].name))
                                *ret |= cover_names[k].bit;
        if (host->arg_bool(ctx, "probe_fail", 0)) {
                host->log(ctx, STK_LOG_INFO, "probe fails as scripted");
                return -ENODEV;
        }
        return 0;
}

static int scripted_decide(struct stk_ctx *ctx, enum stk_verdict *v, const char *hook)
{
        touch_marker(ctx, hook);
        return to_verdict(host->arg_string(ctx, "result"), v);
}

static int scripted_permission(struct stk_ctx *ctx, const struct stk_request *req, enum stk_verdict *v)
{
        char line[4200];

        if (host->arg_string(ctx, "doctor")) {
                snprintf(line, sizeof(line), "doctor_check:%d", host->doctor_check(ctx, STK_DOCTOR_OK, "x", "y"));
                touch_marker(ctx, line);
        }
        for (const char *const *p = host->arg_bool(ctx, "protected", 0) ? host->protected_paths(ctx) : NULL; p && *p; p++) {
                snprintf(line, sizeof(line), "protected:%s", *p);
                touch_marker(ctx, line);
        }
        return scripted_decide(ctx, v, "permission");
}

static int scripted_doctor(struct stk_ctx *ctx, const struct stk_host *h)
{
        const char *how = h->arg_string(ctx, "doctor");
        enum stk_doctor_status s = !how || !strcmp(how, "ok") ? STK_DOCTOR_OK
                                   : !strcmp(how, "warn")     ? STK_DOCTOR_WARN
                                                              : STK_DOCTOR_FAIL;

        if (how && !strcmp(how, "error"))
                return -EIO;
        if (how && !strcmp(how, "silent"))
                return 0;
        if (h->doctor_detail(ctx, "note", "before any check") != -EINVAL)
                return -EPROTO; /* a detail before a check must be refused */
        h->doctor_check(ctx, s, "scripted", "t_scripted reports %s", how ? how : "ok");
        h->doctor_detail(ctx, "cause", "its line said doctor: %s", how ? how : "ok");
        h->doctor_detail(ctx, "own_value", "42");
        return 0;
}

static int scripted_egress(struct stk_ctx *ctx, const struct stk_egress *req, enum stk_verdict *v)
{
        return scripted_decide(ctx, v, "egress");
}

static int scripted_act(struct stk_ctx *ctx, const char *hook)
{
        enum stk_verdict v;

        touch_marker(ctx, hook);
        return to_verdict(host->arg_string(ctx, "result"), &v) < 0 ? -EIO : 0;
}

static int scripted_pre_exec(struct stk_ctx *ctx)
{
        const char *e = host->arg_string(ctx, "setenv");
        char name[128];
        int r = scripted_act(ctx, "pre-exec");

        if (r >= 0 && e && strchr(e, '=') && (size_t) (strchr(e, '=') - e) < sizeof(name)) {
                snprintf(name, sizeof(name), "%.*s", (int) (strchr(e, '=') - e), e);
                r = host->plan_setenv(ctx, name, strchr(e, '=') + 1);
        }
        const char *const *wrap = host->arg_list(ctx, "wrap");
        if (r >= 0 && wrap && wrap[0])
                r = host->plan_wrap(ctx, wrap);
        return r;
}

static int scripted_prepare(struct stk_ctx *ctx)
{
        const char *text = host->arg_string(ctx, "handoff");

        if (host->arg_bool(ctx, "prepare_fail", 0))
                return -ENOTRECOVERABLE;
        return text ? host->handoff(ctx, text, strlen(text)) : 0;
}

static int scripted_in_sandbox(struct stk_ctx *ctx)
{
        const void *data = NULL;
        size_t len = 0;
        char line[256];
        int r = host->handoff_take(ctx, &data, &len);

        if (r < 0)
                return r;
        if (data) {
                snprintf(line, sizeof(line), "handoff:%.*s", (int) len, (const char *) data);
                touch_marker(ctx, line);
        }
        return scripted_act(ctx, "in-sandbox");
}

static int scripted_approve(struct stk_ctx *ctx, const struct stk_question *q, enum stk_verdict *v)
{
        const char *a = host->arg_string(ctx, "approve");

        touch_marker(ctx, "approve");
        return to_verdict(a ? a : "ignore", v);
}

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("t_scripted"),
        .summary = "test module: hooks do what the args say",
        .args = args,
        .init = scripted_init,
        .probe = scripted_probe,
        .permission = scripted_permission,
        .pre_exec = scripted_pre_exec,
        .in_sandbox = scripted_in_sandbox,
        .egress = scripted_egress,
        .approve = scripted_approve,
        .prepare = scripted_prepare,
        .doctor = scripted_doctor,
};
