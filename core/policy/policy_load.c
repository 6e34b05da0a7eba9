/* SPDX-License-Identifier: MIT */
/*
 * The layers (stockade.yaml(5) "LAYERS"): which files are read, in which
 * order, with which trust, and `include:`.  Merging is done by
 * policy_parse.c as each file is read; expansion by policy_expand.c once
 * all are in.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "policy_internal.h"
#include "util/util.h"

#define BUILTIN_PREFIX "<builtin>/"
#define CLI_ORIGIN "<command line>"
#define DEFAULT_ORIGIN "<default>"

/* ---- reading ------------------------------------------------------------- */

/* A FIFO or a device named .stockade.yaml in a repository must neither
 * hang the load nor feed it without end: O_NONBLOCK for the open, then
 * regular files only, and a size bound. */
/* A refused untrusted file (policy_trust.c): already reported. */
#define E_REFUSED_REPORTED EKEYREJECTED

/* `trust`: the layer's file must pass the trust rule (policy_trust.c),
 * judged on the fd that is read; NULL for the untrusted project layer. */
struct read_trust {
        struct ploader *l;
        const struct core_origin *o;
};

static int read_policy_file(const char *path, const struct read_trust *trust, char **ret, size_t *ret_len)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (trust ? O_NOFOLLOW : 0));
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t len = 0;

        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -E_NOT_REGULAR;
        if (trust) {
                int t = ptrust_file(trust->l, trust->o, path, &st);
                if (t != 0)
                        return t < 0 ? t : -E_REFUSED_REPORTED;
        }
        if (st.st_size > POLICY_MAX_FILE_SIZE)
                return -EFBIG;
        buf = malloc(POLICY_MAX_FILE_SIZE + 1);
        if (!buf)
                return -ENOMEM;
        for (;;) { /* read to EOF rather than trust st_size: the file may change */
                ssize_t n = read(fd, buf + len, POLICY_MAX_FILE_SIZE + 1 - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                len += (size_t) n;
                if (len > POLICY_MAX_FILE_SIZE)
                        return -EFBIG;
        }
        buf[len] = '\0';
        *ret = TAKE_PTR(buf);
        *ret_len = len;
        return 0;
}

static const char *read_error(int r)
{
        if (r == -E_NOT_REGULAR)
                return "not a regular file";
        if (r == -EFBIG)
                return "larger than 1 MiB";
        return strerror(-r);
}

static const struct core_embedded_file *embedded_find(const char *name)
{
        for (const struct core_embedded_file *e = core_embedded_profiles; e->name; e++)
                if (streq(e->name, name))
                        return e;
        return NULL;
}

static char *dir_of(const char *path)
{
        const char *slash = strrchr(path, '/');

        if (!slash)
                return strdup(".");
        if (slash == path)
                return strdup("/");
        return strndup(path, (size_t) (slash - path));
}

static char *path_join(const char *dir, const char *name)
{
        char *s;

        if (name[0] == '/' || !dir || streq(dir, "."))
                return strdup(name);
        if (asprintf(&s, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name) < 0)
                return NULL;
        return s;
}

/* ---- one file ------------------------------------------------------------ */

static int record_file(struct core_policy *p, const char *name, const struct core_origin *o)
{
        struct core_item *ni = realloc(p->files, (p->n_files + 1) * sizeof(*ni));

        if (!ni)
                return -ENOMEM;
        p->files = ni;
        ni[p->n_files] = (struct core_item) { .value = strdup(name), .origin = *o };
        if (!ni[p->n_files].value)
                return -ENOMEM;
        p->n_files++;
        return 0;
}

/* `from` is the include item naming this file, NULL for a layer's own file. */
static int load_text(struct ploader *l, const struct pfile *parent, const struct pnode *from,
                     struct pfile *f, const char *text, size_t len)
{
        _cleanup_(pnode_freep) struct pnode *root = NULL;
        struct core_origin o = from ? porigin(parent, from)
                                    : (struct core_origin) { .file = f->name, .layer = f->layer };
        int r = record_file(l->p, f->name, &o);

