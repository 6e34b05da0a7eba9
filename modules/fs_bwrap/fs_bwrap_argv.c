/* SPDX-License-Identifier: MIT */
/*
 * fs_bwrap_argv.c - the bubblewrap command line, as a pure function of the
 * settings, the binds other modules planned and the kind of each path
 * (asked through conf->kind).  Nothing here touches the filesystem, so
 * t/test_fs_bwrap.c checks every mount and its order without running bwrap.
 *
 * bwrap applies its mount operations in argv order, each on top of the ones
 * before, so the order below is the security argument:
 *   1. `/` read-only (writable only when a writable root is `/` itself);
 *   2. a fresh /dev and a fresh, read-only /proc (or the host's /proc
 *      read-only, see host_proc);
 *   3. the private /tmp, BEFORE the writable roots: one of them may live in
 *      /tmp and must stay visible;
 *   4. writable roots, parents first, so a nested root is not covered;
 *   5. binds other modules asked for (a proxy's socket);
 *   6. read-only islands, after everything writable so they win over it;
 *   7. hidden paths last: hiding wins over everything.
 * Every path argument starts with '/', checked below, so none can be read
 * by bwrap as an option.
 */
#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#include "fs_bwrap_internal.h"

struct strv {
        char **v;
        size_t n, cap;
        int err; /* sticky: the first failure; later pushes do nothing */
};

static void push(struct strv *b, const char *s)
{
        if (b->err < 0)
                return;
        if (b->n + 2 > b->cap) {
                size_t cap = b->cap ? 2 * b->cap : 64;
                char **v = reallocarray(b->v, cap, sizeof(char *));
                if (!v) {
                        b->err = -ENOMEM;
                        return;
                }
                b->v = v;
                b->cap = cap;
        }
        b->v[b->n] = strdup(s);
        if (!b->v[b->n]) {
                b->err = -ENOMEM;
                return;
        }
        b->v[++b->n] = NULL;
}

/* emit(b, "--bind", src, dest, NULL): one bwrap operation. */
static void __attribute__((sentinel)) emit(struct strv *b, ...)
{
        va_list ap;

        va_start(ap, b);
        for (const char *s; (s = va_arg(ap, const char *));)
                push(b, s);
        va_end(ap);
}

char **fs_bwrap_strv_free(char **v)
{
        for (size_t i = 0; v && v[i]; i++)
                free(v[i]);
        free(v);
        return NULL;
}

void fs_bwrap_argv_done(struct fs_bwrap_argv *a)
{
        a->argv = fs_bwrap_strv_free(a->argv);
        a->mountpoints = fs_bwrap_strv_free(a->mountpoints);
}

/* path == root, or inside it */

static bool strictly_beneath(const char *path, const char *root)
{
        return stk_path_beneath(path, root) && !streq(path, root);
}

static unsigned depth(const char *p)
{
        unsigned d = 0;

        if (streq(p, "/"))
                return 0;
        for (; *p; p++)
                d += *p == '/';
        return d;
}


int fs_bwrap_check_args(const char *bwrap, const char *sha256, const char **ret_what)
{
        if (bwrap && !stk_path_valid(bwrap)) {
                *ret_what = "bwrap: must be an absolute, canonical path (it is never looked up in PATH)";
                return -EINVAL;
        }
        if (sha256) {
                size_t n = strlen(sha256);
                for (size_t i = 0; i < n; i++)
                        if (!isxdigit((unsigned char) sha256[i]))
                                n = 0;
                if (n != 64) {
                        *ret_what = "bwrap_sha256: must be 64 hexadecimal digits, as sha256sum prints them";
                        return -EINVAL;
                }
        }
        return 0;
}

/* The distinct entries of `list`, parents before children, otherwise in
 * the given order (insertion sort: lists are short, and it is stable). */
static int sorted(const char *const *list, const char ***ret, size_t *ret_n)
{
        size_t n = 0, k = 0;
        const char **v;

        while (list[n])
                n++;
        v = calloc(n + 1, sizeof(*v));
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                bool dup = false;
                for (size_t j = 0; j < k && !dup; j++)
                        dup = streq(v[j], list[i]);
                if (dup)
                        continue;
                size_t j = k++;
                for (; j > 0 && depth(v[j - 1]) > depth(list[i]); j--)
                        v[j] = v[j - 1];
                v[j] = list[i];
        }
        *ret = v;
        *ret_n = k;
        return 0;
}

struct build {
        const struct stk_settings *s;
        const struct fs_bwrap_conf *conf;
        struct strv argv, mnt;
        const char **wr; /* writable roots bound, parents first; "/" apart */
        size_t n_wr;
        bool root_rw;
};

