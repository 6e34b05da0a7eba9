/* SPDX-License-Identifier: MIT */
/*
 * net_proxy: what the proxy says about refusals, bounded (issue 21 section
 * 5: 15,000 refused requests in 3 seconds wrote 19 MB of audit log and
 * 3.9 MB of warnings).  Enforcement never depends on this: a request is
 * refused whatever is written about it; only the writing is folded.
 *
 * Audit: the first refusal of a destination (host and port) is recorded in
 * full, as every connection is.  Later refusals of it are folded: counted,
 * with the time of the first and the last and the last reason, and written
 * as one "egress-refused" record per destination at most every
 * NP_FOLD_WINDOW_MS, and at the end.  A destination not seen yet gets its
 * full record only while new destinations come slower than NP_FOLD_RATE a
 * second (burst NP_FOLD_BURST); beyond that, their refusals fold into one
 * entry for "other destinations", so a flood of random names is bounded
 * too.  A connection that never sent a request counts as host "" port 0.
 *
 * stderr: a token bucket per connection log (NP_LOG_RATE lines a second,
 * burst NP_LOG_BURST); the next line that passes says how many were
 * suppressed, and so does the summary at the end.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/stk_bucket.h"
#include "np_parse.h"

#define NP_FOLD_SLOTS 64
#define NP_FOLD_WINDOW_MS 10000
#define NP_FOLD_IDLE_MS 60000   /* an entry with nothing folded for this long is dropped */
#define NP_FOLD_RATE 20
#define NP_FOLD_BURST 100
#define NP_LOG_RATE 5
#define NP_LOG_BURST 50

struct np_fold_entry {
        bool used;
        char host[NP_HOST_MAX + 3];     /* "" for no request, "*" for other destinations */
        uint16_t port;
        uint64_t count;                 /* refusals folded since the last record */
        struct timespec first, last;    /* CLOCK_REALTIME of the first and last folded */
        int64_t first_ms, last_ms;      /* CLOCK_MONOTONIC: the window, and the entry's age */
        char protocol[8];
        char reason[160];               /* the last one's */
};

struct np_fold {
        struct np_fold_entry e[NP_FOLD_SLOTS];
        struct np_fold_entry other;
        struct stk_bucket fresh;         /* full records for destinations not seen yet */
        uint64_t refused, folded, records;
};

/* Called with an entry whose count refusals are to be written as one record. */
typedef void (*np_fold_emit)(void *userdata, const struct np_fold_entry *e);

void np_fold_init(struct np_fold *f, int64_t now_ms);

/* One refusal.  True: write it in full; false: it was folded.  An entry
 * pushed out to make room has its folded refusals emitted first. */
bool np_fold_refusal(struct np_fold *f, const char *host, uint16_t port, const char *protocol, const char *reason,
                     int64_t now_ms, const struct timespec *now, np_fold_emit emit, void *userdata);

/* Emit what a window has folded; drop entries idle for NP_FOLD_IDLE_MS. */
void np_fold_tick(struct np_fold *f, int64_t now_ms, np_fold_emit emit, void *userdata);

/* Emit everything folded (the end of the run). */
void np_fold_flush(struct np_fold *f, np_fold_emit emit, void *userdata);
