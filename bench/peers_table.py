#!/usr/bin/env python3
"""Prints Tessera's column of a peer harness results.json beside the best other peer, as ratios.

    python3 bench/peers_table.py /tmp/tessera-peers/results.json

Per workload and thread count: every peer's median over passes, the best other peer, Tessera,
and Tessera / best (for times a ratio below 1 means Tessera is faster; for GFLOP/s and GB/s above
1 does). A `!` marks a checksum that differs from the other peers' (the graph is wrong), `~` a
median more than 15% off the best pass.
"""
import json
import sys

HIGHER_IS_BETTER = {"gflops", "gbps"}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: peers_table.py RESULTS_JSON")
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    machine = doc["machine"]
    print(f"CPU: {machine.get('model_name')} (family {machine.get('cpu_family')}, model "
          f"{machine.get('cpu_model')}), {machine.get('nproc')} cores, AVX-512: "
          f"{machine.get('avx512f')}; {doc.get('passes')} passes, median of pass medians")
    cells = {}
    for r in doc["results"]:
        if r.get("status") != "ok":
            continue
        cells.setdefault((r["workload"], r["threads"]), {})[r["peer"]] = r
    print("| workload | T | metric | peers | best other | Tessera | Tessera / best |")
    print("|---|---|---|---|---|---|---|")
    for (workload, threads), peers in sorted(cells.items()):
        ours = peers.get("tessera")
        others = {name: r for name, r in peers.items() if name != "tessera"}
        metric = (ours or next(iter(peers.values())))["metric"]
        higher = metric in HIGHER_IS_BETTER
        best_name, best = None, None
        for name, r in others.items():
            if best is None or (r["value"] > best["value"] if higher else r["value"] < best["value"]):
                best_name, best = name, r

        def show(r):
            s = f"{r['value']:.4g}"
            if r.get("checksum_mismatch"):
                s += "!"
            if r.get("median_vs_best_pct", 0) > 15:
                s += "~"
            return s

        listing = ", ".join(f"{n} {show(r)}" for n, r in sorted(others.items()))
        ratio = ""
        if ours and best:
            ratio = f"{ours['value'] / best['value']:.2f}"
        print(f"| {workload} | {threads} | {metric} | {listing} | "
              f"{best_name + ' ' + show(best) if best else ''} | {show(ours) if ours else ''} | "
              f"{ratio} |")
    if doc.get("checksum_mismatches"):
        print("checksum mismatches:", doc["checksum_mismatches"])


if __name__ == "__main__":
    main()
