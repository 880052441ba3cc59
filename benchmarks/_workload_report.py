"""Markdown of a workload's figures (benchmarks/_workload.py): per step the contenders' time,
bytes written and peak memory with their ratios, the goals of issue 28 judged on the run's own
figures, and the fixed cost and Spark jobs per statement on the small tables.

`results[step][contender]` is the child result (`_workload.child`) holding that step."""
from __future__ import annotations

from typing import Any, Optional

from benchmarks._workload import (CONTENDERS, LABELS, Step, best, fixed_cost, load_note, statement_jobs,
                                  statement_times)
from benchmarks.dml import fmt_bytes, fmt_mb, fmt_s, ratio

Results = dict[str, dict[str, dict[str, Any]]]
TIME_VS_DELTA_SPARK = 1.0
TIME_VS_DELTALAKE = 1.5
MEMORY_VS_DELTA_SPARK = 1.0


def machine_line(m: dict[str, Any], total_s: float, loads: list[float], when: str) -> str:
    """The machine, the versions, the run's length and the load it ran under (`when`: when the
    load averages were taken)."""
    return (f"Machine: {m['cores']} cores, {m['ram_gb']} GB RAM, shared with other work (runs are `nice`d); "
            f"Python {m['python']}, pyspark {m['pyspark']}, deltalake {m['deltalake']}, pyarrow {m['pyarrow']}; "
            f"{m['time']}; whole run {total_s / 60:.1f} min. " + load_note(loads, when) + ".")


def missed_goals(steps: list[Step], results: Results, missed: list[str], small_label: str, profile_hint: str) -> list[str]:
    """Where the time goes on the steps that missed a goal, and how to profile one."""
    if not missed:
        return []
    return where_time_goes(steps, results, missed, small_label) + [profile_hint, ""] + where_memory_goes(steps, results, missed)


def present(step: Step, results: Results) -> list[str]:
    return [c for c in CONTENDERS if c in results[step.name]]


def summary(steps: list[Step], results: Results) -> list[str]:
    lines = ["| step | " + " | ".join(LABELS[c] for c in CONTENDERS)
             + " | DV / Delta Spark | COW / Delta Spark | DV / deltalake | COW / deltalake |",
             "|---|" + "---:|" * (len(CONTENDERS) + 4)]
    for s in steps:
        b = {c: best(results[s.name][c], s.name) for c in present(s, results)}
        cells = [f"{fmt_s(b[c]['seconds'])}" if c in b else "cannot run" for c in CONTENDERS]
        r = lambda a, z: ratio(b[a]["seconds"], b[z]["seconds"]) if a in b and z in b else "n/a"
        lines.append(f"| {s.title} | " + " | ".join(cells)
                     + f" | {r('dv', 'deltaspark')} | {r('cow', 'deltaspark')} | {r('dv', 'deltalake')} | {r('cow', 'deltalake')} |")
    return lines + [""]


def memory_and_bytes(steps: list[Step], results: Results) -> list[str]:
    lines = ["| step | " + " | ".join(f"{LABELS[c]} written / tree peak" for c in CONTENDERS)
             + " | tree peak DV / Delta Spark | COW / Delta Spark |",
             "|---|" + "---:|" * (len(CONTENDERS) + 2)]
    for s in steps:
        b = {c: best(results[s.name][c], s.name) for c in present(s, results)}
        cells = [f"{fmt_bytes(b[c]['written']['total'])} / {fmt_mb(b[c]['tree_peak_mb'])}" if c in b else "-"
                 for c in CONTENDERS]
        peak = lambda a: ratio(b[a]["tree_peak_mb"], b["deltaspark"]["tree_peak_mb"]) if a in b and "deltaspark" in b else "n/a"
        lines.append(f"| {s.title} | " + " | ".join(cells) + f" | {peak('dv')} | {peak('cow')} |")
    return lines + [""]


