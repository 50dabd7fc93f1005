#!/usr/bin/env python3
"""Writes scripts/gpu-run.sh's result files from its work folder, each atomically.

    scripts/gpu-run-report.py --work WORK --out OUT

Reads WORK/meta.tsv (key, value), WORK/rows.tsv (one finished row per line: stage, precision,
status, rc, signal, wall s, limit s, caps, run folder, log, note), WORK/current.tsv (the row
running now, if any), every run's summary.json (written by recurlab_analyze), and writes into
OUT, directly, at most 7 files (the slot returns 8 at most, 16 MiB each):

    report.md        the table of stages, the per-model numbers, the last lines of failed logs
    summary.json     the same for scripts
    logs.tar.gz      WORK/logs/: every run's stdout+stderr, the build log, nvidia-smi
    runs.tar.gz      WORK/runs/ without checkpoints/, models/ and lock files
    checkpoints.tar  the checkpoints of the runs that did not finish (to resume them)
    figure1.png, figure2.png   two of the runs' figures

Only the standard library: the GPU machines have python3 but no package registry.
"""
import argparse
import datetime
import io
import json
import math
import os
import re
import tarfile
import time

LIMIT = 16 * 1024 * 1024  # bytes per returned file
MARGIN = 64 * 1024        # tar headers and padding

# Stages whose statuses are not a failure.
FINE = ("ok", "skipped (--no-build)")


def read_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8", errors="replace") as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def write_atomic(out, name, data):
    """Writes OUT/name through a hidden temporary in OUT and a rename."""
    tmp = os.path.join(out, "." + name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, os.path.join(out, name))


def remove(out, name):
    try:
        os.remove(os.path.join(out, name))
    except FileNotFoundError:
        pass


def num(x, digits=3):
    """A number with `digits` significant digits, thousands separated; '—' when missing."""
    if x is None or not isinstance(x, (int, float)) or (isinstance(x, float) and not math.isfinite(x)):
        return "—"
    if x == 0:
        return "0"
    if isinstance(x, int) or (float(x).is_integer() and abs(x) >= 1 and digits <= 3):
        return f"{int(x):,}"
    magnitude = int(math.floor(math.log10(abs(x))))
    decimals = max(0, digits - 1 - magnitude)
    return f"{x:,.{decimals}f}"


def mean(values):
    values = [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
    return sum(values) / len(values) if values else None


def tail(path, n):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 64 * 1024))
            lines = f.read().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return []
    # Progress bars redraw with carriage returns: keep each line's last state.
    return [line.split("\r")[-1] for line in lines[-n:]]


# ---- what each task's summary.json holds -------------------------------------------------------

# The Trainer's line at the end of each epoch, as recurlab_classification prints it:
# "[5/21] CR lstm fold 0 seed 0 epoch 1/1 loss ... (best 0.6824) 542 sentences/s 5.6s [...]".
EPOCH_LINE = re.compile(r"^\[(\d+)/\d+\] (\S+) (\S+) .*?\bepoch (\d+)/\d+ .*?\) ([0-9.]+) sentences/s ")


def classification_rates(log_path):
    """Per model: the sentences/s of each unit's last epoch line, by unit."""
    rates = {}
    try:
        with open(log_path, encoding="utf-8", errors="replace") as f:
            for raw in f:
                for line in raw.split("\r"):
                    m = EPOCH_LINE.match(line.strip())
                    if m:
                        rates.setdefault(m.group(3), {})[(m.group(1), m.group(2))] = float(m.group(5))
    except OSError:
        pass
    return rates


