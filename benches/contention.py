#!/usr/bin/env python3
"""How much the machine's two cores slow each other, and what that costs the kit (issue 25).

    python3 benches/contention.py BIN FILE [ROUNDS] [COMMAND]

COMMAND defaults to "fingerprint --profile trace-0.1". Each round runs, on the same FILE:

- `openssl dgst -sha256` alone (the anchor of issue 25's goal);
- `sha256sum` alone on core 0, then two `sha256sum`s at once, on cores 0 and 1: a core's
  slowdown when the other one is busy too (1.00 on two independent cores);
- the kit's COMMAND on core 0 alone (one core: the fast path runs its pipeline on the
  calling thread) and on both cores (its parallel pipeline).

It prints the medians, the slowdown, the kit's speedup from the second core, and the wall
time the kit would have with two cores that did not slow each other (its one-core CPU time
over two): what its ratio to openssl would be without the contention. Linux only (taskset);
standard library only.
"""
import os
import statistics
import subprocess
import sys
import time

from paired import timed  # benches/paired.py, beside this script


def pair(argv0, argv1):
    """Walls of two children started together."""
    t0 = time.perf_counter()
    a = subprocess.Popen(argv0, stdout=subprocess.DEVNULL)
    b = subprocess.Popen(argv1, stdout=subprocess.DEVNULL)
    walls = []
    for p in (a, b):
        p.wait()
        walls.append(time.perf_counter() - t0)
        if p.returncode != 0:
            sys.exit("a child failed: %r" % p.args)
    return max(walls)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, path = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    command = (sys.argv[4] if len(sys.argv) > 4 else "fingerprint --profile trace-0.1").split()
    if (os.cpu_count() or 1) < 2:
        sys.exit("needs two cores")
    sha0 = ["taskset", "-c", "0", "sha256sum", path]
    sha1 = ["taskset", "-c", "1", "sha256sum", path]
    r = {k: [] for k in ("openssl", "solo", "both", "kit1", "kit1cpu", "kit2", "kit2cpu")}
    for _ in range(rounds):
        r["openssl"].append(timed(["openssl", "dgst", "-sha256", path])[0])
        r["solo"].append(timed(sha0)[0])
        r["both"].append(pair(sha0, sha1))
        wall, cpu = timed(["taskset", "-c", "0", binary] + command + [path])
        r["kit1"].append(wall)
        r["kit1cpu"].append(cpu)
        wall, cpu = timed([binary] + command + [path])
        r["kit2"].append(wall)
        r["kit2cpu"].append(cpu)
    m = {k: statistics.median(v) for k, v in r.items()}
    print("rounds %d, %s, %s" % (rounds, " ".join(command), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
    print("openssl dgst -sha256          %.3f s" % m["openssl"])
    print("sha256sum alone / both cores  %.3f s / %.3f s: a core takes %.2fx its time alone when both work"
          % (m["solo"], m["both"], m["both"] / m["solo"]))
    print("kit on one core               %.3f s wall, %.3f s CPU, %.2fx openssl"
          % (m["kit1"], m["kit1cpu"], m["kit1"] / m["openssl"]))
    print("kit on two cores              %.3f s wall, %.3f s CPU, %.2fx openssl"
          % (m["kit2"], m["kit2cpu"], m["kit2"] / m["openssl"]))
    print("second core's speedup         %.2fx; CPU on two cores over one core %.2fx"
          % (m["kit1"] / m["kit2"], m["kit2cpu"] / m["kit1cpu"]))
    print("without contention (one-core CPU / 2): %.3f s, %.2fx openssl"
          % (m["kit1cpu"] / 2, m["kit1cpu"] / 2 / m["openssl"]))


if __name__ == "__main__":
    main()