static bool inside_any(const char *p, const char *const *list)
{
        for (; *list; list++)
                if (strictly_beneath(p, *list))
                        return true;
        return false;
}

/* The sandbox gets /dev (and /proc, and a private /tmp) fresh, not from the
 * host: a host path beneath one is not there, unless a writable root inside
 * that tree brings it back. */
static bool visible(const struct build *b, const char *p)
{
        const char *tops[3];
        size_t n = 0;

        tops[n++] = "/dev";
        if (!b->conf->host_proc)
                tops[n++] = "/proc";
        if (b->s->private_tmp)
                tops[n++] = "/tmp";
        for (size_t t = 0; t < n; t++) {
                if (!stk_path_beneath(p, tops[t]))
                        continue;
                for (size_t i = 0; i < b->n_wr; i++)
                        if (strictly_beneath(b->wr[i], tops[t]) && stk_path_beneath(p, b->wr[i]))
                                return true;
                return false;
        }
        return true;
}

/* Could the command create host path `p`: it lies inside a writable root. */
static bool creatable(const struct build *b, const char *p)
{
        if (!visible(b, p))
                return false;
        if (b->root_rw)
                return !streq(p, "/");
        for (size_t i = 0; i < b->n_wr; i++)
                if (strictly_beneath(p, b->wr[i]))
                        return true;
        return false;
}

static int check_inputs(const struct stk_settings *s, const struct stk_bind *binds, size_t n_binds,
                        const struct fs_bwrap_conf *c)
{
        const char *const *lists[] = { s->write, s->read_only, s->hide };

        if (!c->bwrap || !c->kind || !stk_path_valid(c->bwrap) || (c->chdir && !stk_path_valid(c->chdir)) ||
            !stk_path_valid(c->void_hidden) || !stk_path_valid(c->void_dir))
                return -EINVAL;
        for (size_t k = 0; k < 3; k++) {
                if (!lists[k])
                        return -EINVAL;
                for (const char *const *l = lists[k]; *l; l++)
                        if (!stk_path_valid(*l))
                                return -EINVAL;
        }
        for (size_t i = 0; i < n_binds; i++)
                if (!stk_path_valid(binds[i].source) ||
                    (binds[i].dest && !stk_path_valid(binds[i].dest)))
                        return -EINVAL;
        return 0;
}

static int collect_writable(struct build *b)
{
        const char **v;
        size_t n;
        int r = sorted(b->s->write, &v, &n);

        if (r < 0)
                return r;
        b->wr = v;
        for (size_t i = 0; i < n; i++) {
                int k = b->conf->kind(b->conf->userdata, v[i]);
                if (k < 0)
                        return k;
                if (k == FS_BWRAP_MISSING)
                        continue; /* nothing to write to, and --bind would fail */
                if (streq(v[i], "/"))
                        b->root_rw = true;
                else if (!(b->s->private_tmp && streq(v[i], "/tmp")))
                        v[b->n_wr++] = v[i]; /* /tmp itself: the private one replaces it */
        }
        return 0;
}

static void emit_head(struct build *b)
{
        emit(&b->argv, b->conf->bwrap,
             "--die-with-parent",     /* SIGKILL the command when bwrap's parent dies */
             "--new-session",         /* setsid(): no TIOCSTI into the user's terminal */
             "--unshare-user",        /* caps exist only in a namespace we own */
             "--disable-userns",      /* ...and the command can make no nested one (0.8.0) */
             "--unshare-pid",         /* no signal or ptrace of host processes */
             "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
             NULL);
        /* proxy mode too: the proxy module binds its socket in; nothing else goes out */
        if (b->s->network != STK_NET_ON)
                emit(&b->argv, "--unshare-net", NULL);
        /* As root, bwrap keeps every capability unless told otherwise. */
        emit(&b->argv, "--cap-drop", "ALL", NULL);
        /* Without it bwrap falls back to $HOME, silently, when the working
         * directory is not in the sandbox: the command would run elsewhere. */
        if (b->conf->chdir)
                emit(&b->argv, "--chdir", b->conf->chdir, NULL);
}

