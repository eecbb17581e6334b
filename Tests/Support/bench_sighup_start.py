#!/usr/bin/env python3
"""How early `pokesync serve` survives a SIGHUP (Serving.md, "Overview"): for each delay,
N starts, each sent a SIGHUP that long after posix_spawn returned (the new image runs);
a start survives when it still runs 0.3 s later.

    bench_sighup_start.py POKESYNC MIRROR N DELAY_MS[,DELAY_MS...]

Python 3 standard library only; each serve listens on 127.0.0.1, a free port.
"""
import os
import signal
import sys
import time


def main():
    binary, mirror, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    delays = [float(text) for text in sys.argv[4].split(",")]
    quiet = [(os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0), (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)]
    for delay in delays:
        survived = 0
        for _ in range(count):
            pid = os.posix_spawn(binary, [binary, "serve", "--mirror", mirror, "--listen", "127.0.0.1:0"], os.environ,
                                 file_actions=quiet, setsigdef=(signal.SIGHUP,), setsigmask=())
            until = time.perf_counter() + delay / 1000
            while time.perf_counter() < until:
                pass
            os.kill(pid, signal.SIGHUP)
            time.sleep(0.3)
            ended, _ = os.waitpid(pid, os.WNOHANG)
            if ended == 0:
                survived += 1
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
        print("SIGHUP %.1f ms after the spawn: %d of %d survived (load %s)"
              % (delay, survived, count, open("/proc/loadavg").read().split()[0]), flush=True)


if __name__ == "__main__":
    main()
