#!/usr/bin/env python3
"""bench/md1.py: the M/D/1 queue's sojourn time (wait + service) by simulation, the theory beside
bench/arrivals.sh and `iobench http --find-max --arrivals poisson` against `iobench serve hello
--max-rate MU`: one queue, a fixed service time 1/MU, Poisson arrivals at rho x MU.

  python3 bench/md1.py                      # MU=1000, rho 0.5 0.8 0.85 0.88 0.89 0.9, 10^6 arrivals
  python3 bench/md1.py 1000 0.88 0.89       # MU, then the loads

Prints per load the mean, p50 and p99 of the sojourn time in ms; a fixed seed, so each run prints
the same figures.
"""
import random
import sys


def sojourn(rho, mu, n=1_000_000, seed=1):
    """Mean, p50 and p99 of n arrivals' time from arrival to the end of service, in ms."""
    rng, t, free, times = random.Random(seed), 0.0, 0.0, []
    for _ in range(n):
        t += rng.expovariate(rho * mu)
        free = max(t, free) + 1 / mu
        times.append(free - t)
    times.sort()
    return 1e3 * sum(times) / n, 1e3 * times[n // 2], 1e3 * times[int(0.99 * n)]


def main():
    mu = float(sys.argv[1]) if len(sys.argv) > 1 else 1000.0
    rhos = [float(r) for r in sys.argv[2:]] or [0.5, 0.8, 0.85, 0.88, 0.89, 0.9]
    print(f"M/D/1, service {1e3 / mu:g} ms: load, rate, mean, p50, p99 of the sojourn time")
    for rho in rhos:
        mean, p50, p99 = sojourn(rho, mu)
        print(f"{rho:5.2f} {rho * mu:7.0f} req/s  mean {mean:6.2f} ms  p50 {p50:6.2f} ms  p99 {p99:6.2f} ms")


if __name__ == "__main__":
    main()
