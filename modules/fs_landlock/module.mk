# Landlock exists on Linux only.
fs_landlock_OS := Linux
