# curl through net_proxy to a local origin
NEEDS="curl"
ONLY="proxy"
inside() {
curl -sS --max-time 20 "http://origin.test:$CX_PORT/simple/" | grep -q cxwheel
}
