net_seccomp_LIBS := -lseccomp
net_seccomp_USES := seccomp
net_seccomp_OS := Linux
