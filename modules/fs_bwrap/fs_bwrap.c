/* SPDX-License-Identifier: MIT */
/*
 * fs_bwrap - run the command inside bubblewrap (stockade-fs_bwrap(8)).
 *
 * pre-exec phase: check the bwrap binary (and its pin) through an open fd,
 * check that this machine allows user namespaces, build the bwrap argv from
 * the settings (fs_bwrap_argv.c, a pure function), make the mount points it
 * needs (fs_bwrap_mounts.c), then hand the core the argv prefix and the fd
 * to execute.  fini removes the mount points.
 */
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "fs_bwrap_internal.h"

/* The core's table of host functions: one per process, given to init. */
static const struct stk_host *host;

struct fs_bwrap {
        bool wrapped;                /* a line of ours wraps this run already */
        bool probed;                 /* ns holds the machine's answer */
        struct fs_bwrap_ns_probe ns;
        char *version_of;            /* the bwrap path `version` was read from */
        int version;
        struct fs_bwrap_mounts mounts;
};

/* One stack line's arguments (init runs once for all lines). */
struct line {
        const char *bwrap;
        const char *pin; /* NULL: not pinned */
        bool proc_fallback;
};

static const struct stk_arg_spec args[] = {
        { "bwrap", STK_ARG_STRING, STK_ARG_TRUSTED,
          "absolute path of the bwrap binary, never searched in PATH (default " FS_BWRAP_DEFAULT ")" },
        { "bwrap_sha256", STK_ARG_STRING, STK_ARG_TRUSTED,
          "refuse to run bwrap unless its SHA-256 is this (64 hex digits)" },
        { "proc_fallback", STK_ARG_BOOL, STK_ARG_TRUSTED,
          "where a fresh /proc is refused (nested containers), bind the host's read-only (default true)" },
        { NULL, 0, 0, NULL },
};

static int init(struct stk_ctx *ctx, const struct stk_host *h, void **ret_data)
{
        struct fs_bwrap *d;

        /* We call up to plan_exec_fd, all in minor 0; check anyway. */
        if (!STK_HAS(h, stk_host, plan_exec_fd))
                return -ENOTSUP;
        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        host = h;
        *ret_data = d;
        return 0;
}

static void fini(void *data)
{
        struct fs_bwrap *d = data;

        if (!d)
                return;
        fs_bwrap_mounts_cleanup(&d->mounts);
        free(d->version_of);
        free(d);
}

static int load_line(struct stk_ctx *ctx, struct line *ret)
{
        const char *bwrap = host->arg_string(ctx, "bwrap"), *what = NULL;
        struct line l = {
                .bwrap = bwrap ? bwrap : FS_BWRAP_DEFAULT,
                .pin = host->arg_string(ctx, "bwrap_sha256"),
                .proc_fallback = host->arg_bool(ctx, "proc_fallback", 1),
        };
        int r = fs_bwrap_check_args(l.bwrap, l.pin, &what);

        if (r < 0) {
                host->log(ctx, STK_LOG_ERROR, "%s", what);
                return r;
        }
        *ret = l;
        return 0;
}

static int check_settings(struct stk_ctx *ctx, const struct stk_settings *s)
{
        if (!s || !STK_HAS(s, stk_settings, network) ||
            !s->write || !s->read_only || !s->hide) {
                host->log(ctx, STK_LOG_ERROR, "the core gave no usable settings");
                return -EINVAL;
        }
        return 0;
}

/* Open the binary and check the pin on the fd that will be executed: the
 * file checked is the file run, whatever happens to the path meanwhile. */