        if (r < 0)
                return r;
        r = pyaml_parse(f, text, len, &root);
        if (r < 0 || !root)
                return r; /* a syntax error was reported */
        return papply_file(f, root);
}

/* Anything but an absent file is reported: a layer file that exists but
 * cannot be read must fail the load, never fall back to a lower layer. */
static int read_failed(struct ploader *l, const struct core_origin *o, int r)
{
        if (r == -ENOMEM || r == -E_REFUSED_REPORTED)
                return r == -ENOMEM ? r : 0;
        core_diag(o, "cannot read policy file: %s; expected a readable regular file", read_error(r));
        if (r == -E_NOT_REGULAR || r == -EFBIG)
                l->n_errors++;
        else if (!l->io_error)
                l->io_error = r;
        return 0;
}

static bool is_directory(const char *path)
{
        struct stat st;

        return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A layer's own file.  1: absent and allowed to be; 0: read (errors, if
 * any, reported); <0: out of memory. */
static int load_path(struct ploader *l, const char *path, enum core_layer layer, bool may_be_absent)
{
        _cleanup_free_ char *canon = NULL, *dir = NULL, *text = NULL;
        struct core_origin o = { .file = pintern(l->p, path), .layer = layer };
        struct pfile f;
        size_t len = 0;
        int r;

        if (!o.file)
                return -ENOMEM;
        canon = realpath(path, NULL);
        if (!canon) {
                r = -errno;
                if (may_be_absent && (r == -ENOENT || r == -ENOTDIR))
                        return 1;
                return read_failed(l, &o, r);
        }
        /* A repository could make .stockade.yaml a symlink to ~/.ssh/id_rsa
         * and have us quote it in a diagnostic: resolve first, read only
         * what stays inside the workspace. */
        if (layer == CORE_LAYER_PROJECT && !stk_path_beneath(canon, l->workspace_canon)) {
                perr_origin(l, &o, "the project file resolves outside the workspace; expected a regular file "
                            "inside the workspace");
                return 0;
        }
        /* .stockade.yaml is a protected name: while a run in this workspace
         * is under bwrap, fs_bwrap holds an empty directory there as the
         * mount point that keeps the command from creating it.  A directory
         * is no policy, and says nothing a repository could not say by
         * shipping no file: absent. */
        if (layer == CORE_LAYER_PROJECT && may_be_absent && is_directory(canon))
                return 1;
        r = read_policy_file(canon, ptrust_layer(layer) ? &(struct read_trust) { l, &o } : NULL, &text, &len);
        if (r < 0)
                return read_failed(l, &o, r);
        dir = dir_of(path);
        if (!dir)
                return -ENOMEM;
        f = (struct pfile) { .l = l, .name = o.file, .canon = canon, .dir = dir, .layer = layer };
        return load_text(l, NULL, NULL, &f, text, len);
}

static int load_embedded(struct ploader *l, const struct pfile *parent, const struct pnode *from,
                         const struct core_embedded_file *e, enum core_layer layer)
{
        _cleanup_free_ char *name = NULL;
        struct pfile f = { .l = l, .layer = layer, .depth = parent ? parent->depth + 1 : 0, .parent = parent };

        if (asprintf(&name, BUILTIN_PREFIX "%s", e->name) < 0)
                return -ENOMEM;
        f.name = f.canon = pintern(l->p, name);
        if (!f.name)
                return -ENOMEM;
        return load_text(l, parent, from, &f, e->text, e->len);
}

/* ---- include ------------------------------------------------------------- */

static void chain_string(const struct pfile *f, const char *last, char *buf, size_t size)
{
        const struct pfile *v[CORE_INCLUDE_MAX_DEPTH + 2];
        size_t n = 0, used = 0;

        for (; f && n < ELEMENTSOF(v); f = f->parent)
                v[n++] = f;
        buf[0] = '\0';
        while (n-- > 0 && used < size) {
                int w = snprintf(buf + used, size - used, "%s -> ", v[n]->name);
                if (w < 0)
                        return;
                used += (size_t) w;
        }
        if (used < size)
                (void) snprintf(buf + used, size - used, "%s", last); /* truncation only shortens the message */
}