# The Trainer's progress line inside an epoch (every 30 s when standard error is not a
# terminal): "epoch 1 [#####---------------] 8/27 142 target tokens/s ETA 1m21s".
# The rate is printed with a k or M suffix from 1,000 on ("3.6k characters/s").
PROGRESS_LINE = re.compile(r"epoch (\d+) \[[#-]*\] (\d+)/(\d+) ([0-9.]+)([kM]?) (.+?)/s\b")
# The end of an epoch ("[7/21] SUBJ cnn fold 0 seed 0 epoch 1/1 loss ...") or of a unit
# ("SUBJ cnn fold 0 seed 0: finished (max_epochs), ..."): a progress line before it is history.
EPOCH_END = re.compile(r"^\[\d+/\d+\] .*\bepoch \d+/\d+ |: finished\b")


def last_progress(log_path):
    """The progress line of the epoch a run that did not finish was in, if it printed one."""
    found = None
    for line in tail(log_path, 400):
        m = PROGRESS_LINE.search(line)
        if m:
            scale = {"": 1, "k": 1e3, "M": 1e6}[m.group(5)]
            found = {"epoch": int(m.group(1)), "batch": int(m.group(2)), "batches": int(m.group(3)),
                     "rate": float(m.group(4)) * scale, "rate_unit": m.group(6) + "/s"}
        elif EPOCH_END.search(line.strip()):
            found = None
    return found


def models_of(stage, summary, log_path=None):
    """Per model: seconds per epoch, throughput (value, unit), metric (name, value), epochs,
    status; read from a run's summary.json (classification's throughput, which its summary
    lacks, from the epoch lines of its log)."""
    out = {}
    if stage == "classification":
        summary = summary if isinstance(summary, dict) else {}
        spe = summary.get("seconds_per_epoch") or {}
        acc = summary.get("accuracy") or {}
        rates = classification_rates(log_path) if log_path else {}
        for model in list(spe) + [m for m in rates if m not in spe]:
            by_dataset = spe.get(model) or {}
            accs = [a.get(model, {}).get("mean") for a in acc.values() if isinstance(a, dict)]
            accs = [a for a in accs if a is not None]
            unit_rates = list((rates.get(model) or {}).values())
            out[model] = {
                "seconds_per_epoch": mean(list(by_dataset.values())),
                "seconds_per_epoch_note": "mean over %d datasets" % len(by_dataset),
                "throughput": mean(unit_rates), "throughput_unit": "sentences/s",
                "throughput_note": "mean over %d units' last epoch lines in the log" % len(unit_rates),
                "metric_name": "test accuracy (mean over %d datasets)" % len(accs),
                "metric": mean(accs),
                "epochs": None, "status": None,
            }
        return out
    if not isinstance(summary, dict):
        return out
    if stage == "synthetic":
        # Per model over its (task, width) cells at their best rates: the mean seconds a unit
        # took (training and evaluation; the summary has no per-epoch time) and test accuracy.
        by_model = {}
        for c in summary.get("synthetic") or []:
            if isinstance(c, dict) and c.get("model") is not None:
                by_model.setdefault(c["model"], []).append(c)
        for model, cells in by_model.items():
            accs = [100 * c["test_acc"] for c in cells if isinstance(c.get("test_acc"), (int, float))]
            out[model] = {
                "seconds_per_epoch": None,
                "throughput": mean([c.get("seconds_per_unit") for c in cells]),
                "throughput_unit": "s/unit",
                "metric_name": "test accuracy (mean over %d task and width cells)" % len(accs),
                "metric": mean(accs),
                "epochs": None, "status": None,
            }
        return out
    keys = {
        "lm": ("symbols_per_second", "symbols/s", None),
        "mt": ("train_tokens_per_second", "train tokens/s", "best_valid_bleu"),
        "qa": ("examples_per_second", "examples/s", "dev_f1"),
    }
    if stage not in keys:
        return out
    rate_key, unit, metric_key = keys[stage]
    for model, m in (summary.get("models") or {}).items():
        if not isinstance(m, dict):
            continue
        if stage == "lm":
            metric_name, metric = "valid " + str(m.get("metric", "")), m.get("valid")
        else:
            metric_name, metric = metric_key.replace("_", " "), m.get(metric_key)
        entry = {
            "seconds_per_epoch": m.get("seconds_per_epoch"),
            "throughput": m.get(rate_key), "throughput_unit": unit,
            "metric_name": metric_name, "metric": metric,
            "epochs": m.get("epochs"), "status": m.get("status"),
        }
        if stage == "mt":
            entry["beam_sentences_per_second"] = m.get("beam_sentences_per_second")
            entry["test_bleu"] = m.get("test_bleu")
        out[model] = entry
    return out


