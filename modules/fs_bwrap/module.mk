fs_bwrap_OS := Linux
fs_bwrap_SHARED := modules/common/stk_path.c