static bool include_allowed(struct pfile *f, const struct pnode *item, const char *canon, const char *display)
{
        char chain[2048];

        for (const struct pfile *g = f; g; g = g->parent)
                if (streq(g->canon, canon)) {
                        chain_string(f, display, chain, sizeof(chain));
                        perr(f, item, "include cycle: %s; expected includes that never lead back to a file "
                             "being read", chain);
                        return false;
                }
        if (f->depth + 1 > CORE_INCLUDE_MAX_DEPTH) {
                chain_string(f, display, chain, sizeof(chain));
                perr(f, item, "includes nested deeper than %d: %s; expected at most %d levels",
                     CORE_INCLUDE_MAX_DEPTH, chain, CORE_INCLUDE_MAX_DEPTH);
                return false;
        }
        return true;
}

static void embedded_names(char *buf, size_t size)
{
        size_t used = 0;

        buf[0] = '\0';
        for (const struct core_embedded_file *e = core_embedded_profiles; e->name && used < size; e++) {
                int w = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", e->name);
                if (w < 0)
                        return;
                used += (size_t) w;
        }
}

/* Built-in files include each other by bare name from the embedded table. */
static int include_embedded(struct pfile *f, const struct pnode *item)
{
        const char *name = item->scalar;
        const struct core_embedded_file *e = strchr(name, '/') ? NULL : embedded_find(name);
        _cleanup_free_ char *canon = NULL;
        char names[512];

        if (!e) {
                embedded_names(names, sizeof(names));
                perr(f, item, "include \"%s\" is not a built-in file; expected one of %s", name, names);
                return 0;
        }
        if (asprintf(&canon, BUILTIN_PREFIX "%s", name) < 0)
                return -ENOMEM;
        if (!include_allowed(f, item, canon, canon))
                return 0;
        return load_embedded(f->l, f, item, e, f->layer);
}

static int include_read(struct pfile *f, const struct pnode *item, const char *path, const char *display,
                        const char *canon)
{
        _cleanup_free_ char *dir = dir_of(path), *text = NULL;
        struct pfile g = { .l = f->l, .canon = canon, .dir = dir, .layer = f->layer,
                           .depth = f->depth + 1, .parent = f };
        size_t len = 0;
        int r;

        g.name = pintern(f->l->p, display);
        if (!dir || !g.name)
                return -ENOMEM;
        struct core_origin o = porigin(f, item);
        r = read_policy_file(canon, ptrust_layer(f->layer) ? &(struct read_trust) { f->l, &o } : NULL, &text, &len);
        if (r == -ENOMEM || r == -E_REFUSED_REPORTED)
                return r == -ENOMEM ? r : 0;
        if (r < 0) {
                perr(f, item, "cannot read include \"%s\": %s; expected a readable regular file",
                     item->scalar, read_error(r));
                return 0;
        }
        return load_text(f->l, f, item, &g, text, len);
}

/* An untrusted repository must not make us read, and quote in a
 * diagnostic, a file of the user's.  The check runs on the canonical form
 * of the longest existing prefix, before realpath(): otherwise "No such
 * file" against "outside" would tell the repository which of the user's
 * files exist. */
static bool project_include_inside(struct pfile *f, const struct pnode *item, const char *path, int *reterr)
{
        _cleanup_free_ char *canon = NULL;
        int r = path[0] == '/' ? path_canonicalize(path, &canon) : -EINVAL;

        *reterr = r == -ENOMEM ? r : 0;
        if (r == -ENOMEM)
                return false;
        if (r < 0 || !stk_path_beneath(canon, f->l->workspace_canon)) {
                perr(f, item, "include \"%s\" is outside the workspace; expected a file inside the workspace "
                     "(a project file may not make stockade read other files)", item->scalar);
                return false;
        }
        return true;
}

