/* SPDX-License-Identifier: MIT */
/*
 * approval_webhook_curl.c - libcurl, opened when a line first needs it.
 * Every shipped profile carries an approval_webhook line, which passes
 * until approval.webhook is set (issue 13 §5): linked at build time,
 * libcurl and what it pulls in (TLS, HTTP/2, IDN, ...) would be loaded by
 * every run, about 8 ms here, for nothing.  So the module links nothing of
 * it, and a configured line opens the library by its soname once, with
 * every function it calls looked up then: a missing one fails the line
 * (a policy error at init), never a call later.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "approval_webhook_internal.h"

#ifdef __APPLE__
#define CURL_SONAME "libcurl.4.dylib"
#else
#define CURL_SONAME "libcurl.so.4"
#endif

struct awh_curl awh_curl;

static void *handle;
static char load_error[256];

/* Each slot of struct awh_curl and the name it is looked up by. */
#define SLOT(field, name) { offsetof(struct awh_curl, field), name }
static const struct { size_t offset; const char *name; } slots[] = {
        SLOT(global_init, "curl_global_init"),         SLOT(global_cleanup, "curl_global_cleanup"),
        SLOT(easy_init, "curl_easy_init"),             SLOT(easy_setopt, "curl_easy_setopt"),
        SLOT(easy_perform, "curl_easy_perform"),       SLOT(easy_getinfo, "curl_easy_getinfo"),
        SLOT(easy_cleanup, "curl_easy_cleanup"),       SLOT(easy_strerror, "curl_easy_strerror"),
        SLOT(slist_append, "curl_slist_append"),       SLOT(slist_free_all, "curl_slist_free_all"),
        SLOT(url, "curl_url"),                         SLOT(url_cleanup, "curl_url_cleanup"),
        SLOT(url_get, "curl_url_get"),                 SLOT(url_set, "curl_url_set"),
        SLOT(free, "curl_free"),
};
#undef SLOT

int awh_curl_load(const char **ret_why)
{
        struct awh_curl c = { 0 };

        if (handle)
                return 0;
        void *h = dlopen(CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                snprintf(load_error, sizeof(load_error), "cannot load %s: %s", CURL_SONAME, dlerror());
                *ret_why = load_error;
                return -ENOENT;
        }
        for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++) {
                void *sym = dlsym(h, slots[i].name);
                if (!sym) {
                        snprintf(load_error, sizeof(load_error), "%s has no %s", CURL_SONAME, slots[i].name);
                        *ret_why = load_error;
                        (void) dlclose(h); /* nothing of it was used */
                        return -ENOENT;
                }
                /* POSIX: a data pointer from dlsym converts to a function pointer. */
                memcpy((char *) &c + slots[i].offset, &sym, sizeof(sym));
        }
        awh_curl = c;
        handle = h;
        return 0;
}
