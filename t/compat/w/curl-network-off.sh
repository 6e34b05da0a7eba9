# curl to the outside fails fast, with a message naming network.mode
NEEDS="curl"
DENIED="default:network\.mode workspace-write:network\.mode landlock:network\.mode proxy:network|403|resolve|CONNECT"
SANDBOXED="network off"
inside() {
curl -fsS --max-time 20 http://example.com/ -o /dev/null
}