def speed_of(summary):
    """recurlab_speed's main sizes: SRU and LSTM ms, LSTM/SRU, the SRU kernel's GB/s."""
    if not isinstance(summary, dict):
        return []
    shapes = []
    for s in summary.get("main_sizes") or []:
        ms = s.get("median_ms") or {}
        shapes.append({
            "length": s.get("length"), "hidden": s.get("hidden"), "batch": s.get("batch"),
            "sru_ms": ms.get("SRU"), "lstm_ms": ms.get("LSTM"),
            "lstm_over_sru": s.get("lstm_over_sru"), "sru_kernel_gbs": s.get("sru_kernel_gbs"),
            "median_ms": ms,
        })
    return shapes


def headline_shape(shapes):
    for s in shapes:
        if (s["length"], s["hidden"], s["batch"]) == (128, 512, 32):
            return s
    return shapes[0] if shapes else None


# ---- the rows ----------------------------------------------------------------------------------

FIELDS = ("stage", "precision", "status", "rc", "signal", "wall_s", "limit_s", "caps", "run",
          "log", "note")


def make_row(fields, work):
    fields = (fields + [""] * len(FIELDS))[:len(FIELDS)]
    row = dict(zip(FIELDS, fields))
    for k in ("rc", "wall_s", "limit_s"):
        try:
            row[k] = int(row[k])
        except ValueError:
            row[k] = None
    summary = load_json(os.path.join(work, row["run"], "summary.json")) if row["run"] else None
    row["summary_found"] = summary is not None
    if summary is not None:
        row["units_finished"] = summary.get("units_finished")
        row["units_running"] = summary.get("units_running")
        models = summary.get("models")
        if row["units_finished"] is None and isinstance(models, dict):  # MT's summary
            statuses = [m.get("status") for m in models.values() if isinstance(m, dict)]
            row["units_finished"] = statuses.count("finished")
            row["units_running"] = len(statuses) - statuses.count("finished")
    if row["status"] not in FINE and row["log"]:
        row["reached"] = last_progress(os.path.join(work, row["log"]))
    if row["stage"] == "speed":
        row["speed"] = speed_of(summary)
    elif row["stage"] in ("classification", "lm", "mt", "qa", "synthetic"):
        row["models"] = models_of(row["stage"], summary,
                                  os.path.join(work, row["log"]) if row["log"] else None)
    return row


def units_text(row):
    if row["stage"] == "cuda-tests" or row["stage"] == "build":
        return row["note"] if row["stage"] == "cuda-tests" else ""
    if row["stage"] == "speed" and row.get("speed") is not None:
        n = len(row["speed"])
        return "%d main shape%s" % (n, "" if n == 1 else "s") if row.get("summary_found") else ""
    f, r = row.get("units_finished"), row.get("units_running")
    text = "" if f is None else "%s finished" % f + (", %s unfinished" % r if r else "")
    p = row.get("reached")
    if p:
        text += "%sthen in epoch %d, batch %d of %d" % ("; " if text else "", p["epoch"], p["batch"], p["batches"])
    return text


def per_model(row, key, fmt):
    parts = []
    for model, m in (row.get("models") or {}).items():
        if m.get(key) is not None:
            parts.append("%s %s" % (model, fmt(m)))
    return " · ".join(parts) or "—"


def epoch_text(row):
    if row["stage"] == "speed":
        return "—"
    return per_model(row, "seconds_per_epoch", lambda m: num(m["seconds_per_epoch"]))


