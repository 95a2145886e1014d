#!/usr/bin/env python3
"""libtdrec for real: the read(2) fallback with software events in several
threads, checked against `tdrec stat` of the same run, and the reports.

1. examples/regions_demo runs under `tdrec stat --per-thread --json` with
   TDREC_REGIONS set: the regions file, read here with a reader written
   from docs/format.md section 7.3 alone, must hold every thread's regions
   with the right counts; nesting must add up (a step's page faults are
   exactly its two inner regions'); and each thread's outer region must
   fit inside, and cover most of, what tdrec stat counted for that thread.
2. `tdrec report --regions FILE --json` must show the file's sums.
3. A synthetic topdown-l2 regions file: the report's level-1 and level-2
   columns must be the hand-computed fractions, and the text report must
   use the function report's labels.
4. `tdrec record` of the demo: the recording carries the regions, and
   `tdrec report -i` shows them after the functions.
5. A TDREC_REGIONS file older than the recording is not embedded.

Usage: regions_vs_stat.py TDREC DEMO
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

MAGIC = b"TDRREGN\x01"
STEPS = 30
THREADS = 3


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def parse_regions(data):
    """docs/format.md 7.3: header, strings, entries."""
    (version, method, event_cnt, region_cnt, width, pid, resets,
     errors) = struct.unpack_from("<IIIIIIQQ", data, 0)
    check(version == 1, "version %d" % version)
    pos = 40

    def string(pos):
        (n,) = struct.unpack_from("<H", data, pos)
        return data[pos + 2:pos + 2 + n].decode(), pos + 2 + n

    family, pos = string(pos)
    events = []
    for _ in range(event_cnt):
        name, pos = string(pos)
        events.append(name)
    pos = (pos + 7) & ~7
    regions = []
    for _ in range(region_cnt):
        entry_sz, tid, count, name_len = struct.unpack_from("<IIQH", data, pos)
        deltas = struct.unpack_from("<%dQ" % event_cnt, data, pos + 24)
        name = data[pos + 24 + 8 * event_cnt:pos + 24 + 8 * event_cnt + name_len].decode()
        regions.append({"name": name, "tid": tid, "count": count,
                        "ev": dict(zip(events, deltas))})
        pos += entry_sz
    return {"method": method, "family": family, "events": events, "pid": pid,
            "width": width, "resets": resets, "errors": errors, "regions": regions}


def build_regions(family, events, regions):
    """The writer's side of the same layout, for synthetic files."""
    out = bytearray(struct.pack("<IIIIIIQQ", 1, 1, len(events), len(regions), 0, 99, 0, 0))
    for s in [family] + events:
        out += struct.pack("<H", len(s)) + s.encode()
    out += b"\0" * (-len(out) % 8)
    for name, tid, count, deltas in regions:
        body = struct.pack("<IIQH6x", 0, tid, count, len(name))
        body += struct.pack("<%dQ" % len(deltas), *deltas) + name.encode()
        body += b"\0" * (-len(body) % 8)
        body = struct.pack("<I", len(body)) + body[4:]
        out += body
    return MAGIC + bytes(out)


