/* SPDX-License-Identifier: MIT */
/*
 * After every layer is merged: ${WORKSPACE} ${CWD} ${HOME} ${TMPDIR}, a
 * leading ~ and $$, then absolute, canonical, deduplicated paths.
 *
 * Expansion runs after the merge so ${WORKSPACE} is the final workspace
 * (a user file's `workspace:` or --workspace), whichever file wrote the
 * path.  Paths are canonicalised (symlinks resolved) because enforcement
 * modules compare and bind them: a hidden ~/.ssh that is a symlink must
 * hide its target.  A `$` that is not `${NAME}` or `$$` is an error rather
 * than literal text, so `$HOME/x` cannot silently become a relative path
 * or a module argument with a `$` in it.
 */
#include <stdio.h>
#include <sys/stat.h>

#include "policy_internal.h"
#include "common/stk_buf.h"
#include "util/util.h"

struct vars {
        const char *workspace; /* NULL while the workspace itself is expanded */
        const char *cwd, *home, *tmpdir;
};

/* 1: reported; 0: *ret is the value of ${NAME}. */
static int lookup(struct ploader *l, const struct vars *v, const struct core_origin *o,
                  const char *name, size_t n, const char **ret)
{
        static const char *const names[] = { "WORKSPACE", "CWD", "HOME", "TMPDIR" };
        const char *values[] = { v->workspace, v->cwd, v->home, v->tmpdir };

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                if (strlen(names[i]) != n || strncmp(names[i], name, n) != 0)
                        continue;
                if (!values[i]) {
                        perr_origin(l, o, "${%s} has no value here; expected %s", names[i],
                                    i == 0 ? "${CWD} or a path for the workspace itself"
                                           : "it to be set in the environment");
                        return 1;
                }
                *ret = values[i];
                return 0;
        }
        perr_origin(l, o, "unknown variable \"${%.*s}\"; expected ${WORKSPACE}, ${CWD}, ${HOME} or ${TMPDIR} "
                    "($$ for a literal $)", (int) n, name);
        return 1;
}

/* At a '$' of `in`; advances *pp.  1: reported. */
static int expand_dollar(struct ploader *l, const struct vars *v, const struct core_origin *o,
                         const char *in, const char **pp, struct stk_buf *out)
{
        const char *p = *pp, *end, *value = NULL;
        int r;

        if (p[1] == '$') {
                stk_buf_addc(out, '$');
                *pp = p + 2;
                return 0;
        }
        end = p[1] == '{' ? strchr(p + 2, '}') : NULL;
        if (!end) {
                perr_origin(l, o, "%s \"$\" in \"%s\"; expected ${NAME}, or $$ for a literal $",
                            p[1] == '{' ? "unterminated" : "a lone", in);
                return 1;
        }
        r = lookup(l, v, o, p + 2, (size_t) (end - p - 2), &value);
        if (r != 0)
                return r;
        stk_buf_adds(out, value);
        *pp = end + 1;
        return 0;
}

/* 0 and *ret, 1 after reporting, -ENOMEM.  (A stk_buf, not open_memstream:
 * every path of every layer comes through here on each run, and a memstream
 * costs a zeroed page apiece.) */
static int expand(struct ploader *l, const struct vars *v, const char *in, const struct core_origin *o,
                  char **ret)
{
        _cleanup_(stk_buf_done) struct stk_buf out = { 0 };
        const char *p = in;
        char *buf;
        int r = 0;

        if (p[0] == '~' && (p[1] == '\0' || p[1] == '/')) {
                if (v->home)
                        stk_buf_adds(&out, v->home);
                else {
                        perr_origin(l, o, "\"~\" with no home directory; expected HOME to be set");
                        r = 1;
                }
                p++;
        }
        while (r == 0 && *p) {
                size_t n = strcspn(p, "$");

                stk_buf_add(&out, p, n);
                p += n;
                if (*p == '$')
                        r = expand_dollar(l, v, o, in, &p, &out);
        }
        if (r != 0)
                return r;
        buf = stk_buf_take(&out);
        if (!buf)
                return -ENOMEM;
        *ret = buf;
        return 0;
}