static int include_file(struct pfile *f, const struct pnode *item)
{
        const char *name = item->scalar;
        _cleanup_free_ char *path = path_join(f->dir, name), *pdir = dir_of(f->name);
        _cleanup_free_ char *display = NULL, *canon = NULL;
        int r = 0;

        if (!path || !pdir)
                return -ENOMEM;
        display = path_join(pdir, name);
        if (!display)
                return -ENOMEM;
        if (f->layer == CORE_LAYER_PROJECT && !project_include_inside(f, item, path, &r))
                return r;
        canon = realpath(path, NULL);
        if (!canon) {
                if (errno == ENOMEM)
                        return -ENOMEM;
                perr(f, item, "cannot read include \"%s\" (%s): %s; expected an existing file, relative to "
                     "the including file's directory", name, path, strerror(errno));
                return 0;
        }
        /* Again on the real path: a symlink inside may point outside. */
        if (f->layer == CORE_LAYER_PROJECT && !project_include_inside(f, item, canon, &r))
                return r;
        if (!include_allowed(f, item, canon, display))
                return 0;
        return include_read(f, item, path, display, canon);
}

int pload_include(struct pfile *f, const struct pnode *item)
{
        if (f->l->p->n_files >= POLICY_MAX_FILES) {
                perr(f, item, "more than %d policy files; expected fewer includes", POLICY_MAX_FILES);
                return 0;
        }
        return f->dir ? include_file(f, item) : include_embedded(f, item);
}

/* ---- layers -------------------------------------------------------------- */

/* 1 when there is no built-in file of that name. */
static int load_builtin(struct ploader *l, const char *file)
{
        const struct core_embedded_file *e;

        if (l->src->builtin_dir) {
                _cleanup_free_ char *path = path_join(l->src->builtin_dir, file);
                if (!path)
                        return -ENOMEM;
                return load_path(l, path, CORE_LAYER_BUILTIN, true);
        }
        e = embedded_find(file);
        return e ? load_embedded(l, NULL, NULL, e, CORE_LAYER_BUILTIN) : 1;
}

static void unknown_profile(struct ploader *l, const char *profile, const char *file)
{
        const struct core_policy_sources *src = l->src;
        char names[512];

        embedded_names(names, sizeof(names));
        core_diag(NULL, "unknown profile \"%s\": no %s%s%s and no %s%s%s; expected a built-in profile (%s) "
                  "or a system file", profile,
                  src->builtin_dir ? src->builtin_dir : BUILTIN_PREFIX, src->builtin_dir ? "/" : "", file,
                  src->system_dir ? src->system_dir : "system directory", src->system_dir ? "/" : "",
                  src->system_dir ? file : "", names);
        l->n_errors++;
}

/* Drop-ins only: hidden files (editor backups) and other suffixes are
 * skipped, as in /etc/sudoers.d. */
static int is_dropin(const struct dirent *d)
{
        size_t n = strlen(d->d_name);

        return d->d_name[0] != '.' && n > 5 && streq(d->d_name + n - 5, ".yaml");
}

/* Byte order, not the locale's: the merge order must not depend on LANG. */
static int cmp_names(const struct dirent **a, const struct dirent **b)
{
        return strcmp((*a)->d_name, (*b)->d_name);
}

/* Every .yaml file of the system directory SUBDIR, in byte order. */
static int load_dropins(struct ploader *l, const char *subdir)
{
        _cleanup_free_ char *dir = NULL;
        struct dirent **ents = NULL;
        int n, r = 0;

        if (asprintf(&dir, "%s/%s", l->src->system_dir, subdir) < 0)
                return -ENOMEM;
        n = scandir(dir, &ents, is_dropin, cmp_names);
        if (n < 0) {
                struct core_origin o = { .file = pintern(l->p, dir), .layer = CORE_LAYER_SYSTEM };
                if (errno == ENOENT || errno == ENOTDIR)
                        return 0;
                return o.file ? read_failed(l, &o, -errno) : -ENOMEM;
        }
        for (int i = 0; i < n; i++) {
                if (r >= 0) {
                        _cleanup_free_ char *path = path_join(dir, ents[i]->d_name);
                        r = path ? load_path(l, path, CORE_LAYER_SYSTEM, false) : -ENOMEM;
                }
                free(ents[i]);
        }
        free(ents);
        return r < 0 ? r : 0;
}

