/* SPDX-License-Identifier: MIT */
/*
 * `caches:` (stockade.yaml(5), issue 15): the tools' caches (npm, pip, go,
 * cargo, maven, gradle, yarn, pnpm, ...) are read-only in the sandbox, like
 * the rest of HOME, so `npm install` and `pip install` failed.  Writing the
 * user's real caches would let a command poison what the user later
 * installs outside the sandbox, so each run gets a set of writable
 * directories of the sandbox's own instead, kept between runs:
 *
 *   $XDG_CACHE_HOME/stockade/sandbox-caches/<set>/<tool>
 *
 * <set> is one per workspace by default (a cache poisoned by one
 * repository must not end up in another project's build, which the user
 * then runs on the host), or "shared" when the policy says so.  The set is
 * added to the writable roots (so every stack, fs_bwrap and fs_landlock
 * alike, makes it writable at its own path) and each tool is pointed at its
 * directory through its environment variable.  Not a bind at the tool's
 * path: the command may leave a symlink in its cache, and a bind made on a
 * later run would follow it to wherever it points, writable; the writable
 * root followed through a symlink stays read-only (EROFS, Landlock's
 * EACCES) beyond it.  The host's caches are never written.
 *
 * What the set holds is the command's: nothing in it is read by stockade
 * as authority.  What a set belongs to is written beside it, in the
 * directory above, which the command cannot write.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "common/stk_path.h"
#include "core.h"
#include "util/util.h"

/* How each tool is pointed at its directory: the variable's value is
 * `prefix` and the directory; `append` adds that to what it holds. */
struct cache_tool {
        const char *dir;       /* beneath the set */
        const char *env;
        const char *prefix;
        bool append;
        const char *host_path; /* what it replaces, for the docs and `caches list` */
};

static const struct cache_tool tools[] = {
        { "npm", "npm_config_cache", "", false, "~/.npm" },
        { "pip", "PIP_CACHE_DIR", "", false, "~/.cache/pip" },
        { "uv", "UV_CACHE_DIR", "", false, "~/.cache/uv" },
        { "go-build", "GOCACHE", "", false, "~/.cache/go-build" },
        { "go-mod", "GOMODCACHE", "", false, "~/go/pkg/mod" },
        /* CARGO_HOME holds the registry and git checkouts; ~/.cargo/bin
         * stays on PATH as the user's PATH names it. */
        { "cargo", "CARGO_HOME", "", false, "~/.cargo/registry, ~/.cargo/git" },
        { "maven", "MAVEN_OPTS", "-Dmaven.repo.local=", true, "~/.m2/repository" },
        { "gradle", "GRADLE_USER_HOME", "", false, "~/.gradle" },
        { "yarn", "YARN_CACHE_FOLDER", "", false, "~/.cache/yarn" },
        { "pnpm", "npm_config_store_dir", "", false, "~/.local/share/pnpm/store" },
        { "deno", "DENO_DIR", "", false, "~/.cache/deno" },
        { "composer", "COMPOSER_CACHE_DIR", "", false, "~/.cache/composer" },
        { "ccache", "CCACHE_DIR", "", false, "~/.cache/ccache" },
        /* Last: every other tool that keeps its cache where XDG says. */
        { "xdg", "XDG_CACHE_HOME", "", false, "~/.cache" },
};

int core_caches_base(char *buf, size_t size)
{
        return stk_path_stockade_cache(buf, size, "/sandbox-caches");
}

/* FNV-1a: a stable name for a workspace path (not a secret: it only keeps
 * two workspaces' sets apart). */
static uint64_t fnv1a(const char *s)
{
        uint64_t h = 0xcbf29ce484222325ULL;

        for (; *s; s++)
                h = (h ^ (unsigned char) *s) * 0x100000001b3ULL;
        return h;
}

int core_caches_set_name(const char *workspace, bool shared, char *buf, size_t size)
{
        const char *base = strrchr(workspace, '/');
        char safe[33];
        size_t j = 0;
        int n;

        if (shared)
                n = snprintf(buf, size, "shared");
        else {
                /* The workspace's last name, for a reader of `caches list`. */
                for (base = base ? base + 1 : workspace; *base && j + 1 < sizeof(safe); base++)
                        safe[j++] = (*base >= 'a' && *base <= 'z') || (*base >= 'A' && *base <= 'Z') ||
                                    (*base >= '0' && *base <= '9') || *base == '-' || *base == '_' ? *base : '_';
                safe[j] = '\0';
                n = snprintf(buf, size, "ws-%s-%016llx", safe, (unsigned long long) fnv1a(workspace));
        }
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

/* mkdir -p of an absolute path, each directory 0700 (ours alone). */
static int make_dirs(const char *path)
{
        char buf[PATH_MAX];
        size_t n = strlen(path);

        if (n >= sizeof(buf) || path[0] != '/')
                return -EINVAL;
        memcpy(buf, path, n + 1);
        for (char *p = buf + 1; ; p++) {
                if (*p == '/' || *p == '\0') {
                        char c = *p;
                        *p = '\0';
                        if (mkdir(buf, 0700) < 0 && errno != EEXIST)
                                return -errno;
                        *p = c;
                        if (!c)
                                break;
                }
        }
        return 0;
}

/* `dfd`/`name` is a directory of ours, made if missing; a symlink or
 * anything else there is an error.  Returns its fd, or -errno. */
static int own_dir_at(int dfd, const char *name)
{
        struct stat st;
        int fd;

        if (mkdirat(dfd, name, 0700) < 0 && errno != EEXIST)
                return -errno;
        fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return errno == ELOOP ? -ENOTDIR : -errno;
        if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
                close(fd);
                return -EPERM; /* another user's: not a directory we made */
        }
        return fd;
}

