net_seccomp_LIBS := -lseccomp
net_seccomp_OS := Linux
net_seccomp_SHARED := modules/common/stk_path.c
