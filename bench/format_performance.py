#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Turn `attnscope-cli bench --json` lines into the Markdown tables of docs/performance.md.

    python3 bench/format_performance.py results.jsonl [more.jsonl ...] > tables.md

Standard library only. Lines that are not JSON objects are ignored; error and skipped lines are listed.
"""

import json
import sys
from collections import OrderedDict


def load(paths):
    rows = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(obj, dict):
                    rows.append(obj)
    return rows


def num(value, fmt):
    return "–" if value is None else format(value, fmt)


def table(header, body):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---:" if h in NUMERIC else ":--" for h in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    return "\n".join(out)


NUMERIC = {"n", "d", "H", "threads", "ms median", "p10–p90", "GFLOP/s", "× sgemm", "× unfused",
           "peak RSS MiB", "max ΔO vs fp64", "naive fp32", "sgemm GFLOP/s", "Q,K,V,O MiB", "target MiB",
           "causal / non-causal", "eigen", "openblas", "process baseline MiB"}


def machine_section(rows):
    first = rows[0]
    dates = sorted(r.get("date", "") for r in rows if r.get("date"))
    lines = ["**Machine:** {} ({} hardware threads), kernels compiled for {}, {}.".format(
        first.get("cpu", "?"), first.get("hardware_threads", "?"), first.get("simd", "?"),
        first.get("compiler", "?"))]
    if dates:
        lines.append("**Measured:** {} – {} (UTC).".format(dates[0], dates[-1]))
    ceilings = OrderedDict()
    for r in rows:
        if r.get("gemm_ceiling_gflops") is not None:
            ceilings.setdefault(r["threads"], []).append(r)
    if ceilings:
        lines.append("")
        lines.append("GEMM ceiling (same process, same threads; median over the runs of the sweep):")
        lines.append("")
        body = []
        for threads, rs in sorted(ceilings.items()):
            values = sorted(r["gemm_ceiling_gflops"] for r in rs)
            eigen = sorted(r.get("gemm_eigen_gflops") or 0 for r in rs)
            blas = sorted(r.get("gemm_openblas_gflops") or 0 for r in rs)
            body.append([threads, num(values[len(values) // 2], ".0f"), num(eigen[len(eigen) // 2], ".0f"),
                         num(blas[len(blas) // 2], ".0f") if any(blas) else "–",
                         rs[0].get("gemm_ceiling_source", "")])
        lines.append(table(["threads", "sgemm GFLOP/s", "eigen", "openblas", "best source (first run)"], body))
    return "\n".join(lines)


def timing_section(rows):
    timed = [r for r in rows if r.get("mode", "time") == "time" and r.get("ms_median") is not None]
    timed.sort(key=lambda r: (r["n"], r["d"], r["causal"], r["threads"], r["backend"]))
    body = []
    for r in timed:
        p = "{}–{}".format(num(r.get("ms_p10"), ".3g"), num(r.get("ms_p90"), ".3g"))
        body.append([r["n"], r["d"], r["heads"], "causal" if r["causal"] else "bidir", r["threads"], r["backend"],
                     num(r["ms_median"], ".4g"), p, num(r.get("gflops"), ".1f"), num(r.get("ratio_to_gemm"), ".2f"),
                     num(r.get("speedup_vs_unfused"), ".2f"), num(r.get("peak_rss_mib"), ".0f"),
                     num(r.get("max_abs_err_vs_fp64"), ".1e"), num(r.get("naive_fp32_err"), ".1e")])
    header = ["n", "d", "H", "mask", "threads", "backend", "ms median", "p10–p90", "GFLOP/s", "× sgemm",
              "× unfused", "peak RSS MiB", "max ΔO vs fp64", "naive fp32"]
    return table(header, body) if body else "_no timed runs_"


def causal_section(rows):
    by_key = {}
    for r in rows:
        if r.get("mode", "time") == "time" and r.get("ms_median") is not None:
            by_key[(r["backend"], r["n"], r["d"], r["threads"], r["causal"])] = r["ms_median"]
    body = []
    for (backend, n, d, threads, causal), ms in sorted(by_key.items()):
        if causal and (backend, n, d, threads, False) in by_key:
            body.append([backend, n, d, threads, num(ms / by_key[(backend, n, d, threads, False)], ".2f")])
    return table(["backend", "n", "d", "threads", "causal / non-causal"], body) if body else ""


def memory_section(rows):
    mem = [r for r in rows if r.get("mode") == "memory" and r.get("peak_rss_mib") is not None]
    body = [[r["n"], r["d"], r["heads"], r["threads"], r["backend"], num(r["peak_rss_mib"], ".0f"),
             num(r.get("qkvo_mib"), ".0f"), num(r.get("rss_target_mib"), ".0f"),
             "yes" if r.get("rss_within_target") else "**no**", num(r.get("baseline_rss_mib"), ".0f")]
            for r in mem]
    header = ["n", "d", "H", "threads", "backend", "peak RSS MiB", "Q,K,V,O MiB", "target MiB", "within",
              "process baseline MiB"]
    return table(header, body) if body else ""


def problems_section(rows):
    items = []
    for r in rows:
        what = "{} n={} d={} H={} {} threads={}".format(r.get("backend"), r.get("n"), r.get("d"), r.get("heads"),
                                                         "causal" if r.get("causal") else "bidir", r.get("threads"))
        if r.get("error"):
            items.append("- **failed** {}: {}".format(what, r["error"]))
        elif r.get("skipped"):
            items.append("- skipped {}: {}".format(what, r.get("reason", "")))
    return "\n".join(items)


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    rows = load(argv[1:])
    if not rows:
        print("format_performance.py: no JSON lines in " + ", ".join(argv[1:]), file=sys.stderr)
        return 1
    parts = [machine_section(rows), "### Time\n\nFLOPs 4·B·H·n²·d, halved for causal; × sgemm is GFLOP/s over "
             "the ceiling above; × unfused is the unfused median over this backend's, in the same process.\n\n"
             + timing_section(rows)]
    causal = causal_section(rows)
    if causal:
        parts.append("### Causal / non-causal time\n\n" + causal)
    memory = memory_section(rows)
    if memory:
        parts.append("### Peak memory at long n (own process, no weights)\n\n" + memory)
    problems = problems_section(rows)
    if problems:
        parts.append("### Skipped and failed\n\n" + problems)
    print("\n\n".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