static int open_bwrap(struct stk_ctx *ctx, const struct line *l, int *ret_fd)
{
        _cleanup_close_ int fd = -1;
        const char *why = NULL;
        char hex[65];
        int r = fs_bwrap_open_binary(l->bwrap, &fd, &why);

        if (r < 0) {
                host->log(ctx, STK_LOG_ERROR, "bwrap %s: %s (%s); install bubblewrap or set the bwrap argument",
                          l->bwrap, why, strerror(-r));
                return r;
        }
        if (l->pin) {
                r = fs_bwrap_sha256_fd(fd, hex);
                if (r < 0) {
                        host->log(ctx, STK_LOG_ERROR, "hashing %s: %s", l->bwrap, strerror(-r));
                        return r;
                }
                if (strcasecmp(hex, l->pin) != 0) {
                        host->log(ctx, STK_LOG_ERROR, "%s has SHA-256 %s but bwrap_sha256 pins %s: not running it",
                                  l->bwrap, hex, l->pin);
                        return -EKEYREJECTED;
                }
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static int check_version(struct stk_ctx *ctx, struct fs_bwrap *d, const struct line *l, int fd)
{
        int r;

        if (!d->version_of || !streq(d->version_of, l->bwrap)) {
                r = fs_bwrap_version(fd, &d->version);
                if (r < 0) {
                        host->log(ctx, STK_LOG_ERROR, "running %s --version: %s", l->bwrap, strerror(-r));
                        return r;
                }
                free(d->version_of);
                d->version_of = strdup(l->bwrap);
                if (!d->version_of)
                        return -ENOMEM;
        }
        if (d->version < FS_BWRAP_MIN_VERSION) {
                host->log(ctx, STK_LOG_ERROR, "%s is bubblewrap %d.%d.%d; --disable-userns needs 0.8.0",
                          l->bwrap, d->version / 10000, d->version / 100 % 100, d->version % 100);
                return -ENOTSUP;
        }
        return 0;
}

static int check_namespaces(struct stk_ctx *ctx, struct fs_bwrap *d)
{
        char buf[256];
        int r;

        if (!d->probed) {
                r = fs_bwrap_probe_ns(&d->ns);
                if (r < 0) {
                        host->log(ctx, STK_LOG_ERROR, "probing user namespaces: %s", strerror(-r));
                        return r;
                }
                d->probed = true;
        }
        if (d->ns.stage == FS_BWRAP_NS_USER || d->ns.stage == FS_BWRAP_NS_CAPS) {
                host->log(ctx, STK_LOG_ERROR, "user namespaces are blocked: %s",
                          fs_bwrap_ns_hint(&d->ns, buf, sizeof(buf)));
                return d->ns.err > 0 ? -d->ns.err : -EPERM;
        }
        return 0;
}

/*
 * The nested-container /proc problem, all of it.
 *
 * `bwrap --proc /proc` mounts a fresh procfs for the new pid namespace.
 * Inside a container whose runtime masked parts of /proc (Docker and Podman
 * bind /dev/null over /proc/kcore, /proc/keys, ... and make /proc/sys
 * read-only), the kernel refuses that mount to a user namespace with EPERM,
 * since a fresh procfs would show what the masks hide (fs/namespace.c,
 * mount_too_revealing(); https://github.com/containers/bubblewrap/issues/284).
 * check_namespaces() found out by trying the same mount in a child.
 *
 * The fallback binds the host's /proc read-only.  What still holds: the pid
 * namespace (no signal, no ptrace by pid); the user namespace, in which
 * ptrace_may_access() fails on every host process (cap_ptrace_access_check:
 * another user namespace, no CAP_SYS_PTRACE there), so /proc/PID/root, cwd,
 * fd, environ and mem of host processes stay closed; the read-only bind
 * (/proc/sys).  What is lost: the command sees the host's process list and
 * command lines (/proc/PID/cmdline is world-readable), and /proc/self is
 * its pid as the host numbers it.  So the fallback is taken with a warning
 * naming the cause, unless the policy says proc_fallback: false; then the
 * line fails and a `sufficient` line can hand over to another module.
 */
static int choose_proc(struct stk_ctx *ctx, const struct fs_bwrap *d, const struct line *l, bool warn,
                       bool *ret_host_proc)
{
        char buf[256];

        *ret_host_proc = false;
        if (d->ns.stage != FS_BWRAP_NS_PROC)
                return 0;
        if (!l->proc_fallback) {
                host->log(ctx, STK_LOG_ERROR, "%s, and proc_fallback is false",
                          fs_bwrap_ns_hint(&d->ns, buf, sizeof(buf)));
                return d->ns.err > 0 ? -d->ns.err : -EPERM;
        }
        if (warn)
                host->log(ctx, STK_LOG_WARNING, "%s: binding the host's /proc read-only instead; the command "
                          "can see the host's processes, not signal or trace them",
                          fs_bwrap_ns_hint(&d->ns, buf, sizeof(buf)));
        *ret_host_proc = true;
        return 0;
}

static uint32_t covers_for(const struct stk_settings *s, bool host_proc)
{
        uint32_t c = STK_COVER_WRITE | STK_COVER_READ_ONLY | STK_COVER_HIDE | STK_COVER_PRIVATE_TMP |
                     STK_COVER_PROCESS | STK_COVER_CAPS | STK_COVER_IPC | /* --unshare-ipc */
                     STK_COVER_METADATA; /* read-only binds: EROFS for a mode or an xattr too */

        /* --unshare-pid and a /proc of that namespace: no host process is
         * there to read.  The host's /proc (choose_proc) shows them all. */
        if (!host_proc)
                c |= STK_COVER_PROC_OTHERS;

        /* Abstract unix sockets belong to the network namespace.  Pathname
         * unix sockets do not (connect() ignores read-only mounts): no
         * STK_COVER_NET_UNIX. */
        if (s->network != STK_NET_ON)
                c |= STK_COVER_NET_TCP | STK_COVER_NET_OTHER | STK_COVER_NET_ABSTRACT;
        return c;
}

/* Use what an earlier run on this machine learnt, or remember what we did. */
static void cached_probes(struct fs_bwrap *d, const struct line *l, int fd, bool store)
{
        char key[1024];

        if (fs_bwrap_cache_key(fd, key, sizeof(key)) < 0)
                return;
        if (store) {
                if (d->probed && d->version_of)
                        fs_bwrap_cache_write(key, d->version, &d->ns);
                return;
        }
        if (d->probed || !fs_bwrap_cache_read(key, &d->version, &d->ns))
                return;
        free(d->version_of);
        d->version_of = strdup(l->bwrap);
        d->probed = d->version_of != NULL;
}

/* The binary opened (and its pin checked), its version and what the
 * namespaces allow here known: from the cache or by trying. */
static int ready_bwrap(struct stk_ctx *ctx, struct fs_bwrap *d, const struct line *l, int *ret_fd)
{
        _cleanup_close_ int fd = -1;
        bool fresh = !d->probed;
        int r = open_bwrap(ctx, l, &fd);

        if (r < 0)
                return r;
        cached_probes(d, l, fd, false);
        fresh = fresh && !d->probed;
        r = check_version(ctx, d, l, fd);
        if (r >= 0)
                r = check_namespaces(ctx, d);
        if (fresh)
                cached_probes(d, l, fd, true);
        if (r >= 0)
                *ret_fd = TAKE_FD(fd);
        return r;
}

static int probe(struct stk_ctx *ctx, uint32_t *ret_covers)
{
        struct fs_bwrap *d = host->data(ctx);
        const struct stk_settings *s = host->settings(ctx);
        _cleanup_close_ int fd = -1;
        bool host_proc;
        struct line l;
        int r = check_settings(ctx, s);

        if (r >= 0)
                r = load_line(ctx, &l);
        if (r >= 0)
                r = ready_bwrap(ctx, d, &l, &fd);
        if (r >= 0)
                r = choose_proc(ctx, d, &l, false, &host_proc);
        if (r < 0)
                return r;
        *ret_covers &= covers_for(s, host_proc);
        return 0;
}

/* conf->kind for the real filesystem; the userdata is the line's ctx. */
static int path_kind(void *userdata, const char *path)
{
        struct stat st;

        if (stat(path, &st) == 0)
                return S_ISDIR(st.st_mode) ? FS_BWRAP_DIR : FS_BWRAP_OTHER;
        /* EACCES: a parent we cannot search, nor can the command. */
        if (errno == ENOENT || errno == ENOTDIR || errno == EACCES)
                return FS_BWRAP_MISSING;
        host->log(userdata, STK_LOG_ERROR, "stat %s: %s", path, strerror(errno));
        return -errno;
}

/* conf->unlinked: the path is its own real path. */
static bool path_unlinked(void *userdata, const char *path)
{
        char real[PATH_MAX];

        (void) userdata;
        return realpath(path, real) && streq(real, path);
}

/* Where the void files go: the user's runtime dir, else /tmp. */
static const char *void_base(void)
{
        const char *x = getenv("XDG_RUNTIME_DIR");
        struct stat st;

        if (x && stk_path_valid(x) && stat(x, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid())
                return x;
        return "/tmp";
}

/* Lock the directories another run may have made as mount points, so its
 * fini leaves them in place while this run relies on them. */
static int hold_existing(struct stk_ctx *ctx, struct fs_bwrap *d, const struct stk_settings *s)
{
        const char *const *lists[] = { s->read_only, s->hide };
        int r;

        for (size_t k = 0; k < 2; k++)
                for (const char *const *p = lists[k]; *p; p++) {
                        r = fs_bwrap_mountpoint_hold(&d->mounts, *p);
                        if (r < 0) {
                                host->log(ctx, STK_LOG_ERROR, "locking %s: %s", *p, strerror(-r));
                                return r;
                        }
                }
        return 0;
}

static int make_mountpoints(struct stk_ctx *ctx, struct fs_bwrap *d, char *const *paths)
{
        for (; *paths; paths++) {
                int r = fs_bwrap_mountpoint_create(&d->mounts, *paths);
                if (r < 0) {
                        host->log(ctx, STK_LOG_ERROR, "creating the mount point %s (to keep it from the command): %s",
                                  *paths, strerror(-r));
                        return r;
                }
        }
        return 0;
}

static int plan(struct stk_ctx *ctx, struct fs_bwrap *d, const struct stk_settings *s,
                const struct line *l, bool host_proc, struct fs_bwrap_argv *ret)
{
        size_t n_binds = 0;
        const struct stk_bind *binds = host->plan_binds(ctx, &n_binds);
        _cleanup_free_ char *cwd = getcwd(NULL, 0);
        int r;

        if (!cwd || !stk_path_valid(cwd)) {
                host->log(ctx, STK_LOG_ERROR, "the working directory is gone (getcwd: %s)",
                          cwd ? "not a canonical path" : strerror(errno));
                return cwd ? -EINVAL : -errno;
        }
        r = fs_bwrap_void_create(&d->mounts, void_base());
        if (r < 0) {
                host->log(ctx, STK_LOG_ERROR, "creating the void files in %s: %s", void_base(), strerror(-r));
                return r;
        }
        r = hold_existing(ctx, d, s);
        if (r < 0)
                return r;
        const struct fs_bwrap_conf conf = {
                .bwrap = l->bwrap, .chdir = cwd, .host_proc = host_proc,
                .void_hidden = d->mounts.void_hidden, .void_dir = d->mounts.void_dir,
                .kind = path_kind, .unlinked = path_unlinked, .userdata = ctx,
        };
        r = fs_bwrap_build(s, binds, binds ? n_binds : 0, &conf, ret);
        if (r == -EINVAL)
                host->log(ctx, STK_LOG_ERROR, "a path in the settings or in a planned bind is not absolute and canonical");
        if (r < 0)
                return r; /* other errors: path_kind said which path */
        return make_mountpoints(ctx, d, ret->mountpoints);
}

/* One argument as a shell would need it quoted, appended to f. */
static void put_quoted(FILE *f, const char *a)
{
        static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+-@%";

        if (a[0] && !a[strspn(a, plain)]) {
                fputs(a, f);
                return;
        }
        fputc('\'', f);
        for (; *a; a++)
                if (*a == '\'')
                        fputs("'\\''", f);
                else
                        fputc(*a, f);
        fputc('\'', f);
}

/* The argv at DEBUG.  The host truncates a message at 1 KiB and the argv of
 * the default profile is longer, so it goes in pieces cut between
 * arguments, which pasted together are the command line. */
static void log_argv(struct stk_ctx *ctx, char *const *argv)
{
        enum { PIECE = 800 };
        _cleanup_free_ char *text = NULL;
        size_t len = 0, start = 0, cut = 0;
        FILE *f = open_memstream(&text, &len);
        unsigned piece = 0;

        if (!f)
                return; /* only a debug line is lost */
        for (size_t i = 0; argv[i]; i++) {
                fputs(i ? " " : "", f);
                put_quoted(f, argv[i]);
        }
        if (fclose(f) != 0)
                return;
        while (start < len) {
                /* the last space before PIECE bytes on, or the end */
                for (cut = start; cut < len && cut - start < PIECE;) {
                        const char *sp = strchr(text + cut + 1, ' ');
                        size_t next = sp ? (size_t) (sp - text) : len;
                        if (next - start > PIECE && cut > start)
                                break;
                        cut = next;
                }
                host->log(ctx, STK_LOG_DEBUG, "bwrap argv%s %.*s", piece++ ? " (cont.)" : ":",
                          (int) (cut - start), text + start);
                start = cut + (cut < len);
        }
}

static int hand_over(struct stk_ctx *ctx, int fd, char *const *argv)
{
        int r;

        log_argv(ctx, argv);
        r = host->plan_exec_fd(ctx, fd);
        if (r < 0) {
                host->log(ctx, STK_LOG_ERROR, "plan_exec_fd: %s", strerror(-r));
                return r;
        }
        r = host->plan_wrap(ctx, (const char *const *) argv);
        if (r < 0)
                host->log(ctx, STK_LOG_ERROR, "plan_wrap: %s", strerror(-r));
        return r;
}

/* Two lines of ours both wrapping would run bwrap inside bwrap, which the
 * outer one's --disable-userns forbids: say so rather than fail obscurely. */
static int check_not_wrapped(struct stk_ctx *ctx, const struct fs_bwrap *d)
{
        if (!d->wrapped)
                return 0;
        host->log(ctx, STK_LOG_ERROR, "another fs_bwrap line already wraps this run; "
                  "stack a second one only as the fallback of a `sufficient` line");
        return -EEXIST;
}

static int pre_exec(struct stk_ctx *ctx)
{
        struct fs_bwrap *d = host->data(ctx);
        const struct stk_settings *s = host->settings(ctx);
        struct fs_bwrap_argv a = { 0 };
        _cleanup_close_ int fd = -1;
        bool host_proc = false;
        struct line l;
        int r = check_settings(ctx, s);

        if (r >= 0)
                r = check_not_wrapped(ctx, d);
        if (r >= 0)
                r = load_line(ctx, &l);
        if (r >= 0)
                r = ready_bwrap(ctx, d, &l, &fd);
        if (r >= 0)
                r = choose_proc(ctx, d, &l, true, &host_proc);
        if (r >= 0)
                r = plan(ctx, d, s, &l, host_proc, &a);
        if (r >= 0)
                r = hand_over(ctx, fd, a.argv);
        if (r >= 0)
                d->wrapped = true;
        fs_bwrap_argv_done(&a);
        return r;
}

/* ABI 1.1: what pre_exec would run here, made on nothing. */
static int explain(struct stk_ctx *ctx, char **ret_text)
{
        struct fs_bwrap *d = host->data(ctx);
        const struct stk_settings *s = host->settings(ctx);
        size_t n_binds = 0;
        const struct stk_bind *binds = host->plan_binds(ctx, &n_binds);
        _cleanup_free_ char *cwd = getcwd(NULL, 0), *vh = NULL, *vd = NULL;
        struct line l;
        int r = load_line(ctx, &l);

        if (r < 0)
                return r;
        if (asprintf(&vh, "%s/stockade-fs_bwrap.XXXXXX/hidden", void_base()) < 0 ||
            asprintf(&vd, "%s/stockade-fs_bwrap.XXXXXX/empty", void_base()) < 0)
                return -ENOMEM;
        const struct fs_bwrap_conf conf = {
                .bwrap = l.bwrap, .chdir = cwd && stk_path_valid(cwd) ? cwd : NULL,
                .host_proc = d && d->probed && d->ns.stage == FS_BWRAP_NS_PROC,
                .void_hidden = vh, .void_dir = vd, .kind = path_kind, .unlinked = path_unlinked, .userdata = ctx,
        };
        return fs_bwrap_explain_text(s, binds, binds ? n_binds : 0, &conf, ret_text);
}

const struct stk_module stockade_module = {
        STK_MODULE_HEADER("fs_bwrap"),
        .summary = "run the command in bubblewrap: read-only root, writable roots, islands, hidden paths, namespaces",
        .args = args,
        .covers = STK_COVER_WRITE | STK_COVER_READ_ONLY | STK_COVER_HIDE | STK_COVER_PRIVATE_TMP |
                  STK_COVER_NET_TCP | STK_COVER_NET_OTHER | STK_COVER_NET_ABSTRACT |
                  STK_COVER_PROCESS | STK_COVER_CAPS | STK_COVER_IPC | STK_COVER_METADATA | STK_COVER_PROC_OTHERS,
        .init = init,
        .fini = fini,
        .probe = probe,
        .explain = explain,
        .pre_exec = pre_exec,
        .doctor = fs_bwrap_doctor,
};
