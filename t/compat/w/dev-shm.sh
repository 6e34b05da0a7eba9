# a file in /dev/shm (POSIX shared memory)
inside() {
echo shm > /dev/shm/compat-$$ && grep -q shm /dev/shm/compat-$$ && rm /dev/shm/compat-$$
}