def throughput_text(row):
    if row["stage"] == "speed":
        s = headline_shape(row.get("speed") or [])
        if not s:
            return "—"
        return "SRU %s ms, LSTM %s ms, LSTM/SRU %s, SRU kernel %s GB/s (l=%s d=%s batch %s)" % (
            num(s["sru_ms"]), num(s["lstm_ms"]), num(s["lstm_over_sru"]),
            num(s["sru_kernel_gbs"]), s["length"], s["hidden"], s["batch"])
    text = per_model(row, "throughput", lambda m: "%s %s" % (num(m["throughput"]), m["throughput_unit"]))
    p = row.get("reached")
    if p:
        in_progress = "%s %s in the epoch it was cut in" % (num(p["rate"]), p["rate_unit"])
        text = in_progress if text == "—" else text + " · " + in_progress
    return text


def md_escape(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


# ---- the archives ------------------------------------------------------------------------------

def tar_bytes(members, work, mode, exclude=None):
    """members: paths relative to WORK (files or folders); exclude(relative path) -> bool."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tar:
        for member in members:
            path = os.path.join(work, member)
            if not os.path.exists(path):
                continue
            if os.path.isfile(path):
                if not (exclude and exclude(member)):
                    tar.add(path, arcname=member, recursive=False)
                continue
            for folder, dirs, files in os.walk(path):
                rel_folder = os.path.relpath(folder, work)
                dirs[:] = sorted(d for d in dirs
                                 if not (exclude and exclude(os.path.join(rel_folder, d) + "/")))
                for name in sorted(files):
                    rel = os.path.join(rel_folder, name)
                    if exclude and exclude(rel):
                        continue
                    try:
                        tar.add(os.path.join(folder, name), arcname=rel, recursive=False)
                    except OSError:
                        pass  # a file that vanished while packing
    return buf.getvalue()


def size_of(path):
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(folder, name))
            except OSError:
                pass
    return total


def pack_runs(work, notes):
    def base(rel):  # runs/<run>/checkpoints/, runs/<run>/models/, lock files, partial writes
        return (rel.split("/")[2:3] in (["checkpoints"], ["models"]) or rel.endswith(".lock")
                or ".part-" in rel or rel.endswith(".tmp"))
    attempts = [
        ("", base),
        (" (without the figures' PDFs)", lambda rel: base(rel) or rel.endswith(".pdf")),
        (" (without figures: PDFs, PNGs and gnuplot data)",
         lambda rel: base(rel) or rel.endswith((".pdf", ".png", ".dat", ".gp"))),
    ]
    for what, exclude in attempts:
        data = tar_bytes(["runs"], work, "w:gz", exclude)
        if len(data) <= LIMIT:
            if what:
                notes.append("runs.tar.gz is packed" + what + " to stay under 16 MiB")
            return data
    notes.append("runs.tar.gz left out: over 16 MiB even without figures")
    return None


def pack_checkpoints(work, rows, notes):
    """The checkpoint folders of the units of runs that did not finish, whole folders while they
    fit in 16 MiB (largest runs' units last)."""
    units = []
    for row in rows:
        if row["status"] in FINE or not row["run"]:
            continue
        cdir = os.path.join(work, row["run"], "checkpoints")
        if not os.path.isdir(cdir):
            continue
        for unit in sorted(os.listdir(cdir)):
            rel = os.path.join(row["run"], "checkpoints", unit)
            if os.path.isdir(os.path.join(work, rel)):
                units.append((rel, size_of(os.path.join(work, rel))))
    if not units:
        return None, []
    chosen, left_out, total = [], [], 0
    for rel, size in units:
        if total + size + MARGIN <= LIMIT:
            chosen.append(rel)
            total += size + MARGIN
        else:
            left_out.append("%s (%.1f MiB)" % (rel, size / 2**20))
    if left_out:
        notes.append("checkpoints left out (over the 16 MiB of checkpoints.tar): " + ", ".join(left_out))
    if not chosen:
        return None, []
    return tar_bytes(chosen, work, "w", lambda rel: rel.endswith(".tmp")), chosen


# Two figures, one a run: the runs in this order, in each the first of these names (a slot is
# about speed: the speed sweep, then each training's time per epoch, then its curves).
FIGURE_ORDER = ["speed-fp32", "lm-fp32", "mt-fp32", "qa-fp32", "classification-fp32",
                "speed-bf16", "lm-bf16", "mt-bf16", "qa-bf16", "classification-bf16"]
FIGURE_NAMES = ["speed_vs_length.png", "speed_vs_batch.png", "time_per_epoch.png",
                "learning_curves.png"]


def pick_figures(work):
    found = []
    runs = os.path.join(work, "runs")
    if not os.path.isdir(runs):
        return found
    names = [n for n in FIGURE_ORDER if os.path.isdir(os.path.join(runs, n))]
    names += sorted(n for n in os.listdir(runs) if n not in names)
    for name in names:
        folder = os.path.join(runs, name)
        pngs = sorted(f for f in os.listdir(folder) if f.endswith(".png"))
        ranked = [f for f in FIGURE_NAMES if f in pngs] + [f for f in pngs if f not in FIGURE_NAMES]
        for f in ranked:
            path = os.path.join(folder, f)
            if os.path.getsize(path) <= LIMIT:
                found.append(path)
                break
        if len(found) == 2:
            break
    return found


# ---- main --------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    work, out = os.path.abspath(args.work), os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)

    meta = {k: v for k, v, *_ in (r + [""] for r in read_tsv(os.path.join(work, "meta.tsv")))}
    rows = [make_row(r, work) for r in read_tsv(os.path.join(work, "rows.tsv"))]
    current = read_tsv(os.path.join(work, "current.tsv"))
    notes = []

    started = meta.get("started", "")
    try:
        t0 = datetime.datetime.strptime(started, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
        elapsed = int(time.time() - t0.timestamp())
    except ValueError:
        elapsed = None

    # Everything is made in memory first, then written (report.md and summary.json first), each
    # file atomically: a re-pack stopped while compressing leaves the previous set whole.
    files = {}    # name -> bytes, the files to write besides report.md and summary.json
    logs = tar_bytes(["logs"], work, "w:gz")
    if len(logs) <= LIMIT:
        files["logs.tar.gz"] = logs
    else:
        notes.append("logs.tar.gz left out: over 16 MiB")
    runs = pack_runs(work, notes)
    if runs is not None:
        files["runs.tar.gz"] = runs
    ckpt, ckpt_units = pack_checkpoints(work, rows, notes)
    if ckpt is not None:
        files["checkpoints.tar"] = ckpt
    figure_names = {}
    for i, path in enumerate(pick_figures(work), start=1):
        with open(path, "rb") as f:
            files["figure%d.png" % i] = f.read()
        figure_names["figure%d.png" % i] = os.path.relpath(path, work)

    # ---- report.md
    gpu = meta.get("gpu", "")
    gpu_name = gpu.split(",")[0].strip() if gpu else "unknown"
    lines = ["# recurlab GPU slot: %s" % (gpu_name if meta.get("device") == "cuda"
                                          else "%s (runs on the CPU: --device cpu)" % gpu_name), ""]
    facts = [
        ("GPU (nvidia-smi: name, driver, memory, compute capability)", gpu or "—"),
        ("device of the runs", meta.get("device", "—")),
        ("started (UTC)", started or "—"),
        ("deadline", "%s s from the start; this report written at %s s" % (meta.get("deadline_s", "?"),
                                                                          elapsed if elapsed is not None else "?")),
        ("git commit", meta.get("git_commit", "—")),
        ("PyTorch", meta.get("torch", "—")),
        ("nvcc", meta.get("nvcc", "—")),
        ("C++ compiler", meta.get("cxx", "—")),
        ("LibTorch of the build", meta.get("libtorch_of_build", "—") or "—"),
        ("build folder", meta.get("build_dir", "—")),
        ("host", "%s, %s" % (meta.get("host", "—"), meta.get("cpu", "—"))),
        ("LibTorch threads", meta.get("threads", "0") if meta.get("threads", "0") != "0"
         else "the binaries' default (all cores)"),
        ("command", "`%s`" % meta.get("command", "").strip()),
    ]
    lines += ["- %s: %s" % (k, v) for k, v in facts]
    lines.append("")
    if current:
        c = (current[0] + [""] * 8)[:8]
        lines += ["**In progress when this report was written:** %s %s, started at %s s with a limit of "
                  "%s s (if this is the last report, the slot ended during it)." % (c[0], c[1], c[3], c[4]), ""]

    lines += ["## Stages", ""]
    main_rows = []
    for r in rows:
        wall = "" if r["wall_s"] is None else str(r["wall_s"])
        limit = "" if r["limit_s"] is None else str(r["limit_s"])
        caps = r["caps"] if r["stage"] != "build" else ""
        main_rows.append([r["stage"], r["precision"], r["status"], wall, limit, caps or "—",
                          units_text(r) or "—", epoch_text(r), throughput_text(r)])
    if current:
        c = (current[0] + [""] * 8)[:8]
        main_rows.append([c[0], c[1], "running", "", c[4], c[5] or "—", "—", "—", "—"])
    lines.append(table(["stage", "precision", "status", "wall s", "limit s", "caps (--set)", "units",
                        "s/epoch (per model)", "throughput"], main_rows))
    lines += ["",
              "Status: ok; failed rc N (the exit status); signal SIGxxx (killed by it); cut at deadline "
              "(stopped by its time limit: its numbers are what it reached, read from its log, and, from "
              "its output, the epoch and batch it was cut in and its rate there); not run "
              "(no time left). Each run's limit is its share of the time left (the stages weigh "
              "cuda-tests 1, classification 2, lm 2, mt 3, qa 2, synthetic 1, speed 1 per precision; time a run leaves "
              "unused goes to the later ones). Caps: config keys set for the slot (the quick defaults are "
              "too long for it). Seconds per epoch and throughput come from each run's summary.json "
              "(recurlab_analyze of its log.h5); classification's seconds per epoch are the mean over its "
              "datasets, its sentences/s (which its summary lacks) the mean over its units' last epoch "
              "lines in its log; the synthetic suite's column is seconds per unit (training and "
              "evaluation), the mean over each model's task and width cells at their best rates.", ""]

    build = [r for r in rows if r["stage"] == "build"]
    if build and build[0]["note"]:
        lines += ["Build: %s (%s); targets: %s." % (build[0]["status"], build[0]["note"], build[0]["caps"] or "—"), ""]
    elif build and build[0]["caps"]:
        lines += ["Build targets: %s." % build[0]["caps"], ""]

    detail = []
    for r in rows:
        for model, m in (r.get("models") or {}).items():
            extra = ""
            if r["stage"] == "mt" and m.get("test_bleu") is not None:
                extra = "; test BLEU %s, beam %s sentences/s" % (num(m["test_bleu"]), num(m.get("beam_sentences_per_second")))
            detail.append([r["stage"], r["precision"], model, m.get("status") or "—",
                           num(m.get("epochs")) if m.get("epochs") is not None else "—",
                           num(m.get("seconds_per_epoch")),
                           "%s %s" % (num(m["throughput"]), m["throughput_unit"]) if m.get("throughput") is not None else "—",
                           "%s %s%s" % (m["metric_name"], num(m.get("metric"), 4), extra)])
    if detail:
        lines += ["## Per model", "", table(["stage", "precision", "model", "status", "epochs", "s/epoch",
                                             "throughput", "metric"], detail), ""]

    speed_rows = []
    for r in rows:
        for s in r.get("speed") or []:
            speed_rows.append([r["precision"], "%s, %s, %s" % (s["length"], s["hidden"], s["batch"]),
                               num(s["sru_ms"]), num(s["lstm_ms"]), num(s["lstm_over_sru"]),
                               num(s["sru_kernel_gbs"])])
    if speed_rows:
        lines += ["## recurlab_speed: forward + backward of one layer, median ms", "",
                  table(["precision", "l, d, batch", "SRU", "LSTM", "LSTM / SRU", "SRU kernel GB/s"], speed_rows), ""]

    pending = [r for r in rows if r["status"].startswith("pending")]
    for r in pending:
        lines += ["- %s %s: %s (%s)." % (r["stage"], r["precision"], r["status"], r["note"])]
    if pending:
        lines.append("")

    bad = [r for r in rows if r["status"] not in FINE and not r["status"].startswith(("pending", "not run"))
           and r["log"]]
    if bad:
        lines += ["## Last lines of the logs of the runs that did not finish", ""]
        for r in bad:
            # A fatal signal's stack (common/runtime/crash_report.h) is some 20-30 lines.
            n = 10 if r["status"] == "cut at deadline" else 40 if r["status"].startswith("signal") else 25
            lines += ["### %s %s: %s%s" % (r["stage"], r["precision"], r["status"],
                                           " (%s)" % r["note"] if r["note"] else ""), "",
                      "`%s`, last %d lines:" % (r["log"], n), "", "```"]
            lines += tail(os.path.join(work, r["log"]), n)
            lines += ["```", ""]

    lines += ["## Files", ""]
    described = {
        "report.md": "this report",
        "summary.json": "the same for scripts",
        "logs.tar.gz": "logs/: every run's output, build.log, gpu-run.log (this script's output), "
                       "nvidia-smi.txt and nvidia-smi-monitor.csv where there is a GPU",
        "runs.tar.gz": "runs/<stage>-<precision>/: log.h5, report.md, summary.json, figures, tables "
                       "(no checkpoints/, no models/)",
        "checkpoints.tar": "the checkpoints of the unfinished runs: %s" % ", ".join(ckpt_units),
    }
    for name, rel in figure_names.items():
        described[name] = rel
    for name in ["report.md", "summary.json"] + sorted(files):
        size = len(files[name]) if name in files else None
        lines.append("- `%s`%s: %s" % (name, " (%s KiB)" % num(size / 1024) if size else "", described.get(name, "")))
    lines += ["- %s" % n for n in notes]
    resumable = [r for r in rows if r["run"] and r["status"] not in FINE]
    if resumable:
        lines += ["", "A later slot continues the unfinished runs with `--resume DIR` (DIR holding this "
                  "slot's runs.tar.gz, and checkpoints.tar where there is one) and the same options: "
                  "finished units are kept, units with a checkpoint resume from it, the others start "
                  "again."]
    lines.append("")
    report = "\n".join(lines)

    summary = {
        "meta": meta, "elapsed_s": elapsed,
        "in_progress": ({"stage": current[0][0], "precision": current[0][1]} if current else None),
        "rows": rows, "files": {name: len(data) for name, data in files.items()},
        "figures": figure_names, "checkpoints": ckpt_units, "notes": notes,
        "all_finished": not current and all(r["status"] in FINE or r["status"].startswith("pending") for r in rows),
    }
    write_atomic(out, "report.md", report)
    write_atomic(out, "summary.json", json.dumps(summary, indent=2, default=str) + "\n")
    for name, data in files.items():
        write_atomic(out, name, data)
    # What this set does not hold (a run's checkpoints once it finished, a figure, a temporary
    # of a stopped re-pack) goes: it would count against the 8 files.
    keep = {"report.md", "summary.json"} | set(files)
    for name in ("logs.tar.gz", "runs.tar.gz", "checkpoints.tar", "figure1.png", "figure2.png"):
        if name not in keep:
            remove(out, name)
    for name in os.listdir(out):
        if name.startswith(".") and name.endswith(".tmp"):
            remove(out, name)


if __name__ == "__main__":
    main()