/* "//" and a trailing "/" would defeat deduplication of paths that do not
 * exist yet (path_canonicalize keeps the part it could not resolve). */
static void normalize_slashes(char *s)
{
        char *w = s;

        for (const char *r = s; *r; r++)
                if (!(*r == '/' && w > s && w[-1] == '/'))
                        *w++ = *r;
        if (w > s + 1 && w[-1] == '/')
                w--;
        *w = '\0';
}

/* Values from the command line are not expanded (a directory may have a
 * `$` in its name); a relative one is taken from ${CWD}.  But the whole
 * value "${WORKSPACE}", which --read-only writes (cli_layer.c): the
 * workspace is known only once every layer is in. */
static int cli_value(const struct vars *v, const char *in, char **ret)
{
        int n;

        if (streq(in, "${WORKSPACE}") && v->workspace)
                n = asprintf(ret, "%s", v->workspace);
        else if (in[0] == '/' || !v->cwd)
                n = asprintf(ret, "%s", in);
        else
                n = asprintf(ret, "%s/%s", v->cwd, in);
        return n < 0 ? -ENOMEM : 0;
}

/* 0, 1 after reporting, -ENOMEM. */
static int finish_path(struct ploader *l, const struct vars *v, char **value, const struct core_origin *o,
                       bool keep_last)
{
        _cleanup_free_ char *x = NULL, *c = NULL;
        int r = o->layer == CORE_LAYER_CLI ? cli_value(v, *value, &x) : expand(l, v, *value, o, &x);

        if (r != 0)
                return r;
        if (x[0] != '/') {
                perr_origin(l, o, "\"%s\" is a relative path after expansion; expected an absolute path, "
                            "~/..., ${WORKSPACE}/... or ${HOME}/...", x);
                return 1;
        }
        normalize_slashes(x);
        r = keep_last ? path_canonicalize_parent(x, &c) : path_canonicalize(x, &c);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                if (r == -EINVAL)
                        perr_origin(l, o, "\"%s\" has \".\" or \"..\" below a directory that does not exist; "
                                    "expected a path that can be resolved", x);
                else
                        perr_origin(l, o, "cannot resolve \"%s\": %s; expected a path that can be resolved",
                                    x, strerror(-r));
                return 1;
        }
        free(*value);
        *value = TAKE_PTR(c);
        return 0;
}

/* Items that resolve to the same path keep the first one and its origin. */
static void dedupe(struct core_list *list)
{
        size_t w = 0;

        for (size_t i = 0; i < list->n; i++) {
                bool seen = false;
                for (size_t j = 0; j < w && !seen; j++)
                        seen = streq(list->items[j].value, list->items[i].value);
                if (seen)
                        free(list->items[i].value);
                else
                        list->items[w++] = list->items[i];
        }
        list->n = w;
}

static int finish_list(struct ploader *l, const struct vars *v, struct core_list *list)
{
        for (size_t i = 0; i < list->n; i++) {
                int r = finish_path(l, v, &list->items[i].value, &list->items[i].origin, false);
                if (r < 0)
                        return r;
        }
        dedupe(list);
        return 0;
}

/* A file is a path like any other; a sink (syslog, journal) is kept as
 * written, its socket an absolute path (core/run/audit_sink.c). */
static int finish_audit(struct ploader *l, const struct vars *v, struct core_policy *p)
{
        int kind = core_audit_kind(p->audit, NULL);

        if (kind == CORE_AUDIT_FILE)
                return finish_path(l, v, &p->audit, &p->audit_origin, false);
        if (kind < 0)
                perr_origin(l, &p->audit_origin, "audit \"%s\": the socket of a sink is an absolute path; "
                            "expected syslog, syslog:/SOCKET, journal or journal:/SOCKET", p->audit);
        return 0;
}

/* read_only and hide protect a path both as a name and as what it points
 * to: resolving a final symlink alone would leave the link itself in a
 * writable root, where the command could delete it and create a real file
 * or directory under the protected name; the target is protected too, or
 * writing through another path to it would still work. */