/* The system layer over the built-in one: PROFILE.yaml, then site.d/ (the
 * site's rules for every profile; full-access is the profile that asks
 * for none), then PROFILE.d/, the most specific last. */
static int load_system(struct ploader *l, const char *profile, const char *file)
{
        _cleanup_free_ char *sys = path_join(l->src->system_dir, file), *own = NULL;
        int r, found;

        if (!sys || asprintf(&own, "%s.d", profile) < 0)
                return -ENOMEM;
        found = load_path(l, sys, CORE_LAYER_SYSTEM, true);
        if (found < 0)
                return found;
        r = streq(profile, "full-access") ? 0 : load_dropins(l, "site.d");
        if (r >= 0)
                r = load_dropins(l, own);
        return r < 0 ? r : found;
}

/* The floor: `files` alone, or the built-in profile with the system
 * layer over it.  A system PROFILE.yaml layers, it does not replace: the
 * shipped profiles are embedded, never copied to the system directory,
 * so a site file holds only the site's changes and a fixed built-in
 * still reaches a site that has one (stockade.yaml(5) LAYERS). */
static int load_base(struct ploader *l, const char *profile)
{
        const struct core_policy_sources *src = l->src;
        _cleanup_free_ char *file = NULL;
        int builtin, sys = 1;

        for (size_t i = 0; src->files && src->files[i]; i++) {
                int r = load_path(l, src->files[i], CORE_LAYER_SYSTEM, false);
                if (r < 0)
                        return r;
        }
        if (src->files)
                return 0;
        if (asprintf(&file, "%s.yaml", profile) < 0)
                return -ENOMEM;
        builtin = load_builtin(l, file);
        if (builtin < 0)
                return builtin;
        if (src->system_dir)
                sys = load_system(l, profile, file);
        if (sys < 0)
                return sys;
        if (builtin == 1 && sys == 1)
                unknown_profile(l, profile, file);
        return 0;
}

static int set_cli(struct core_policy *p, char **dst, struct core_origin *dst_origin, const char *value)
{
        struct core_origin o = { .file = pintern(p, CLI_ORIGIN), .layer = CORE_LAYER_CLI };
        char *s = strdup(value);

        if (!s || !o.file) {
                free(s);
                return -ENOMEM;
        }
        free(*dst);
        *dst = s;
        *dst_origin = o;
        return 0;
}

/* The CLI layer's document (core_policy_sources.cli_text). */
static int load_cli_text(struct ploader *l, const char *text)
{
        struct pfile f = { .l = l, .layer = CORE_LAYER_CLI };

        f.name = f.canon = pintern(l->p, CLI_ORIGIN);
        if (!f.name)
                return -ENOMEM;
        return load_text(l, NULL, NULL, &f, text, strlen(text));
}

static int load_layers(struct ploader *l, const char *profile)
{
        const struct core_policy_sources *src = l->src;
        struct core_policy *p = l->p;
        _cleanup_free_ char *user = NULL, *project = NULL;
        int r = 0;

        r = load_base(l, profile);
        if (r >= 0 && src->user_dir) {
                if (asprintf(&user, "%s/%s.yaml", src->user_dir, profile) < 0)
                        return -ENOMEM;
                r = load_path(l, user, CORE_LAYER_USER, true);
        }
        if (r >= 0 && !src->no_project && l->workspace_canon) {
                project = path_join(src->workspace, ".stockade.yaml");
                r = project ? load_path(l, project, CORE_LAYER_PROJECT, true) : -ENOMEM;
        }
        if (r >= 0 && src->cli_text)
                r = load_cli_text(l, src->cli_text);
        /* The command line is the user at the keyboard: it wins over files. */
        if (r >= 0 && src->workspace_from_cli && src->workspace)
                r = set_cli(p, &p->workspace, &p->workspace_origin, src->workspace);
        if (r >= 0 && src->cli_audit)
                r = set_cli(p, &p->audit, &p->audit_origin, src->cli_audit);
        return r < 0 ? r : 0;
}

