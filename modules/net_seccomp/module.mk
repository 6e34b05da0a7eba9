net_seccomp_LIBS := -lseccomp