static void emit_filesystem(struct build *b)
{
        emit(&b->argv, b->root_rw ? "--bind" : "--ro-bind", "/", "/", NULL);
        emit(&b->argv, "--dev", "/dev", NULL);
        /* host_proc: the nested-container fallback, decided in choose_proc()
         * (fs_bwrap.c).  The bind is read-only and the user namespace keeps
         * the host's /proc/PID/{root,cwd,fd,mem} out of reach (ptrace
         * checks across user namespaces fail); what is lost is hiding the
         * host's process list. */
        if (b->conf->host_proc)
                emit(&b->argv, "--ro-bind", "/proc", "/proc", NULL);
        else
                /* Read-only as a whole.  Run by root, bwrap maps the
                 * sandbox's uid 0 to host uid 0, and procfs grants writes
                 * to root-owned entries on that uid alone, capabilities
                 * dropped or not: /proc/sys/kernel/core_pattern, then a
                 * crash, ran a helper as host root outside every namespace
                 * (issue 21).  bwrap covers sys, sysrq-trigger, irq and bus
                 * only when access(W_OK) on them succeeds, and it does not
                 * on /proc/sys (0555); a read-only mount covers the whole
                 * class, /proc/fs, /proc/acpi and the kernel's next entry
                 * included.  The Landlock stack refuses /proc writes too, so
                 * both stacks agree: /proc/self/fd/N still opens the file
                 * it names, on that file's own mount. */
                emit(&b->argv, "--proc", "/proc", "--remount-ro", "/proc", NULL);
        if (b->s->private_tmp)
                emit(&b->argv, "--tmpfs", "/tmp", NULL);
        for (size_t i = 0; i < b->n_wr; i++)
                emit(&b->argv, "--bind", b->wr[i], b->wr[i], NULL);
}

static void emit_binds(struct build *b, const struct stk_bind *binds, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                const char *src = binds[i].source;
                const char *dst = binds[i].dest ? binds[i].dest : src;
                bool rw = binds[i].flags & STK_BIND_RW, try = binds[i].flags & STK_BIND_TRY;

                emit(&b->argv, rw ? (try ? "--bind-try" : "--bind") : (try ? "--ro-bind-try" : "--ro-bind"),
                     src, dst, NULL);
        }
}

/* A missing path inside a writable root gets an empty read-only directory
 * bound on it, so the command cannot create it (EROFS inside, EEXIST or
 * EISDIR for a file of that name).  A directory, not an empty file: git
 * never lists an empty directory, so `git status` stays clean and
 * `git add -A` cannot commit the masks, in the sandbox and on the host.
 * bwrap needs the mount point to exist: the caller makes it first. */
static void mask_missing(struct build *b, const char *p)
{
        bool dup = false;

        for (size_t i = 0; i < b->mnt.n && !dup; i++)
                dup = streq(b->mnt.v[i], p);
        if (!dup)
                push(&b->mnt, p);
        emit(&b->argv, "--ro-bind", b->conf->void_dir, p, NULL);
}

/* The writable root `p` lies in (the deepest one), "/" when everything is
 * writable, NULL when none. */
static const char *root_of(const struct build *b, const char *p)
{
        const char *best = b->root_rw ? "/" : NULL;

        for (size_t i = 0; i < b->n_wr; i++)
                if (strictly_beneath(p, b->wr[i]) && (!best || strlen(b->wr[i]) > strlen(best)))
                        best = b->wr[i];
        return best;
}

/* An island deeper than its writable root's top level (.git/hooks under
 * `git: surfaces`, a nested repository's .git) is a mount, but the
 * directories above it are not: the command could rename one of them away
 * (`mv .git .git.orig`) and put a directory of its own making in its place,
 * with hooks the user's next git command runs.  A directory bound on
 * itself is a mount point, and rename(2) of one fails (EBUSY), so each
 * directory between the writable root and an island is bound on itself,
 * read-write as before, parents first, before the islands (emit_pins). */
static void pin_ancestors(struct build *b, const char *const *islands, size_t n)
{
        struct strv pins = { 0 };

        for (size_t i = 0; i < n; i++) {
                const char *root = root_of(b, islands[i]);
                size_t start;

                if (!root)
                        continue;
                start = streq(root, "/") ? 1 : strlen(root) + 1;
                for (const char *slash = strchr(islands[i] + start, '/'); slash; slash = strchr(slash + 1, '/')) {
                        char *a = strndup(islands[i], (size_t) (slash - islands[i]));
                        bool dup = !a;
                        for (size_t k = 0; a && k < pins.n && !dup; k++)
                                dup = streq(pins.v[k], a);
                        if (!a)
                                pins.err = -ENOMEM;
                        else if (!dup && !inside_any(a, b->s->hide) && !inside_any(a, b->s->read_only) &&
                                 b->conf->kind(b->conf->userdata, a) == FS_BWRAP_DIR &&
                                 (!b->conf->unlinked || b->conf->unlinked(b->conf->userdata, a)))
                                push(&pins, a);
                        else if (!dup) {
                                /* a symlink or no directory on the way: nothing
                                 * below it is pinned, it is not ours to bind (found
                                 * by review: .git/modules -> ../../home) */
                                free(a);
                                break;
                        }
                        free(a);
                }
        }
        if (pins.err < 0)
                b->argv.err = b->argv.err < 0 ? b->argv.err : pins.err;
        else {
                const char **v = NULL;
                size_t k = 0;
                if (pins.v && sorted((const char *const *) pins.v, &v, &k) < 0)
                        b->argv.err = -ENOMEM;
                for (size_t i = 0; i < k; i++)
                        emit(&b->argv, "--bind", v[i], v[i], NULL);
                free(v);
        }
        fs_bwrap_strv_free(pins.v);
}

