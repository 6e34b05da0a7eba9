# a file in /dev/shm (POSIX shared memory)
KNOWN="landlock: no private /dev/shm without a mount namespace; the command's own entries are made (fs_guard host_shm), but reading one by name (O_RDONLY, grep) is refused: reads are not notified"
inside() {
echo shm > /dev/shm/compat-$$ && grep -q shm /dev/shm/compat-$$ && rm /dev/shm/compat-$$
}
