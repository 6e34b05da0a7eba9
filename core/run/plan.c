/* SPDX-License-Identifier: MIT */
/* The plan: what the supervisor will execute, with which env, binds and fds. */
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>

#include "core.h"
#include "util/util.h"

int core_plan_init(struct core_plan *p, char *const *argv, char *const *envp)
{
        *p = (struct core_plan) { .exec_fd = -1 };
        p->argv = strv_copy((const char *const *) argv);
        p->envp = strv_copy((const char *const *) envp);
        p->prefix = calloc(1, sizeof(char *));
        if (!p->argv || !p->envp || !p->prefix) {
                core_plan_done(p);
                return -ENOMEM;
        }
        return 0;
}

void core_plan_done(struct core_plan *p)
{
        strv_free(p->argv);
        strv_free(p->prefix);
        strv_free(p->envp);
        for (size_t i = 0; i < p->n_binds; i++) {
                free((char *) p->binds[i].source);
                free((char *) p->binds[i].dest);
        }
        free(p->binds);
        for (size_t i = 0; i < p->n_pass_fds; i++)
                closep(&p->pass_fds[i]);
        closep(&p->exec_fd);
        *p = (struct core_plan) { .exec_fd = -1 };
}

static bool env_name_valid(const char *name)
{
        return name && *name && !strchr(name, '=');
}

/* "NAME=..." is an entry of name (n bytes) */
static bool env_is(const char *entry, const char *name, size_t n)
{
        return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

/* The plan's value of name, or NULL. */
const char *core_plan_getenv(const struct core_plan *p, const char *name)
{
        size_t n = strlen(name);

        for (size_t i = 0; p->envp && p->envp[i]; i++)
                if (env_is(p->envp[i], name, n))
                        return p->envp[i] + n + 1;
        return NULL;
}

/* value NULL removes the variable. */
int core_plan_setenv(struct core_plan *p, const char *name, const char *value)
{
        size_t n = strlen(name), j = 0;
        char *entry = NULL;

        if (!env_name_valid(name))
                return -EINVAL;
        for (size_t i = 0; p->envp[i]; i++) {
                if (env_is(p->envp[i], name, n))
                        free(p->envp[i]);
                else
                        p->envp[j++] = p->envp[i];
        }
        p->envp[j] = NULL;
        if (!value)
                return 0;
        if (asprintf(&entry, "%s=%s", name, value) < 0)
                return -ENOMEM;
        return strv_push_take(&p->envp, entry);
}

/* -ENOMEM, 0 no, 1 yes */
static int name_matches(const char *entry, const struct core_list *patterns)
{
        _cleanup_free_ char *name = strndup(entry, strcspn(entry, "="));

        if (!name)
                return -ENOMEM;
        for (size_t i = 0; i < patterns->n; i++)
                /* Case-folded: a github_token is the same secret. */
                if (fnmatch(patterns->items[i].value, name, FNM_CASEFOLD) == 0)
                        return 1;
        return 0;
}

/* Drop the variables the policy keeps from the command (credentials in the
 * environment: tokens, agent sockets); allow names the exceptions. */
int core_plan_filter_env(struct core_plan *p, const struct core_list *deny, const struct core_list *allow)
{
        size_t j = 0;
        int r = 0;

        for (size_t i = 0; p->envp[i]; i++) {
                int d = name_matches(p->envp[i], deny), a = d > 0 ? name_matches(p->envp[i], allow) : 0;
                if (d < 0 || a < 0)
                        r = -ENOMEM; /* fail closed: the run stops */
                if (d != 0 && a <= 0)
                        free(p->envp[i]);
                else
                        p->envp[j++] = p->envp[i];
        }
        p->envp[j] = NULL;
        return r;
}

int core_plan_bind(struct core_plan *p, const char *source, const char *dest, unsigned flags)
{
        struct stk_bind *nb;

        if (!source || source[0] != '/' || (dest && dest[0] != '/'))
                return -EINVAL;
        nb = realloc(p->binds, (p->n_binds + 1) * sizeof(*nb));
        if (!nb)
                return -ENOMEM;
        p->binds = nb;
        nb[p->n_binds] = (struct stk_bind) { strdup(source), strdup(dest ? dest : source), flags };
        if (!nb[p->n_binds].source || !nb[p->n_binds].dest) {
                free((char *) nb[p->n_binds].source);
                free((char *) nb[p->n_binds].dest);
                return -ENOMEM;
        }
        p->n_binds++;
        return 0;
}

/* The copy stays close-on-exec in the supervisor; the child clears the flag
 * on exactly these fds before exec (supervisor.c). */
int core_plan_pass_fd(struct core_plan *p, int fd)
{
        int nfd;

        if (p->n_pass_fds >= ELEMENTSOF(p->pass_fds))
                return -E2BIG;
        nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (nfd < 0)
                return -errno;
        p->pass_fds[p->n_pass_fds++] = nfd;
        return nfd;
}

/* prefix (wrappers) + inner (the in-sandbox helper, may be NULL) + argv */
int core_plan_final_argv(const struct core_plan *p, char *const *inner, char ***ret)
{
        char **v = calloc(1, sizeof(char *));
        char *const *parts[] = { p->prefix, inner, p->argv };

        if (!v)
                return -ENOMEM;
        for (size_t k = 0; k < ELEMENTSOF(parts); k++)
                for (size_t i = 0; parts[k] && parts[k][i]; i++)
                        if (strv_push(&v, parts[k][i]) < 0) {
                                strv_free(v);
                                return -ENOMEM;
                        }
        *ret = v;
        return 0;
}
