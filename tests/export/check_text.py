#!/usr/bin/env python3
# tests/export/check_text.py - 'tdrec export' folded and speedscope output against 'tdrec report'.
#
# usage: check_text.py TDREC WORKDIR RECORDING [--record PROGRAM]
#
# folded: every line is "frame;frame;... N" with N a positive integer; the
# samples summed by the line's last frame (the innermost inline function of
# the sampled address) are exactly the samples 'tdrec report --inline'
# gives each innermost function; for every TopDown category, the lines'
# values summed the same way give each function the share of the positive
# category slots the report gives it, within 0.1 points.
# speedscope: the document has the fields and types of speedscope's file
# format (src/lib/file-format-spec.ts: $schema, shared.frames with name and
# optional file/line/col, profiles of type "sampled" with name, a unit of
# WeightUnit, startValue, endValue, samples as frame indexes and weights of
# the same length), one profile per value in the export's order, endValue -
# startValue the sum of the weights; the "samples" profile's weights by leaf
# frame are the report's samples.
import json
import os
import subprocess
import sys

SCHEMA = "https://www.speedscope.app/file-format-schema.json"
UNITS = {"none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes"}
bad = 0


def fail(msg):
    global bad
    print("FAIL " + msg)
    bad += 1


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("FAIL: %s: exit %d\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
    return r.stdout


def read_folded(path):
    by_leaf = {}
    with open(path) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if not stack or not n.isdigit() or int(n) <= 0:
                fail("folded line %r" % line)
                continue
            leaf = stack.split(";")[-1]
            by_leaf[leaf] = by_leaf.get(leaf, 0) + int(n)
    return by_leaf


def shares(vals):
    pos = {k: v for k, v in vals.items() if v > 0}
    tot = sum(pos.values())
    return {k: 100.0 * v / tot for k, v in pos.items()} if tot else {}


def check_speedscope(doc, values, want_samples):
    if doc.get("$schema") != SCHEMA:
        fail("speedscope $schema %r" % doc.get("$schema"))
    frames = doc.get("shared", {}).get("frames")
    if not isinstance(frames, list) or not frames:
        fail("speedscope shared.frames missing")
        return
    for fr in frames:
        if not isinstance(fr.get("name"), str) or set(fr) - {"name", "file", "line", "col"}:
            fail("speedscope frame %r" % fr)
        if "file" in fr and not isinstance(fr["file"], str):
            fail("speedscope frame file %r" % fr)
    for k in ("name", "exporter"):
        if k in doc and not isinstance(doc[k], str):
            fail("speedscope %s not a string" % k)
    if not isinstance(doc.get("activeProfileIndex", 0), int):
        fail("speedscope activeProfileIndex")
    profs = doc.get("profiles", [])
    if [p.get("name") for p in profs] != values:
        fail("speedscope profiles %s, want %s" % ([p.get("name") for p in profs], values))
    for p in profs:
        if p.get("type") != "sampled" or p.get("unit") not in UNITS:
            fail("speedscope profile %s: type %r unit %r" % (p.get("name"), p.get("type"), p.get("unit")))
        s, w = p.get("samples", []), p.get("weights", [])
        if len(s) != len(w):
            fail("speedscope %s: %d samples, %d weights" % (p["name"], len(s), len(w)))
        for st in s:
            if not st or any(not isinstance(i, int) or i < 0 or i >= len(frames) for i in st):
                fail("speedscope %s: stack %r" % (p["name"], st))
        if abs((p["endValue"] - p["startValue"]) - sum(w)) > 1e-6 * max(1, sum(w)):
            fail("speedscope %s: endValue - startValue %r != sum of weights %r" %
                 (p["name"], p["endValue"] - p["startValue"], sum(w)))
    got = {}
    for st, w in zip(profs[0]["samples"], profs[0]["weights"]):
        leaf = frames[st[-1]]["name"]
        got[leaf] = got.get(leaf, 0) + w
    if got != want_samples:
        fail("speedscope samples by leaf %s, report %s" % (got, want_samples))
    else:
        print("ok speedscope: %d profiles, schema fields, samples by leaf = report" % len(profs))


def main():
    tdrec, work, rec = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    if len(sys.argv) == 6 and sys.argv[4] == "--record":
        rec = os.path.join(work, rec)
        run([tdrec, "record", "-q", "-o", rec, "--", sys.argv[5]])
    rep = json.loads(run([tdrec, "report", "-i", rec, "--inline", "--json"]))
    cats = [c["name"] for c in rep["categories"]]
    want, cat_want = {}, {c: {} for c in cats}
    for row in rep["rows"]:
        want[row["name"]] = want.get(row["name"], 0) + row["samples"]
        for c in cats:
            if row["slots_share"] is not None and row["topdown"][c] is not None:
                d = cat_want[c]
                d[row["name"]] = d.get(row["name"], 0) + row["topdown"][c] * row["slots_share"]

    folded = os.path.join(work, "out.folded")
    run([tdrec, "export", "-i", rec, "-o", folded])
    got = read_folded(folded)
    if got != want:
        fail("folded samples by leaf %s, report --inline %s" % (got, want))
    else:
        print("ok folded samples: %d leaf functions equal the report's" % len(got))
    for c in cats:
        run([tdrec, "export", "-i", rec, "-o", folded, "--value", c])
        g, w = shares(read_folded(folded)), shares(cat_want[c])
        for k in set(g) | set(w):
            if abs(g.get(k, 0) - w.get(k, 0)) > 0.1:
                fail("folded %s: %s: report %.3f%%, folded %.3f%%" % (c, k, w.get(k, 0), g.get(k, 0)))
        print("ok folded %s: shares within 0.1 points" % c)

    ss = os.path.join(work, "out.speedscope.json")
    run([tdrec, "export", "-i", rec, "-o", ss])
    with open(ss) as f:
        doc = json.load(f)
    values = ["samples"] + [e["name"] for e in rep["events"] if e["name"] != "dummy"]
    if cats:
        values += ["slots.total" if "slots" in values else "slots"] + cats
    check_speedscope(doc, values, want)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
