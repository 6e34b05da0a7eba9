fs_guard_LIBS := -lseccomp
fs_guard_USES := seccomp
fs_guard_OS := Linux
