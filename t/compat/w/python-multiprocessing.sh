# multiprocessing Pool (semaphores in /dev/shm)
NEEDS="python3"
KNOWN="landlock: its semaphores live in /dev/shm, the host's and read-only here"
inside() {
python3 -c 'import multiprocessing as m
if __name__ == "__main__":
    assert m.Pool(2).map(abs, [-1, -2]) == [1, 2]'
}
