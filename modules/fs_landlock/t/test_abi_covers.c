/* SPDX-License-Identifier: MIT */
/*
 * What fs_landlock claims to cover at each Landlock ABI, 1 to 7, against
 * what that ABI can restrict (issue 20: TRUNCATE lost at ABI 3 while write
 * coverage was still claimed there passed every test, the old table test
 * looking at ABIs 2, 4 and 7 only).  Both tables below are written from
 * the kernel's documentation (Documentation/userspace-api/landlock.rst,
 * "Landlock ABI versions"), not from the module: which ABI brought each
 * right, and which rights a cover is worthless without.  A cover is
 * claimed at an ABI exactly when that ABI handles every right it needs.
 */
#include <stdbool.h>
#include <stdint.h>

#include "common/stk_util.h"

#include "fs_landlock_internal.h"
#include "unit.h"

#define ABI_NEWEST 7

static const struct {
        uint64_t right;
        int abi; /* the first ABI that handles it */
} fs_rights[] = {
        { LANDLOCK_ACCESS_FS_EXECUTE, 1 },     { LANDLOCK_ACCESS_FS_WRITE_FILE, 1 },
        { LANDLOCK_ACCESS_FS_READ_FILE, 1 },   { LANDLOCK_ACCESS_FS_READ_DIR, 1 },
        { LANDLOCK_ACCESS_FS_REMOVE_DIR, 1 },  { LANDLOCK_ACCESS_FS_REMOVE_FILE, 1 },
        { LANDLOCK_ACCESS_FS_MAKE_CHAR, 1 },   { LANDLOCK_ACCESS_FS_MAKE_DIR, 1 },
        { LANDLOCK_ACCESS_FS_MAKE_REG, 1 },    { LANDLOCK_ACCESS_FS_MAKE_SOCK, 1 },
        { LANDLOCK_ACCESS_FS_MAKE_FIFO, 1 },   { LANDLOCK_ACCESS_FS_MAKE_BLOCK, 1 },
        { LANDLOCK_ACCESS_FS_MAKE_SYM, 1 },    { LANDLOCK_ACCESS_FS_REFER, 2 },
        { LANDLOCK_ACCESS_FS_TRUNCATE, 3 },    { LANDLOCK_ACCESS_FS_IOCTL_DEV, 5 },
};

/* Every way to change a file or a directory's entries: a confined write
 * with any of them unhandled is no confinement (truncate(2) before ABI 3
 * emptied any file the user could write, a read-only island included). */
#define NEED_MODIFY (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
                     LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | \
                     LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | \
                     LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | \
                     LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM | \
                     LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE)
#define NEED_READ (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)

static const struct {
        uint32_t cover;
        const char *name;
        uint64_t fs, net, scopes; /* what must be handled */
} needs[] = {
        { STK_COVER_WRITE, "write", NEED_MODIFY, 0, 0 },
        { STK_COVER_READ_ONLY, "read_only", NEED_MODIFY, 0, 0 },
        { STK_COVER_PRIVATE_TMP, "private_tmp", NEED_MODIFY, 0, 0 },
        { STK_COVER_HIDE, "hide", NEED_READ, 0, 0 },
        { STK_COVER_NET_TCP, "net_tcp", 0, LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP, 0 },
        { STK_COVER_NET_ABSTRACT, "net_abstract", 0, 0, LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET },
        { STK_COVER_PROCESS, "process", 0, 0, LANDLOCK_SCOPE_SIGNAL },
};

static uint64_t documented_fs_rights(int abi)
{
        uint64_t m = 0;

        for (size_t i = 0; i < ELEMENTSOF(fs_rights); i++)
                if (abi >= fs_rights[i].abi)
                        m |= fs_rights[i].right;
        return m;
}

/* The rights tables themselves, at every ABI (and 0: none). */
static void test_rights_per_abi(void)
{
        for (int abi = 0; abi <= ABI_NEWEST; abi++) {
                CHECK(ll_abi_fs_rights(abi) == documented_fs_rights(abi), "ABI %d: fs rights 0x%llx, documented 0x%llx",
                      abi, (unsigned long long) ll_abi_fs_rights(abi), (unsigned long long) documented_fs_rights(abi));
                CHECK(ll_abi_net_rights(abi) == (abi >= 4 ? 3u : 0u), "ABI %d: net rights 0x%llx", abi,
                      (unsigned long long) ll_abi_net_rights(abi));
                CHECK(ll_abi_scopes(abi) == (abi >= 6 ? 3u : 0u), "ABI %d: scopes 0x%llx", abi,
                      (unsigned long long) ll_abi_scopes(abi));
        }
}

/* A cover is claimed at an ABI if and only if that ABI handles all it needs. */
static void test_claimed_covers_have_their_rights(void)
{
        for (int abi = 1; abi <= ABI_NEWEST; abi++)
                for (size_t i = 0; i < ELEMENTSOF(needs); i++) {
                        int min = ll_cover_min_abi(needs[i].cover);
                        bool claimed = min > 0 && abi >= min;
                        bool has = (needs[i].fs & ~ll_abi_fs_rights(abi)) == 0 &&
                                   (needs[i].net & ~ll_abi_net_rights(abi)) == 0 &&
                                   (needs[i].scopes & ~ll_abi_scopes(abi)) == 0;

                        CHECK(claimed == has, "ABI %d: %s is %sclaimed (from ABI %d), and the ABI %s "
                              "(missing fs 0x%llx)", abi, needs[i].name, claimed ? "" : "not ", min,
                              has ? "handles every right it needs" : "lacks a right it needs",
                              (unsigned long long) (needs[i].fs & ~ll_abi_fs_rights(abi)));
                        CU_ASSERT_STRING_EQUAL(ll_cover_name(needs[i].cover), needs[i].name);
                        if (needs[i].cover != STK_COVER_PRIVATE_TMP) /* fs_landlock's own directory, not a kernel right */
                                CHECK(!!(ll_abi_covers(abi) & needs[i].cover) == claimed,
                                      "ABI %d: ll_abi_covers and ll_cover_min_abi disagree on %s", abi, needs[i].name);
                }
}

/* What Landlock has no right for is claimed at no ABI. */
static void test_never_claimed(void)
{
        static const uint32_t never[] = { STK_COVER_NET_OTHER, STK_COVER_NET_UNIX, STK_COVER_KERNEL,
                                          STK_COVER_METADATA, STK_COVER_IPC };

        for (size_t i = 0; i < ELEMENTSOF(never); i++) {
                CHECK(ll_cover_min_abi(never[i]) == 0, "cover 0x%x has a min ABI", never[i]);
                for (int abi = 1; abi <= ABI_NEWEST; abi++)
                        CHECK(!(ll_abi_covers(abi) & never[i]), "ABI %d claims cover 0x%x", abi, never[i]);
        }
}

UNIT_SUITE(fs_landlock_abi_covers,
           UNIT_TEST(test_rights_per_abi),
           UNIT_TEST(test_claimed_covers_have_their_rights),
           UNIT_TEST(test_never_claimed))
