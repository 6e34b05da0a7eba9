fs_bwrap_OS := Linux
