/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: folding repeated refusals and rate-limiting log lines.  Pure:
 * the caller gives the time and writes the records (np_quiet.h).
 */
#include <stdio.h>
#include <string.h>

#include "np_quiet.h"

void np_fold_init(struct np_fold *f, int64_t now_ms)
{
        memset(f, 0, sizeof(*f));
        stk_bucket_init(&f->fresh, NP_FOLD_RATE, NP_FOLD_BURST, now_ms);
        f->other.used = true;
        snprintf(f->other.host, sizeof(f->other.host), "*");
}

static void emit_entry(struct np_fold *f, struct np_fold_entry *e, np_fold_emit emit, void *userdata)
{
        if (e->count == 0)
                return;
        emit(userdata, e);
        f->records++;
        e->count = 0;
}

static void fold_into(struct np_fold *f, struct np_fold_entry *e, const char *protocol, const char *reason,
                      int64_t now_ms, const struct timespec *now)
{
        if (e->count++ == 0) {
                e->first = *now;
                e->first_ms = now_ms;
        }
        e->last = *now;
        e->last_ms = now_ms;
        snprintf(e->protocol, sizeof(e->protocol), "%s", protocol);
        snprintf(e->reason, sizeof(e->reason), "%s", reason); /* truncation only shortens a record */
        f->folded++;
}

static struct np_fold_entry *find(struct np_fold *f, const char *host, uint16_t port)
{
        for (size_t i = 0; i < NP_FOLD_SLOTS; i++)
                if (f->e[i].used && f->e[i].port == port && strcmp(f->e[i].host, host) == 0)
                        return &f->e[i];
        return NULL;
}

/* A free slot, or the least recently used one, emptied. */
static struct np_fold_entry *make_room(struct np_fold *f, np_fold_emit emit, void *userdata)
{
        struct np_fold_entry *lru = &f->e[0];

        for (size_t i = 0; i < NP_FOLD_SLOTS; i++) {
                if (!f->e[i].used)
                        return &f->e[i];
                if (f->e[i].last_ms < lru->last_ms)
                        lru = &f->e[i];
        }
        emit_entry(f, lru, emit, userdata);
        return lru;
}

bool np_fold_refusal(struct np_fold *f, const char *host, uint16_t port, const char *protocol, const char *reason,
                     int64_t now_ms, const struct timespec *now, np_fold_emit emit, void *userdata)
{
        struct np_fold_entry *e = find(f, host, port);

        f->refused++;
        if (e) {
                fold_into(f, e, protocol, reason, now_ms, now);
                return false;
        }
        if (!stk_bucket_take(&f->fresh, now_ms)) {
                fold_into(f, &f->other, protocol, reason, now_ms, now);
                return false;
        }
        e = make_room(f, emit, userdata);
        *e = (struct np_fold_entry) { .used = true, .port = port, .last_ms = now_ms };
        snprintf(e->host, sizeof(e->host), "%s", host);
        f->records++;
        return true;
}

void np_fold_tick(struct np_fold *f, int64_t now_ms, np_fold_emit emit, void *userdata)
{
        for (size_t i = 0; i <= NP_FOLD_SLOTS; i++) {
                struct np_fold_entry *e = i < NP_FOLD_SLOTS ? &f->e[i] : &f->other;
                if (!e->used)
                        continue;
                if (e->count && now_ms - e->first_ms >= NP_FOLD_WINDOW_MS)
                        emit_entry(f, e, emit, userdata);
                else if (!e->count && e != &f->other && now_ms - e->last_ms >= NP_FOLD_IDLE_MS)
                        e->used = false; /* a destination refused again later gets a full record again */
        }
}

void np_fold_flush(struct np_fold *f, np_fold_emit emit, void *userdata)
{
        for (size_t i = 0; i < NP_FOLD_SLOTS; i++)
                if (f->e[i].used)
                        emit_entry(f, &f->e[i], emit, userdata);
        emit_entry(f, &f->other, emit, userdata);
}