/* Right after the writable roots, before other modules' binds: a pin is a
 * recursive bind from the host, and would cover a read-only bind made
 * below it earlier (found by review). */
static int emit_pins(struct build *b)
{
        const char *const *ro = b->s->read_only, *const *hide = b->s->hide;
        const char **v, **mine;
        size_t n, k = 0;
        int r = sorted(ro, &v, &n);

        if (r < 0)
                return r;
        mine = calloc(n + 1, sizeof(*mine));
        if (!mine) {
                free(v);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++)
                if (!inside_any(v[i], hide) && !inside_any(v[i], ro) && visible(b, v[i]) && creatable(b, v[i]))
                        mine[k++] = v[i];
        pin_ancestors(b, mine, k);
        free(mine);
        free(v);
        return b->argv.err < 0 ? b->argv.err : 0;
}

static int emit_islands(struct build *b)
{
        const char *const *ro = b->s->read_only, *const *hide = b->s->hide;
        const char **v;
        size_t n;
        int r = sorted(ro, &v, &n);

        for (size_t i = 0; r >= 0 && i < n; i++) {
                /* inside another island or a hidden path: already covered */
                if (inside_any(v[i], hide) || inside_any(v[i], ro) || !visible(b, v[i]))
                        continue;
                int k = b->conf->kind(b->conf->userdata, v[i]);
                if (k < 0)
                        r = k;
                else if (k != FS_BWRAP_MISSING)
                        emit(&b->argv, "--ro-bind", v[i], v[i], NULL);
                else if (creatable(b, v[i]))
                        mask_missing(b, v[i]);
                /* else missing where nothing can create it: nothing to do */
        }
        free(v);
        return r;
}

static int emit_hides(struct build *b)
{
        const char *const *ro = b->s->read_only, *const *hide = b->s->hide;
        const char **v;
        size_t n;
        int r = sorted(hide, &v, &n);

        for (size_t i = 0; r >= 0 && i < n; i++) {
                if (inside_any(v[i], hide) || !visible(b, v[i]))
                        continue;
                int k = b->conf->kind(b->conf->userdata, v[i]);
                if (k < 0)
                        r = k;
                else if (k == FS_BWRAP_DIR)
                        /* An empty directory nobody may list or enter (caps are
                         * dropped, so not even uid 0), read-only so nobody can
                         * chmod it back. */
                        emit(&b->argv, "--perms", "0000", "--tmpfs", v[i], "--remount-ro", v[i], NULL);
                else if (k == FS_BWRAP_OTHER)
                        /* Not merely empty: reading fails with EACCES. */
                        emit(&b->argv, "--ro-bind", b->conf->void_hidden, v[i], NULL);
                else if (creatable(b, v[i]) && !inside_any(v[i], ro))
                        /* Missing credentials the command could plant (~/.npmrc
                         * pointing at another registry): same mask. */
                        mask_missing(b, v[i]);
        }
        free(v);
        return r;
}

int fs_bwrap_build(const struct stk_settings *s, const struct stk_bind *binds, size_t n_binds,
                   const struct fs_bwrap_conf *conf, struct fs_bwrap_argv *ret)
{
        struct build b = { .s = s, .conf = conf };
        int r = check_inputs(s, binds, n_binds, conf);

        if (r >= 0)
                r = collect_writable(&b);
        if (r >= 0) {
                emit_head(&b);
                emit_filesystem(&b);
                r = emit_pins(&b);
                emit_binds(&b, binds, n_binds);
                if (r >= 0)
                        r = emit_islands(&b);
        }
        if (r >= 0)
                r = emit_hides(&b);
        emit(&b.argv, "--", NULL);
        if (r >= 0)
                r = b.argv.err < 0 ? b.argv.err : b.mnt.err;
        if (r >= 0 && !b.mnt.v) {
                b.mnt.v = calloc(1, sizeof(char *));
                r = b.mnt.v ? 0 : -ENOMEM;
        }
        free(b.wr);
        if (r < 0) {
                fs_bwrap_strv_free(b.argv.v);
                fs_bwrap_strv_free(b.mnt.v);
                return r;
        }
        *ret = (struct fs_bwrap_argv) { .argv = b.argv.v, .mountpoints = b.mnt.v };
        return 0;
}
