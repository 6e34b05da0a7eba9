# multiprocessing Pool (semaphores in /dev/shm; under Landlock fs_guard's host_shm makes them)
NEEDS="python3"
inside() {
python3 -c 'import multiprocessing as m
if __name__ == "__main__":
    assert m.Pool(2).map(abs, [-1, -2]) == [1, 2]'
}
