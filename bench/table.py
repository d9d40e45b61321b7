#!/usr/bin/env python3
"""table.py: the figures bench/ scripts print, read from iobench's JSON records.

    table.py [--ratio "A|B" ...] [--route-ratio ROUTE_A:ROUTE_B ...] RECORD.json...

One row per (impl:variant, route or case): the median of the repeats' throughput, p50 and p99,
the machine's CPU probe before the load (ms of a fixed loop: lower is a faster machine), then per
process role the CPU milliseconds per 1,000 successes, CPU use in % of one core and
peak memory (median over the repeats). --ratio "A|B" (labels as the rows print them; A/B when neither holds a slash) adds A's
throughput over B's for each repeat (records of one repeat number) and for the medians;
--route-ratio /async-overlap:/sync does that for every row with the first route against the row
that differs only by the second. Each ratio's repeats are followed by their records' probes.
"""
import json
import re
import statistics
import sys
from collections import defaultdict


def label(rec):
    name = rec.get("impl") or rec["workload"]
    if rec.get("variant"):
        name += ":" + rec["variant"]
    extra = rec.get("case") or ""
    route = rec.get("parameters", {}).get("route")
    if route and route not in extra.split():
        extra = (route + " " + extra).strip()
    if rec.get("cachequeue") and rec["parameters"].get("consumers"):
        extra += " +consumers"
    return name + (" " + extra if extra else "")


def repeat(path, rec):
    m = re.search(r"\.r(\d+)\.json$", path)
    return int(m.group(1)) if m else 0


def at(rec, p):
    """The record's latency at percentile p, in milliseconds (0 when it has none)."""
    for q in (rec.get("latency") or {}).get("percentiles") or []:
        if q["p"] == p:
            return q["value"] / 1000
    return 0.0


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main(argv):
    ratios, routes = [], []
    while argv and argv[0] in ("--ratio", "--route-ratio") and len(argv) > 1:
        (ratios if argv[0] == "--ratio" else routes).append(argv[1])
        argv = argv[2:]
    if not argv or argv[0].startswith("-"):
        print('usage: table.py [--ratio "A|B" ...] [--route-ratio ROUTE_A:ROUTE_B ...] RECORD.json...', file=sys.stderr)
        return 2
    groups = defaultdict(list)
    by_repeat = defaultdict(dict)
    probes = defaultdict(dict)
    for path in argv:
        with open(path) as f:
            rec = json.load(f)
        if "schema_version" not in rec:
            continue
        groups[label(rec)].append(rec)
        by_repeat[repeat(path, rec)][label(rec)] = rec["throughput"]["mean"]
        probes[repeat(path, rec)][label(rec)] = rec.get("cpu_probe_us", 0) / 1000
    print(f"{'server':40} {'req/s':>9} {'p50':>8} {'p99':>8} {'probe':>7}  per process: CPU ms/1k, % of a core, peak MiB")
    for name, recs in groups.items():
        rps = med([r["throughput"]["mean"] for r in recs])
        p50 = med([at(r, 50) for r in recs])
        p99 = med([at(r, 99) for r in recs])
        probe = med([r.get("cpu_probe_us", 0) / 1000 for r in recs])
        procs = defaultdict(lambda: defaultdict(list))
        for r in recs:
            ok = max(r["counts"]["succeeded"], 1)
            for p in r.get("processes") or []:
                key = p["role"] + " " + p["name"]
                cpu = p["cpu_user_s"] + p["cpu_system_s"]
                procs[key]["ms"].append(1e6 * cpu / ok)
                procs[key]["pct"].append(p["cpu_percent"])
                procs[key]["mib"].append(p["peak_rss_bytes"] / 2**20)
        overlap = [r["fanout"]["overlap_ratio"] for r in recs if r.get("fanout", {}).get("overlap_ratio")]
        if overlap:
            verdicts = sorted({r["fanout"]["verdict"] for r in recs})
            name_extra = f" overlap {med(overlap):.2f} ({'; '.join(verdicts)})"
        else:
            name_extra = ""
        cost = "; ".join(f"{k} {med(v['ms']):.1f} ms, {med(v['pct']):.0f}%, {med(v['mib']):.1f}" for k, v in procs.items())
        shown = f"{probe:5.2f}ms" if probe > 0 else f"{'-':>7}"  # records before the probe have none
        print(f"{name:40} {rps:9.0f} {p50:6.2f}ms {p99:6.2f}ms {shown}  {cost}{name_extra}")
    for spec in routes:
        a, b = spec.split(":", 1)
        for name in groups:
            if f" {a} " in f"{name} ":
                ratios.append(f"{name}|{f'{name} '.replace(f' {a} ', f' {b} ', 1).rstrip()}")
    if ratios:
        print()
    for spec in ratios:
        a, b = spec.split("|", 1) if "|" in spec else spec.split("/", 1)
        pairs = [(n, r[a] / r[b]) for n, r in sorted(by_repeat.items()) if a in r and b in r and r[b] > 0]
        if not pairs or a not in groups or b not in groups:
            print(f"\n{a}/{b}: no records of both", file=sys.stderr)
            return 1
        ma = med([r["throughput"]["mean"] for r in groups[a]])
        mb = med([r["throughput"]["mean"] for r in groups[b]])
        each = ", ".join(f"{x:.2f}" for _, x in pairs)
        if any(probes[n][a] for n, _ in pairs):
            each += "; CPU probe ms: " + ", ".join(f"{probes[n][a]:.2f}/{probes[n][b]:.2f}" for n, _ in pairs)
        print(f"{a} / {b}: medians {ma:.0f} / {mb:.0f} = {ma / mb:.2f}x (each repeat: {each})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
