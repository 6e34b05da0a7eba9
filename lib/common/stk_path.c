/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stk_path.h"

bool stk_path_valid(const char *p)
{
        if (!p || p[0] != '/')
                return false;
        if (strcmp(p, "/") == 0)
                return true;
        for (const char *c = p; c; c = strchr(c + 1, '/')) {
                const char *next = strchr(c + 1, '/');
                size_t len = next ? (size_t) (next - c - 1) : strlen(c + 1);

                if (len == 0 || (len == 1 && c[1] == '.') || (len == 2 && c[1] == '.' && c[2] == '.'))
                        return false;
        }
        return true;
}

bool stk_path_beneath(const char *path, const char *root)
{
        size_t n = strlen(root);

        if (strcmp(root, "/") == 0)
                return path[0] == '/';
        while (n > 1 && root[n - 1] == '/')
                n--;
        return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

bool stk_path_strictly_beneath(const char *path, const char *root)
{
        return stk_path_beneath(path, root) && strcmp(path, root) != 0;
}

char *stk_path_join(const char *dir, const char *name)
{
        size_t d = strcmp(dir, "/") == 0 ? 0 : strlen(dir), n = strlen(name);
        char *p = malloc(d + 1 + n + 1);

        if (!p)
                return NULL;
        memcpy(p, dir, d);
        p[d] = '/';
        memcpy(p + d + 1, name, n + 1);
        return p;
}

int stk_path_stockade_cache(char *buf, size_t size, const char *tail)
{
        const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        int n;

        if (xdg && xdg[0] == '/')
                n = snprintf(buf, size, "%s/stockade%s", xdg, tail);
        else if (home && home[0] == '/')
                n = snprintf(buf, size, "%s/.cache/stockade%s", home, tail);
        else
                return -ENOENT;
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}