/* Beside the set, where the command cannot write: which workspace it is
 * for (for `stockade caches list`). */
static void note_owner(int base_fd, const char *set, const char *workspace)
{
        char name[128];
        int fd;

        if (snprintf(name, sizeof(name), "%s.workspace", set) >= (int) sizeof(name))
                return;
        fd = openat(base_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return; /* only `caches list` reads it */
        (void) !write(fd, workspace, strlen(workspace));
        close(fd);
}

static int open_set(const struct core_policy *p, char *set_path, size_t size)
{
        char base[PATH_MAX], set[128];
        int base_fd, set_fd, r = core_caches_base(base, sizeof(base));

        if (r >= 0)
                r = core_caches_set_name(p->workspace, p->caches == CORE_CACHES_SHARED, set, sizeof(set));
        if (r >= 0)
                r = make_dirs(base);
        if (r < 0)
                return r;
        base_fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (base_fd < 0)
                return -errno;
        set_fd = own_dir_at(base_fd, set);
        if (set_fd >= 0 && p->caches != CORE_CACHES_SHARED)
                note_owner(base_fd, set, p->workspace);
        close(base_fd);
        if (set_fd >= 0 && snprintf(set_path, size, "%s/%s", base, set) >= (int) size) {
                close(set_fd);
                return -ENAMETOOLONG;
        }
        return set_fd;
}

/* Settings time: the set made and added to the writable roots. */
int core_caches_settings(const struct core_policy *p, struct core_settings *s)
{
        char path[PATH_MAX] = "";
        char *canon = NULL;
        int fd, r;

        if (p->caches == CORE_CACHES_OFF || !p->workspace)
                return 0;
        fd = open_set(p, path, sizeof(path));
        if (fd < 0) {
                core_log(STK_LOG_ERROR, "caches (%s:%u:%u): the sandbox's cache directory %s: %s", p->caches_origin.file,
                         p->caches_origin.line, p->caches_origin.column, path[0] ? path : "(no HOME)",
                         fd == -ENOTDIR ? "not a directory of ours (a symlink?); `stockade caches clear` makes it anew"
                                        : strerror(-fd));
                return fd;
        }
        for (size_t i = 0; i < ELEMENTSOF(tools); i++) {
                int t = own_dir_at(fd, tools[i].dir);
                if (t < 0) {
                        core_log(STK_LOG_ERROR, "caches: %s/%s: %s", path, tools[i].dir,
                                 t == -ENOTDIR ? "not a directory (a symlink the command left?); "
                                                 "`stockade caches clear` makes it anew" : strerror(-t));
                        close(fd);
                        return t;
                }
                close(t);
        }
        close(fd);
        r = path_canonicalize(path, &canon);
        if (r < 0)
                return r;
        if (strv_push(&s->write, canon) < 0 || !(s->cache_set = strdup(canon))) {
                free(canon);
                return -ENOMEM;
        }
        free(canon);
        return 0;
}

static const char *plan_getenv(const struct core_plan *plan, const char *name)
{
        size_t n = strlen(name);

        for (char **e = plan->envp; e && *e; e++)
                if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
                        return *e + n + 1;
        return NULL;
}

/* Pre-exec, before the stack's lines: every tool's variable points into
 * the set (the user's own value of it named the host's cache). */
int core_caches_plan(struct core_run *run)
{
        const char *set = run->settings.cache_set;

        for (size_t i = 0; set && i < ELEMENTSOF(tools); i++) {
                char dir[PATH_MAX], value[PATH_MAX + 64];
                const char *old = tools[i].append ? plan_getenv(&run->plan, tools[i].env) : NULL;
                int n = snprintf(dir, sizeof(dir), "%s/%s", set, tools[i].dir), r;

                if (n < 0 || (size_t) n >= sizeof(dir))
                        return -ENAMETOOLONG;
                n = snprintf(value, sizeof(value), "%s%s%s%s", old && *old ? old : "", old && *old ? " " : "",
                             tools[i].prefix, dir);
                if (n < 0 || (size_t) n >= sizeof(value))
                        return -ENAMETOOLONG;
                r = core_plan_setenv(&run->plan, tools[i].env, value);
                if (r < 0)
                        return r;
        }
        return 0;
}

size_t core_caches_n_tools(void)
{
        return ELEMENTSOF(tools);
}

void core_caches_tool(size_t i, const char **ret_dir, const char **ret_env, const char **ret_host_path)
{
        *ret_dir = tools[i].dir;
        *ret_env = tools[i].env;
        *ret_host_path = tools[i].host_path;
}
