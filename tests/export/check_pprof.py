#!/usr/bin/env python3
# tests/export/check_pprof.py - 'tdrec export' pprof against 'tdrec report', read by go tool pprof.
#
# usage: check_pprof.py TDREC WORKDIR RECORDING [--record PROGRAM | --product CAT,...]
#   RECORDING: a .tdr or perf.data file; with --record PROGRAM, WORKDIR/RECORDING
#   is first recorded with 'tdrec record' (the software plan here).
#
# go tool pprof is the independent reader of the profile: its -top (with
# -noinlines: physical functions, as 'tdrec report' rows are) must give each
# function the share 'tdrec report --json' gives it within 0.1 points, for
# the samples, for every event and for every TopDown category's slots
# (without -noinlines: the innermost functions of 'report --inline'); its
# -raw listing must have the sample types samples (the default), each event,
# slots and each category, and per function the category slots over the
# slots must be the report's category fractions (within 0.001). Exit 77
# (skipped) when go is not installed.
import json
import os
import re
import shutil
import subprocess
import sys

TOL_POINTS = 0.1


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode:
        sys.exit("FAIL: %s: exit %d\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
    return r.stdout


def go_env(work):
    env = dict(os.environ)
    env["HOME"] = os.path.join(work, "home")  # pprof keeps its settings there
    env.setdefault("GOCACHE", os.path.join(work, "gocache"))
    env["PPROF_TMPDIR"] = work
    os.makedirs(env["HOME"], exist_ok=True)
    return env


def pprof_top(prof, work, sample_index, inlines=False):
    """{function: flat%} of go tool pprof -top -noinlines (or with inlines)."""
    # (flags before the file: go's flag parsing stops at the first argument)
    out = run(["go", "tool", "pprof", "-top", "-nodecount=100000", "-nodefraction=0",
               "-sample_index=" + sample_index] + ([] if inlines else ["-noinlines"]) + [prof],
              env=go_env(work))
    shares, body = {}, False
    for line in out.splitlines():
        if re.match(r"\s*flat\s+flat%", line):
            body = True
            continue
        if not body or not line.strip():
            continue
        m = re.match(r"\s*(\S+)\s+(-?[\d.]+)%\s+(-?[\d.]+)%\s+(\S+)\s+(-?[\d.]+)%\s+(.*)$", line)
        if not m:
            sys.exit("FAIL: unexpected pprof -top line: %r" % line)
        name = m.group(6).strip()
        if name.endswith(" (inline)"):  # pprof's mark of an inlined function
            name = name[:-len(" (inline)")]
        shares[name] = shares.get(name, 0.0) + float(m.group(2))
    return shares


def pprof_raw(prof, work):
    """(sample type names, default type, [(values, [loc ids])], {loc id: physical function})."""
    out = run(["go", "tool", "pprof", "-raw", prof], env=go_env(work))
    lines = out.splitlines()
    types, default, samples, locs = [], None, [], {}
    i = 0
    while i < len(lines) and lines[i] != "Samples:":
        i += 1
    i += 1
    for t in lines[i].split():
        if t.endswith("[dflt]"):
            t = t[:-len("[dflt]")]
            default = t.rsplit("/", 1)[0]
        types.append(t.rsplit("/", 1)[0])
    i += 1
    while i < len(lines) and lines[i] != "Locations":
        m = re.match(r"\s*([-\d\s]+):\s*([\d\s]*)$", lines[i])
        if m:
            vals = [int(v) for v in m.group(1).split()]
            ids = [int(v) for v in m.group(2).split()]
            samples.append((vals, ids))
        i += 1
    i += 1
    cur = None
    while i < len(lines) and not lines[i].startswith("Mappings"):
        m = re.match(r"\s*(\d+):\s+0x[0-9a-f]+\s+(M=\d+\s+)?(.*?)\s+\S*:\d+\s+s=\d+$", lines[i])
        if m:
            cur = int(m.group(1))
            locs[cur] = m.group(3)
        else:
            # an outer inline level of the same location: the physical
            # function is the last one listed
            m2 = re.match(r"\s+(.*?)\s+\S*:\d+\s+s=\d+$", lines[i])
            if m2 and cur is not None:
                locs[cur] = m2.group(1)
        i += 1
    return types, default, samples, locs


def mappings(prof, work):
    """The file names of the profile's mappings, in the profile's order."""
    out = run(["go", "tool", "pprof", "-raw", prof], env=go_env(work)).splitlines()
    names = []
    for line in out[out.index("Mappings") + 1:] if "Mappings" in out else []:
        m = re.match(r"\s*\d+:\s+0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+\s+(\S+)", line)
        if m:
            names.append(m.group(1))
    return names


def main():
    args = sys.argv[1:]
    if len(args) < 3:
        sys.exit(__doc__ if __doc__ else "usage: check_pprof.py TDREC WORKDIR RECORDING [--record PROGRAM]")
    tdrec, work, rec = args[0], args[1], args[2]
    if shutil.which("go") is None:
        print("SKIP: go not installed (Debian golang-go)")
        sys.exit(77)
    os.makedirs(work, exist_ok=True)
    approx = set()
    if len(args) == 5 and args[3] == "--record":
        rec = os.path.join(work, rec)
        run([tdrec, "record", "-q", "-o", rec, "--", args[4]])
    if len(args) == 5 and args[3] == "--product":
        # product-form categories (docs/export.md "Numbers"): summed per
        # address, so a function's value is near, not equal to, the report's
        approx = set(args[4].split(","))
    prof = os.path.join(work, os.path.basename(rec) + ".pb.gz")
    recorded = len(args) == 5 and args[3] == "--record"
    # The recording as -i FILE, and as FILE alone (as report takes it).
    run([tdrec, "export", rec, "-o", prof] if recorded else [tdrec, "export", "-i", rec, "-o", prof])
    rep = json.loads(run([tdrec, "report", "-i", rec, "--json"]))
    cats = [c["name"] for c in rep["categories"]]
    events = [e["name"] for e in rep["events"]]

    # Rows by function name (hybrid parts split a function by core type).
    by = {}
    for row in rep["rows"]:
        f = by.setdefault(row["name"], {"share": 0.0, "slots": 0.0, "cat": {}, "ev": {}})
        f["share"] += row["share"]
        for e in events:
            f["ev"][e] = f["ev"].get(e, 0) + row["events"][e]
        if cats and row["slots_share"] is not None:
            f["slots"] += row["slots_share"]
            for c in cats:
                v = row["topdown"][c]
                f["cat"][c] = f["cat"].get(c, 0.0) + (v or 0.0) * row["slots_share"]

    def compare(what, want, got):
        bad = 0
        for name in set(want) | set(got):
            w, g = want.get(name, 0.0), got.get(name, 0.0)
            if abs(w - g) > TOL_POINTS:
                print("FAIL %s: %s: report %.3f%%, pprof %.3f%%" % (what, name, w, g))
                bad += 1
        if not bad:
            print("ok %s: %d functions within %.1f points" % (what, len(want), TOL_POINTS))
        return bad

    # pprof's percentages are of the sum of absolute values (a category
    # that subtracts can be negative in a function).
    def pct(vals):
        tot = sum(abs(v) for v in vals.values())
        return {n: 100 * abs(v) / tot for n, v in vals.items() if v} if tot else None

    bad = compare("samples", pct({n: f["share"] for n, f in by.items()}),
                  pprof_top(prof, work, "samples"))
    for e in events:
        want = pct({n: f["ev"][e] for n, f in by.items()})
        if want:
            bad += compare(e, want, pprof_top(prof, work, e))
    for c in cats:
        want = pct({n: f["cat"][c] for n, f in by.items()})
        if want and c not in approx:
            bad += compare(c, want, pprof_top(prof, work, c))

    # With inline frames, pprof charges the innermost function: as
    # 'tdrec report --inline' rows are named.
    inl = {}
    for row in json.loads(run([tdrec, "report", "-i", rec, "--inline", "--json"]))["rows"]:
        inl[row["name"]] = inl.get(row["name"], 0.0) + row["share"]
    bad += compare("samples (inline)", pct(inl), pprof_top(prof, work, "samples", True))

    types, default, samples, locs = pprof_raw(prof, work)
    want_types = ["samples"] + [e for e in events if e != "dummy"]
    if cats:
        want_types += ["slots.total" if "slots" in events else "slots"] + cats
    if types != want_types or default != "samples":
        print("FAIL sample types: %s (default %s), want %s (default samples)" % (types, default, want_types))
        bad += 1
    else:
        print("ok sample types: %s" % " ".join(types))
    if cats:
        slots_i = types.index("slots.total" if "slots" in events else "slots")
        per = {}
        for vals, ids in samples:
            fn = locs[ids[0]]
            acc = per.setdefault(fn, [0] * len(types))
            for k, v in enumerate(vals):
                acc[k] += v
        for n, f in by.items():
            if n not in per or not f["slots"]:
                continue
            for c in cats:
                if c in approx:
                    continue
                want = f["cat"][c] / f["slots"]
                got = per[n][types.index(c)] / per[n][slots_i]
                if abs(want - got) > 0.001:
                    print("FAIL raw %s %s: report %.4f, pprof %.4f" % (n, c, want, got))
                    bad += 1
        print("ok raw: category slots / slots per function = report's fractions")
    if recorded:
        # pprof takes the first mapping for the main binary ("File:").
        first = mappings(prof, work)[:1]
        if first != [os.path.realpath(args[4])]:
            print("FAIL first mapping: %s, want the program %s" % (first, args[4]))
            bad += 1
        else:
            print("ok first mapping: the program")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