static int finish_list_link_and_target(struct ploader *l, const struct vars *v, struct core_list *list)
{
        struct core_list links = { 0 };
        int r = 0;

        /* Each raw value is expanded once as a link, once as a target. */
        for (size_t i = 0; r >= 0 && i < list->n; i++) {
                struct core_origin o = list->items[i].origin;
                char *link = strdup(list->items[i].value);
                r = link ? finish_path(l, v, &link, &o, true) : -ENOMEM;
                if (r == 0)
                        r = plist_add(&links, link, &o);
                free(link);
        }
        if (r >= 0)
                r = finish_list(l, v, list);
        for (size_t i = 0; r >= 0 && i < links.n; i++)
                r = plist_add(list, links.items[i].value, &links.items[i].origin);
        plist_done(&links);
        if (r >= 0)
                dedupe(list);
        return r;
}

static int finish_args(struct ploader *l, const struct vars *v, struct core_line *line)
{
        for (size_t i = 0; i < line->n_args; i++) {
                struct core_arg *a = &line->args[i];
                char **slot = a->is_list ? a->list : &a->scalar;

                /* One scalar, or every item of the NULL-terminated list. */
                for (; slot && *slot; slot = a->is_list ? slot + 1 : NULL) {
                        char *x = NULL;
                        int r = expand(l, v, *slot, &a->origin, &x);
                        if (r < 0)
                                return r;
                        if (r == 0) {
                                free(*slot);
                                *slot = x;
                        }
                }
        }
        return 0;
}

/* 0, 1 after reporting (the rest then depends on a workspace we lack),
 * -ENOMEM. */
static int finish_workspace(struct ploader *l, struct vars *v)
{
        struct core_policy *p = l->p;
        struct stat st;
        int r;

        if (!p->workspace) {
                if (!l->src->workspace) {
                        core_diag(NULL, "no workspace; expected workspace: in a policy file, or --workspace");
                        l->n_errors++;
                        return 1;
                }
                /* The caller's directory is not file text: no expansion. */
                p->workspace = strdup(l->src->workspace);
                p->workspace_origin.layer = CORE_LAYER_CLI;
                p->workspace_origin.file = pintern(p, "<command line>");
                if (!p->workspace || !p->workspace_origin.file)
                        return -ENOMEM;
        }
        r = finish_path(l, v, &p->workspace, &p->workspace_origin, false);
        if (r != 0)
                return r;
        if (stat(p->workspace, &st) < 0 || !S_ISDIR(st.st_mode)) {
                perr_origin(l, &p->workspace_origin, "workspace \"%s\" is not an existing directory; "
                            "expected the directory the command works in", p->workspace);
                return 1;
        }
        v->workspace = p->workspace;
        return 0;
}

int pexpand_policy(struct ploader *l)
{
        const struct core_policy_sources *src = l->src;
        struct core_policy *p = l->p;
        _cleanup_free_ char *cwd = src->cwd ? NULL : getcwd(NULL, 0);
        struct vars v = {
                .cwd = src->cwd ? src->cwd : cwd,
                .home = src->home ? src->home : getenv("HOME"),
                .tmpdir = src->tmpdir ? src->tmpdir : "/tmp",
        };
        int r = finish_workspace(l, &v);

        if (r != 0)
                return r < 0 ? r : 0;
        r = finish_list(l, &v, &p->write);
        if (r >= 0)
                r = finish_list_link_and_target(l, &v, &p->read_only);
        if (r >= 0)
                r = finish_list_link_and_target(l, &v, &p->hide);
        if (r >= 0 && p->audit)
                r = finish_audit(l, &v, p);
        if (r >= 0 && p->approval_exec)
                r = finish_path(l, &v, &p->approval_exec, &p->approval_exec_origin, false);
        for (size_t i = 0; r >= 0 && i < p->n_lines; i++)
                r = finish_args(l, &v, &p->lines[i]);
        return r < 0 ? r : 0;
}