def run(cmd, env=None):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        fail("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.decode()))
    return p.stdout.decode()


def main():
    tdrec, demo = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="tdr-regions-")
    rpath = os.path.join(tmp, "demo.regions")
    spath = os.path.join(tmp, "stat.json")
    env = dict(os.environ, TDREC_REGIONS=rpath, TDREC_REGIONS_PLAN="software")

    # 1. the fallback against tdrec stat
    run([tdrec, "stat", "--per-thread", "--json", "-o", spath, "--", demo,
         str(THREADS), str(STEPS)], env)
    with open(rpath, "rb") as f:
        raw = f.read()
    check(raw[:8] == MAGIC, "regions file magic")
    reg = parse_regions(raw[8:])
    check(reg["family"] == "software", "family %s" % reg["family"])
    check(reg["method"] == 2, "read with read(2) on the software plan")
    check(reg["events"] == ["task-clock", "context-switches", "cpu-migrations",
                            "page-faults"], "events %s" % reg["events"])
    check(reg["errors"] == 0, "errors %d" % reg["errors"])
    with open(spath) as f:
        stat = json.load(f)
    threads = {t["tid"]: t for t in stat["threads"]}
    missed = stat["not_attributed"]["events"]
    # The whole program is counted from exec: every region of every thread
    # fits in stat's total.
    for ev in ("task-clock", "context-switches", "page-faults"):
        steps = sum(r["ev"][ev] for r in reg["regions"] if r["name"] == "step")
        check(steps <= stat["total"]["events"][ev],
              "the steps' %s %d above tdrec stat's total %d" % (ev, steps,
                                                               stat["total"]["events"][ev]))
    by = {}
    for r in reg["regions"]:
        by[(r["tid"], r["name"])] = r
    tids = sorted({r["tid"] for r in reg["regions"]})
    check(len(tids) == THREADS, "%d threads measured, not %d" % (len(tids), THREADS))
    for tid in tids:
        check(tid in threads, "tid %d not in tdrec stat's threads" % tid)
        st = threads[tid]
        check(st["pid"] == reg["pid"], "pid %d vs stat's %d" % (reg["pid"], st["pid"]))
        step, inner = by[(tid, "step")], [by[(tid, "checksum")], by[(tid, "touch-pages")]]
        for r in [step] + inner:
            check(r["count"] == STEPS, "%s in %d: %d times" % (r["name"], tid, r["count"]))
        # Nesting: page faults only happen inside the inner regions.
        check(step["ev"]["page-faults"] == sum(r["ev"]["page-faults"] for r in inner),
              "step's page faults are not its inner regions' (%d)" % tid)
        # Each step writes 64 fresh pages once: 64 faults, from the first
        # step on (the group counts from its open). A sanitizer build's
        # demo also faults in AddressSanitizer's shadow of those pages, at
        # most one shadow page per 8 pages.
        pf = inner[1]["ev"]["page-faults"]
        check(STEPS * 64 <= pf <= STEPS * (64 + 8),
              "touch-pages faulted %d times, not %d (+ at most %d)" % (pf, STEPS * 64,
                                                                      STEPS * 8))
        for ev in ("task-clock", "context-switches", "page-faults"):
            check(step["ev"][ev] >= sum(r["ev"][ev] for r in inner),
                  "step's %s below its inner regions' (%d)" % (ev, tid))
            # The region is part of the thread's life: never more than
            # tdrec stat counted for the thread. A new thread's row misses
            # its first moments, before stat opened its groups (docs/stat.md
            # "Per thread"), which stat reports as "not attributed": the
            # main thread's groups exist from exec, so its row is exact.
            slack = 0 if tid == reg["pid"] else missed[ev]
            check(step["ev"][ev] <= st["events"][ev] + slack,
                  "%d: step's %s %d above tdrec stat's %d (+ %d not attributed)" % (
                      tid, ev, step["ev"][ev], st["events"][ev], slack))
        # ... and most of it: the threads do little outside their steps.
        check(step["ev"]["task-clock"] >= 0.5 * st["events"]["task-clock"],
              "%d: step's task-clock %d, tdrec stat's %d" % (
                  tid, step["ev"]["task-clock"], st["events"]["task-clock"]))

    # 2. the report shows the file's sums
    rep = json.loads(run([tdrec, "report", "--regions", rpath, "--json"]))
    check(rep["by"] == "region", "by %s" % rep["by"])
    rows = {r["name"]: r for r in rep["rows"]}
    check(sorted(rows) == ["checksum", "step", "touch-pages"], "rows %s" % sorted(rows))
    for name, row in rows.items():
        mine = [r for r in reg["regions"] if r["name"] == name]
        check(row["samples"] == sum(r["count"] for r in mine), "%s samples" % name)
        for ev in reg["events"]:
            check(row["events"][ev] == sum(r["ev"][ev] for r in mine),
                  "%s %s: %d" % (name, ev, row["events"][ev]))
    rep = json.loads(run([tdrec, "report", "--regions", rpath, "--json", "--by", "thread",
                          "--tid", str(tids[1])]))
    check(len(rep["rows"]) == 3 and all(r["tid"] == tids[1] for r in rep["rows"]),
          "--by thread --tid")

    # 3. TopDown columns on a synthetic perf-metrics file
    l2 = ["slots", "topdown-retiring", "topdown-bad-spec", "topdown-fe-bound",
          "topdown-be-bound", "topdown-heavy-ops", "topdown-br-mispredict",
          "topdown-fetch-lat", "topdown-mem-bound"]
    spath2 = os.path.join(tmp, "l2.regions")
    with open(spath2, "wb") as f:
        f.write(build_regions("topdown-l2", l2, [
            ("hot", 11, 3, [1000, 500, 100, 150, 250, 200, 60, 90, 180]),
            ("hot", 12, 2, [1000, 500, 100, 150, 250, 200, 60, 90, 180]),
            ("cold", 11, 1, [1000, 100, 100, 100, 700, 50, 50, 50, 600])]))
    rep = json.loads(run([tdrec, "report", "--regions", spath2, "--json"]))
    rows = {r["name"]: r for r in rep["rows"]}
    want = {"retiring": 0.5, "bad-spec": 0.1, "fe-bound": 0.15, "be-bound": 0.25,
            "heavy-ops": 0.2, "light-ops": 0.3, "br-mispredict": 0.06,
            "machine-clears": 0.04, "fetch-lat": 0.09, "fetch-bw": 0.06,
            "mem-bound": 0.18, "core-bound": 0.07}
    check(rows["hot"]["samples"] == 5, "hot samples")
    for k, v in want.items():
        check(abs(rows["hot"]["topdown"][k] - v) < 1e-12,
              "hot %s %s, not %s" % (k, rows["hot"]["topdown"][k], v))
    check(abs(rows["cold"]["topdown"]["mem-bound"] - 0.6) < 1e-12, "cold mem-bound")
    check(rows["cold"]["bottleneck"] == "be-bound", "cold's bottleneck %s" %
          rows["cold"]["bottleneck"])
    text = run([tdrec, "report", "--regions", spath2])
    check("Retire" in text and "BE-Bnd" in text and "region" in text,
          "text report columns:\n" + text)

    # 4. tdrec record embeds the regions; report -i shows them
    tpath = os.path.join(tmp, "demo.tdr")
    env = dict(os.environ, TDREC_REGIONS_PLAN="software")
    env.pop("TDREC_REGIONS", None)
    run([tdrec, "record", "-q", "-o", tpath, "--", demo, "2", "10"], env)
    rep = json.loads(run([tdrec, "report", "--regions", tpath, "--json"]))
    rows = {r["name"]: r for r in rep["rows"]}
    check(sorted(rows) == ["checksum", "step", "touch-pages"] and
          all(r["samples"] == 20 for r in rows.values()), "regions in the recording")
    text = run([tdrec, "report", "-i", tpath])
    check("regions of the program" in text and "touch-pages" in text,
          "report -i does not show the regions:\n" + text)
    # 5. a user's TDREC_REGIONS holding an earlier run's regions is left
    # out of a recording of a program that writes none
    stale = os.path.join(tmp, "stale.regions")
    with open(stale, "wb") as f:
        f.write(raw)
    os.utime(stale, (1000000000, 1000000000))
    env = dict(os.environ, TDREC_REGIONS=stale)
    p = subprocess.run([tdrec, "record", "-q", "-o", tpath, "--", "true"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(p.returncode == 0 and b"before this recording started" in p.stderr,
          "stale regions: exit %d, %s" % (p.returncode, p.stderr.decode()))
    p = subprocess.run([tdrec, "report", "--regions", tpath], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    check(p.returncode == 1 and b"a recording without regions" in p.stderr,
          "stale regions embedded: %s" % p.stderr.decode())
    print("ok")


if __name__ == "__main__":
    main()