/* Profile names become file names: nothing that could climb a directory. */
static bool profile_name_ok(const char *s)
{
        size_t n = strlen(s);

        if (n == 0 || n > 64)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
                        return false;
        return true;
}

static void policy_freep(struct core_policy **p)
{
        core_policy_free(*p);
}

/* What a setting is when no file says: the tight side of each choice, so
 * a file that forgets a key gets the safe behaviour. */
static int policy_new(const char *profile, struct core_policy **ret)
{
        _cleanup_(policy_freep) struct core_policy *p = calloc(1, sizeof(*p));
        struct core_origin o = { .layer = CORE_LAYER_BUILTIN };

        if (!p)
                return -ENOMEM;
        p->profile = strdup(profile);
        o.file = pintern(p, DEFAULT_ORIGIN);
        if (!p->profile || !o.file)
                return -ENOMEM;
        p->private_tmp = 1;
        p->git = CORE_GIT_WHOLE;
        p->protect_defaults = 1;
        p->network = STK_NET_OFF;
        p->approval = STK_APPROVAL_ON_REQUEST; /* an ASK with no approval module is a DENY anyway */
        p->approval_tty = CORE_APPROVAL_TTY_AUTO;
        p->approval_mcp = 1;
        p->approval_ask_limit = CORE_APPROVAL_ASK_LIMIT_DEFAULT;
        p->approval_exec_origin = p->approval_webhook_origin = o;
        p->approval_tty_origin = p->approval_ask_limit_origin = p->approval_mcp_origin = o;
        p->workspace_origin = p->private_tmp_origin = p->git_origin = p->protect_defaults_origin = o;
        p->network_origin = p->approval_origin = p->audit_origin = p->caches_origin = o;
        p->overridable_user_origin = p->overridable_project_origin = o;
        *ret = TAKE_PTR(p);
        return 0;
}

int core_policy_load(const struct core_policy_sources *src, struct core_policy **ret)
{
        const char *profile = src->profile ? src->profile : "default";
        struct ploader l = { .src = src };
        int r;

        if (!profile_name_ok(profile)) {
                core_diag(NULL, "bad profile name \"%s\"; expected letters, digits, _ and -", profile);
                return -EINVAL;
        }
        if (src->workspace) {
                r = path_canonicalize(src->workspace, &l.workspace_canon);
                if (r < 0) {
                        core_diag(NULL, "workspace \"%s\": %s; expected an absolute path", src->workspace,
                                  strerror(-r));
                        return r == -ENOMEM ? r : -EINVAL;
                }
        }
        r = policy_new(profile, &l.p);
        if (r >= 0)
                r = load_layers(&l, profile);
        /* ${VARS} and paths only once the files are sound: expanding a
         * policy that already failed would mostly repeat its errors. */
        path_memo_begin();
        if (r >= 0 && !l.n_errors && !l.io_error)
                r = pexpand_policy(&l);
        path_memo_end();
        if (r >= 0 && !l.n_errors && !l.io_error)
                r = pcheck_workspace(&l);
        if (r >= 0 && !l.n_errors && !l.io_error)
                r = pcheck_enforced(&l);
        if (r >= 0 && (l.n_errors || l.io_error))
                r = l.io_error ? l.io_error : -EINVAL;
        free(l.workspace_canon);
        if (r < 0) {
                core_policy_free(l.p);
                return r;
        }
        l.p->session = src->session;
        *ret = l.p;
        return 0;
}
