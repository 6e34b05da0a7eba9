/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "stk_strv.h"
#include "stk_util.h"

size_t strv_length(char *const *v)
{
        size_t n = 0;

        while (v && v[n])
                n++;
        return n;
}

char **strv_free(char **v)
{
        for (size_t i = 0; v && v[i]; i++)
                free(v[i]);
        free(v);
        return NULL;
}

int strv_push_take(char ***v, char *s)
{
        size_t n = strv_length(*v);
        char **nv;

        if (!s)
                return -ENOMEM;
        nv = realloc(*v, (n + 2) * sizeof(char *));
        if (!nv) {
                free(s);
                return -ENOMEM;
        }
        nv[n] = s;
        nv[n + 1] = NULL;
        *v = nv;
        return 0;
}

int strv_push(char ***v, const char *s)
{
        return strv_push_take(v, strdup(s));
}

char **strv_copy(const char *const *v)
{
        char **r = calloc(1, sizeof(char *));

        for (size_t i = 0; r && v && v[i]; i++)
                if (strv_push(&r, v[i]) < 0)
                        return strv_free(r);
        return r;
}

bool strv_contains(const char *const *v, const char *s)
{
        for (size_t i = 0; v && v[i]; i++)
                if (streq(v[i], s))
                        return true;
        return false;
}
