net_proxy_LIBS := -ljson-c -lpthread
net_proxy_OS := Linux