def detail(step: Step, results: Results, sql_shown: list[str]) -> list[str]:
    lines = [f"#### {step.title}", ""] + [f"`{t}`" + ("" if i == len(sql_shown) - 1 else "  ") for i, t in enumerate(sql_shown)]
    if step.delta_spark:
        lines += ["", "Delta Spark refuses a subquery in DELETE (`DELTA_UNSUPPORTED_SUBQUERY`); it runs the same "
                  "deletes as " + "; ".join(f"`{_plain_names(t)}`" for t in step.delta_spark)]
    lines += ["", "| contender | time (best) | first run | per statement (best) | bytes written (data + DV + log) "
              "| files +/- (DVs) | Python peak RSS | JVM peak RSS | tree peak RSS |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c in present(step, results):
        r = results[step.name][c]
        b = best(r, step.name)
        w, cm = b["written"], b["commit"]
        per = " + ".join(fmt_s(t) for t in statement_times(r, step.name)) if c != "deltalake" else "-"
        lines.append(f"| {LABELS[c]} | {fmt_s(b['seconds'])} | {fmt_s(r['runs'][0][step.name]['seconds'])} | {per} "
                     f"| {fmt_bytes(w['total'])} ({fmt_bytes(w['data'])} + {fmt_bytes(w['dv'])} + {fmt_bytes(w['log'])}) "
                     f"| +{cm['adds']} / -{cm['removes']} ({cm['adds_with_dv']}) | {fmt_mb(b['py_peak_mb'])} "
                     f"| {fmt_mb(b['jvm_peak_mb'])} | {fmt_mb(b['tree_peak_mb'])} |")
    return lines + [""]


def _plain_names(text: str) -> str:
    """A statement with its `{table}` placeholders as plain names."""
    import re

    return re.sub(r"\{(\w+)\}", r"\1", text)


def fixed_costs(steps: list[Step], results: Results, small_note: str) -> list[str]:
    """Fixed cost per step on the small tables (warm session) and Spark jobs per statement."""
    lines = [small_note, "",
             "| step | " + " | ".join(f"{LABELS[c]}" for c in CONTENDERS) + " | acidsql DV Spark jobs per statement "
             "| acidsql COW jobs | Delta Spark jobs |",
             "|---|" + "---:|" * len(CONTENDERS) + "---|---|---|"]
    for s in steps:
        cells = []
        for c in CONTENDERS:
            f = fixed_cost(results[s.name][c], s.name) if c in results[s.name] else None
            cells.append(fmt_s(f) if f is not None else "-")
        jobs = [", ".join(str(j) for j in statement_jobs(results[s.name][c], s.name)) if c in results[s.name] else "-"
                for c in ("dv", "cow", "deltaspark")]
        lines.append(f"| {s.title} | " + " | ".join(cells) + " | " + " | ".join(jobs) + " |")
    return lines + [""]


def _ratios(steps: list[Step], results: Results, a: str, z: str, key: str) -> dict[str, Optional[float]]:
    out: dict[str, Optional[float]] = {}
    for s in steps:
        if a in results[s.name] and z in results[s.name]:
            x, y = best(results[s.name][a], s.name)[key], best(results[s.name][z], s.name)[key]
            out[s.name] = x / y if x is not None and y else None
    return out


def goals(steps: list[Step], results: Results, title: str) -> tuple[list[str], list[str]]:
    """Issue 28's goals, judged on this run; returns the table and the goals missed."""
    missed: list[str] = []

    def row(goal: str, values: dict[str, Optional[float]], limit: float) -> str:
        misses = [n for n, v in values.items() if v is None or not v <= limit]
        missed.extend(f"{goal}: {n}" for n in misses)
        shown = ", ".join(f"{n} {v:.2f}x" if v is not None else f"{n} n/a" for n, v in values.items()) or "none"
        verdict = "yes" if not misses else "no: " + "; ".join(misses)
        return f"| {goal} | {shown} | {verdict} |"

    lines = [f"{title}", "", "| goal | ratios (this run) | met |", "|---|---|---|"]
    for layout in ("dv", "cow"):
        lines.append(row(f"{LABELS[layout]} time at most {TIME_VS_DELTA_SPARK}x Delta Spark",
                         _ratios(steps, results, layout, "deltaspark", "seconds"), TIME_VS_DELTA_SPARK))
        lines.append(row(f"{LABELS[layout]} tree peak memory at most Delta Spark's",
                         _ratios(steps, results, layout, "deltaspark", "tree_peak_mb"), MEMORY_VS_DELTA_SPARK))
        lines.append(row(f"{LABELS[layout]} time at most {TIME_VS_DELTALAKE}x deltalake (where it runs the step)",
                         _ratios(steps, results, layout, "deltalake", "seconds"), TIME_VS_DELTALAKE))
    return lines + [""], missed


def verify(steps: list[Step], results: Results, expected: dict[str, dict[str, Any]],
           exact_between: tuple[str, ...] = CONTENDERS, ignore: dict[str, tuple[str, ...]] | None = None) -> list[str]:
    """Every contender's checks against the expected values (where given) and against each
    other (`exact_between`: contenders whose every check value must be equal; a check value
    named in `ignore[contender]` is left out of that). Returns the problems."""
    problems = []
    checks = {}
    for s in steps:
        for c, r in results[s.name].items():
            checks.setdefault(c, r["step_checks"][s.name])
    for c, got in checks.items():
        for name, values in expected.items():
            for k, v in values.items():
                if got.get(name, {}).get(k) != v:
                    problems.append(f"{LABELS[c]}: {name}.{k} = {got.get(name, {}).get(k)!r}, expected {v!r}")
    ref_c = next((c for c in exact_between if c in checks), None)
    for c in exact_between:
        if c not in checks or c == ref_c:
            continue
        for name, values in checks[ref_c].items():
            for k, v in values.items():
                if k in (ignore or {}).get(c, ()):
                    continue
                if checks[c].get(name, {}).get(k) != v:
                    problems.append(f"{LABELS[c]}: {name}.{k} = {checks[c].get(name, {}).get(k)!r}, "
                                    f"{LABELS[ref_c]} {v!r}")
    return problems


def startup_line(results: Results, steps: list[Step]) -> str:
    per: dict[str, list[float]] = {}
    warm: dict[str, list[float]] = {}
    for s in steps:
        for c, r in results[s.name].items():
            per.setdefault(c, []).append(r["startup_s"])
            warm.setdefault(c, []).append(sum(v["seconds"] for v in r["small_runs"][0].values()))
    return ("Start-up per subprocess (excluded from the times): "
            + "; ".join(f"{LABELS[c]} {fmt_s(sum(v) / len(v))} start-up + {fmt_s(sum(warm[c]) / len(warm[c]))} warm-up"
                        for c, v in per.items()) + ".")


def where_time_goes(steps: list[Step], results: Results, missed: list[str], small_label: str) -> list[str]:
    """For each step a goal missed: acidsql's time split into the fixed cost (the same step on
    the small tables, warm session) and the part that grows with the data, and the Spark jobs
    per statement (0: the statement ran on the driver, with no Spark job)."""
    names = [s for s in steps if any(m.endswith(f": {s.name}") for m in missed)]
    if not names:
        return []
    lines = ["Where acidsql's time goes on the steps that missed a goal: the fixed cost is the same step on "
             f"{small_label} (warm session); the rest grows with the data. Spark jobs per statement on the big tables "
             "(0: found and written on the driver with pyarrow, no Spark job).", "",
             "| step | contender | time | fixed cost | grows with the data | Spark jobs per statement | path |",
             "|---|---|---:|---:|---:|---|---|"]
    for s in names:
        for c in ("dv", "cow"):
            if c not in results[s.name]:
                continue
            r = results[s.name][c]
            b = best(r, s.name)
            f = fixed_cost(r, s.name)
            jobs = [x["jobs"] for x in b["statements"]]
            path = "driver" if all(j == 0 for j in jobs) else "Spark" if all(j for j in jobs) else "driver and Spark"
            # No more than the fixed cost (tables of about the small size, or noise): nothing grows.
            grows = "-" if f is None else fmt_s(b["seconds"] - f) if b["seconds"] > f else "none (at most the fixed cost)"
            lines.append(f"| {s.title} | {LABELS[c]} | {fmt_s(b['seconds'])} | {fmt_s(f) if f is not None else '-'} "
                         f"| {grows} | {', '.join(str(j) for j in jobs)} "
                         f"| {path} |")
    return lines + [""]


def where_memory_goes(steps: list[Step], results: Results, missed: list[str]) -> list[str]:
    """For each step a memory goal missed: each contender's tree peak beside the peaks of its
    Python process and its JVM. The rest, the tree's peak less those two, is a lower bound of
    what the other processes of the tree (Spark's Python workers) held at the tree's peak: the
    two parts may each peak at another moment."""
    names = [s for s in steps if any("memory" in m and m.endswith(f": {s.name}") for m in missed)]
    if not names:
        return []
    lines = ["Where the memory goes on the steps that missed the memory goal: the tree's peak (sampled sum of "
             "the Python process, the Spark JVM and the Python workers Spark forks), and the peaks of the Python "
             "process and of the JVM measured apart; the rest is at least what Spark's Python workers held at the "
             "tree's peak (acidsql writes data files with pyarrow inside those workers, and reads object-store tables "
             "there unless the session has a Hadoop connector for the store; Delta Spark writes in the JVM).", "",
             "| step | contender | tree peak | Python peak | JVM peak | rest (Spark's Python workers, at least) |",
             "|---|---|---:|---:|---:|---:|"]
    for s in names:
        for c in ("dv", "cow", "deltaspark"):
            if c not in results[s.name]:
                continue
            b = best(results[s.name][c], s.name)
            tree, py, jvm = b["tree_peak_mb"], b["py_peak_mb"], b["jvm_peak_mb"]
            rest = max(tree - py - jvm, 0.0) if py is not None and jvm is not None else None
            lines.append(f"| {s.title} | {LABELS[c]} | {fmt_mb(tree)} | {fmt_mb(py)} | {fmt_mb(jvm)} "
                         f"| {fmt_mb(rest) if rest is not None else '-'} |")
    return lines + [""]
