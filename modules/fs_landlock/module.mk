# Landlock exists on Linux only.
fs_landlock_OS := Linux
# the per-run private TMPDIR is removed with the shared tree removal
fs_landlock_SHARED := modules/common/stk_remove_tree.c
