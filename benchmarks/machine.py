"""The machine a benchmark ran on, printed with every figure (figures are compared only within one run).

Importing it also sets the process's collector as a command's (``niagara_solver.jobs.tune_collector``): a benchmark
measures what a user of the command line waits for, whose process collects cycles less often than a program's that
imports the library. Every benchmark imports it."""

from __future__ import annotations

import os
import platform
import statistics

from niagara_solver.jobs import tune_collector

tune_collector()


def machine() -> str:
    """The processor, its cores, Python, the system and the load average when the run started (other work on the
    cores slows every figure)."""
    model = platform.processor() or platform.machine() or "unknown cpu"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), model)
    except OSError:
        pass
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}; "
            f"load average {load}")


def print_medians(seconds: dict[str, list[float]], count: int, unit: str, milliseconds: bool = False) -> None:
    """Each way's median of its runs (``seconds``, alternated in one process), its rate of ``count`` ``unit`` a
    second, and the first way's median over the second's: the ratio a change is quoted by."""
    median = {name: statistics.median(runs) for name, runs in seconds.items()}
    for name, m in median.items():
        shown = f"{m * 1000:8.1f} ms" if milliseconds else f"{m:7.2f} s"
        print(f"  {name:16} {shown}  {count / m:10.1f} {unit}/s")
    first, second = median
    print(f"  {first} / {second}: {median[first] / median[second]:.2f}")
