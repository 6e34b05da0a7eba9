/* SPDX-License-Identifier: MIT */
/*
 * Module loading is part of the trust boundary (docs/ARCHITECTURE.md, The run path):
 * bare names only, trusted directories only, files and directories writable
 * by nobody but their owner (root or us), dlopen of the very file that was
 * checked (os_dlopen_fd: through /proc/self/fd on Linux, no path race),
 * then magic, ABI and name.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "common/stk_trust.h"
#include "core.h"
#include "os/os.h"
#include "util/util.h"

#ifndef O_PATH
#define O_PATH 0 /* not Linux: the directory is opened for reading, which a trusted one allows */
#endif

/* The smallest descriptor the core accepts: everything ABI 1.0 defined. */
#define MODULE_MIN_SIZE (offsetof(struct stk_module, approve) + sizeof(void *))

static bool name_is_bare(const char *name)
{
        size_t n = strlen(name);

        if (n == 0 || n > 64)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!(islower((unsigned char) name[i]) || isdigit((unsigned char) name[i]) || name[i] == '_'))
                        return false;
        return true;
}

int core_module_dirs(bool trust_build_tree, const char *dirs[static 3])
{
        static char modules[PATH_MAX], test_modules[PATH_MAX];
        const char *tree = trust_build_tree ? core_build_tree() : NULL;
        int n = 0;

        if (tree) {
                snprintf(modules, sizeof(modules), "%s/modules", tree);
                snprintf(test_modules, sizeof(test_modules), "%s/t/modules", tree);
                dirs[n++] = modules;
                dirs[n++] = test_modules;
        }
        dirs[n++] = STK_MODULEDIR;
        return n;
}

/* The one trust rule (lib/common/stk_trust.h), with the owner and mode in
 * the message. */
static int check_owner_mode(const struct stat *st, const char *what, const char *path)
{
        const char *why;
        int r = stk_trust_stat(st, geteuid(), 0, &why);

        if (r < 0)
                core_log(STK_LOG_ERROR, "refusing module %s %s: %s (uid %u, mode %04o; root or uid %u may own it)",
                         what, path, why, (unsigned) st->st_uid, (unsigned) (st->st_mode & 07777),
                         (unsigned) geteuid());
        return r;
}

/* Open dir/name.SOEXT and check it and its directory; -ENOENT if absent. */
static int open_checked(const char *dir, const char *name, char **ret_path)
{
        _cleanup_close_ int dfd = -1, fd = -1;
        _cleanup_free_ char *file = NULL, *path = NULL;
        struct stat st;
        int r;

        dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        if (asprintf(&file, "%s.%s", name, STK_SOEXT) < 0 || asprintf(&path, "%s/%s", dir, file) < 0)
                return -ENOMEM;
        fd = openat(dfd, file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return errno == ELOOP ? (core_log(STK_LOG_ERROR, "refusing module %s: a symlink", path), -EPERM) : -errno;
        if (fstat(dfd, &st) < 0)
                return -errno;
        r = check_owner_mode(&st, "directory", dir);
        if (r < 0)
                return r;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode)) {
                core_log(STK_LOG_ERROR, "refusing module %s: not a regular file", path);
                return -EPERM;
        }
        r = check_owner_mode(&st, "file", path);
        if (r < 0)
                return r;
        *ret_path = TAKE_PTR(path);
        return TAKE_FD(fd);
}

static int check_descriptor(const struct stk_module *d, const char *name, const char *path)
{
        if (d->magic != STK_MODULE_MAGIC) {
                core_log(STK_LOG_ERROR, "refusing module %s: bad magic 0x%08x (not a stockade module)", path, d->magic);
                return -EPROTO;
        }
        if (d->abi_major != STK_ABI_MAJOR) {
                core_log(STK_LOG_ERROR, "refusing module %s: built for ABI %u, this stockade speaks ABI %u",
                         path, d->abi_major, STK_ABI_MAJOR);
                return -EPROTO;
        }
        if (d->size < MODULE_MIN_SIZE) {
                core_log(STK_LOG_ERROR, "refusing module %s: descriptor of %u bytes, at least %zu expected",
                         path, d->size, (size_t) MODULE_MIN_SIZE);
                return -EPROTO;
        }
        if (!d->name || !streq(d->name, name)) {
                core_log(STK_LOG_ERROR, "refusing module %s: it calls itself \"%s\", not \"%s\"",
                         path, d->name ? d->name : "(null)", name);
                return -EPROTO;
        }
        return 0;
}

int core_module_load_fd(const char *name, int fd, struct core_module *ret)
{
        void *dl;
        const struct stk_module *desc;
        int r;

        dl = os_dlopen_fd(fd, ret->path);
        if (!dl) {
                const char *why = dlerror();
                core_log(STK_LOG_ERROR, "cannot load module %s: %s", ret->path ? ret->path : name,
                         why ? why : strerror(errno));
                return -ENOEXEC;
        }
        desc = dlsym(dl, "stockade_module");
        if (!desc) {
                core_log(STK_LOG_ERROR, "refusing module %s: no stockade_module symbol", ret->path ? ret->path : name);
                (void) dlclose(dl); /* refusing anyway */
                return -EPROTO;
        }
        r = check_descriptor(desc, name, ret->path ? ret->path : name);
        if (r < 0) {
                (void) dlclose(dl);
                return r;
        }
        ret->dl = dl;
        ret->desc = desc;
        return 0;
}

int core_module_load(const char *name, bool trust_build_tree, struct core_module *ret)
{
        const char *dirs[3];
        int n = core_module_dirs(trust_build_tree, dirs);
        struct core_module m = { .fd = -1 };
        int r;

        if (!name_is_bare(name)) {
                core_log(STK_LOG_ERROR, "refusing module \"%s\": names are bare identifiers [a-z0-9_]", name);
                return -EINVAL;
        }
        for (int i = 0; i < n; i++) {
                m.fd = open_checked(dirs[i], name, &m.path);
                if (m.fd != -ENOENT)
                        break;
        }
        if (m.fd < 0) {
                if (m.fd == -ENOENT)
                        core_log(STK_LOG_ERROR, "module %s not found in %s%s%s%s%s", name, dirs[0],
                                 n > 1 ? ", " : "", n > 1 ? dirs[1] : "", n > 2 ? ", " : "", n > 2 ? dirs[2] : "");
                return m.fd;
        }
        m.name = strdup(name);
        if (!m.name) {
                core_module_unload(&m);
                return -ENOMEM;
        }
        r = core_module_load_fd(name, m.fd, &m);
        if (r < 0) {
                core_module_unload(&m);
                return r;
        }
        *ret = m;
        return 0;
}

void core_module_unload(struct core_module *m)
{
        if (m->inited && m->desc->fini)
                m->desc->fini(m->data);
        m->inited = false;
        if (m->dl)
                (void) dlclose(m->dl); /* nothing to do about a failing dlclose at exit */
        closep(&m->fd);
        free(m->name);
        free(m->path);
        *m = (struct core_module) { .fd = -1 };
}
