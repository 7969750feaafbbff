#!/usr/bin/env python3
"""Prints the goal table of issue 19 from Google Benchmark JSON files (scripts/bench writes them).

Each row is one figure in the unit of its goal; with --benchmark_repetitions the median is used.
Usage: bench_table.py RESULT.json...
"""
import json
import sys

# (what, benchmark run name, field, unit, scale from the field's unit, goal, goal holds if)
#   field "time" is the run's real time in its time_unit; other fields are counters.
#   A counter made with kInvert (per_dispatch, per_patched_value) is in seconds.
NS_PER_SECOND = 1e9
ROWS = [
    ("small buffer allocate + free, virtual-kgsl", "small_alloc_free/0", "time", "ns", None, 100, "le"),
    ("small buffer allocate + free, virtual-msm", "small_alloc_free/1", "time", "ns", None, 100, "le"),
    ("encode one dispatch", "encode_dispatch/iterations:200/manual_time", "per_dispatch", "ns", NS_PER_SECOND, 50, "le"),
    ("encode one dispatch, Arguments taking turns among 8",
     "encode_dispatch_new_arguments/iterations:200/manual_time", "per_dispatch", "ns", NS_PER_SECOND, 50, "le"),
    ("record + submit 100 dispatches, ADRENO_TRACE off", "traced_submit/trace:0/iterations:100/manual_time",
     "per_dispatch", "ns", NS_PER_SECOND, None, None),
    ("record + submit 100 dispatches, ADRENO_TRACE on", "traced_submit/trace:1/iterations:100/manual_time",
     "per_dispatch", "ns", NS_PER_SECOND, None, None),
    ("replay 100 dispatches, all 300 pointers new (per dispatch)",
     "replay_all_changed/dispatches:100/buffer_sets:3/iterations:100/manual_time", "per_dispatch", "ns",
     NS_PER_SECOND, 50, "le"),
    ("replay 100 dispatches, all 300 pointers new (per patched value)",
     "replay_all_changed/dispatches:100/buffer_sets:3/iterations:100/manual_time", "per_patched_value", "ns",
     NS_PER_SECOND, 5000 / 300, "le"),
    ("dwords per replayed dispatch, same program, no barrier",
     "replay_all_changed/dispatches:100/buffer_sets:3/iterations:100/manual_time", "dwords_per_dispatch", "dwords",
     1, 32, "le"),
    ("dwords per replayed dispatch, model DAG", "model_dag/1/iterations:50/manual_time", "dwords_per_dispatch",
     "dwords", 1, 64, "le"),
    ("virtual GPU, ALU loop, 128-wide waves", "alu_loop/wave:128/hazard_check:1/real_time", "fiber_instructions/s",
     "M fiber-instructions/s", 1e-6, 1000, "ge"),
    ("virtual GPU, ALU loop, 64-wide waves", "alu_loop/wave:64/hazard_check:1/real_time", "fiber_instructions/s",
     "M fiber-instructions/s", 1e-6, 1000, "ge"),
    ("virtual GPU, vector add (memory-bound)", "vector_add/real_time", "fiber_instructions/s",
     "M fiber-instructions/s", 1e-6, 300, "ge"),
    ("virtual GPU, 512x512 SGEMM", "sgemm/512/real_time", "time", "ms", None, 1000, "lt"),
    # The fixed cost of a dispatch executed by the virtual GPU (1000 one-group dispatches of a
    # small kernel per submission): what CI runs of applications with many small kernels pay.
    ("virtual GPU, one tiny dispatch executed", "tiny_dispatches/real_time", "per_dispatch", "ns", NS_PER_SECOND,
     None, None),
    # The same per CPU-second of all threads: the goals over two host cores, halved; a loaded
    # machine changes these far less than the wall-clock rates above.
    ("ALU loop, 128-wide, per host core", "alu_loop/wave:128/hazard_check:1/real_time", "per_cpu_second",
     "M fiber-instructions/s", 1e-6, 500, "ge"),
    ("vector add, per host core", "vector_add/real_time", "per_cpu_second", "M fiber-instructions/s", 1e-6, 150,
     "ge"),
    ("512x512 SGEMM, CPU time of all threads", "sgemm/512/real_time", "cpu_seconds_per_multiply", "ms", 1e3, 2000,
     "lt"),
]

TIME_UNITS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load(paths):
    """Run name -> benchmark entry (the median aggregate when repetitions ran)."""
    runs = {}
    for path in paths:
        with open(path, encoding="utf-8") as file:
            for entry in json.load(file)["benchmarks"]:
                name = entry.get("run_name", entry["name"])
                if entry.get("run_type") == "aggregate":
                    if entry.get("aggregate_name") == "median":
                        runs[name] = entry
                elif name not in runs or runs[name].get("run_type") != "aggregate":
                    runs.setdefault(name, entry)
    return runs


def figure(entry, field, unit, scale):
    if field == "time":
        nanoseconds = entry["real_time"] * TIME_UNITS[entry["time_unit"]]
        return nanoseconds / TIME_UNITS[unit]
    return entry[field] * scale


def number(value):
    """Three significant digits, without an exponent."""
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


def main(paths):
    runs = load(paths)
    lines = []
    for what, name, field, unit, scale, goal, holds in ROWS:
        entry = runs.get(name)
        if entry is None or (field != "time" and field not in entry):
            lines.append((what, "not run", "", ""))
            continue
        value = figure(entry, field, unit, scale)
        if goal is None:
            goal_text, verdict = "", ""
        else:
            sign = {"le": "≤", "ge": "≥", "lt": "<"}[holds]
            goal_text = f"{sign} {number(goal)} {unit}"
            met = {"le": value <= goal, "ge": value >= goal, "lt": value < goal}[holds]
            verdict = "met" if met else "not met"
        lines.append((what, f"{number(value)} {unit}", goal_text, verdict))
    widths = [max(len(line[i]) for line in lines + [("figure", "value", "goal", "")]) for i in range(4)]
    header = ("figure", "value", "goal", "")
    print("  ".join(text.ljust(width) for text, width in zip(header, widths)).rstrip())
    for line in lines:
        print("  ".join(text.ljust(width) for text, width in zip(line, widths)).rstrip())


if __name__ == "__main__":
    main(sys.argv[1:])
