#!/usr/bin/env python3
# tests/export/check_stacks.py - whole call stacks in 'tdrec export' against perf script.
#
# usage: check_stacks.py [--dwarf-only] TDREC WORKDIR PROGRAM ARGS...
#
# Records PROGRAM with 'perf record -g -e cpu-clock:u' (frame pointers; user
# code only, where both name every frame the same way), exports the
# perf.data as folded stacks, and compares them line by line with the
# stacks perf script prints for the same file, folded here (outermost
# first, one count per sample): every stack and its count must be equal
# but for 1% of the samples (a call that ends a function, see below; the
# program has no inlined functions, which perf script would not show).
# Then the pprof of the same file must pass check_pprof.py (self shares as
# 'tdrec report' gives them). --dwarf-only: only the --call-graph dwarf
# check (check_dwarf), for a program without frame pointers, where libdw
# cannot fall back to them and only its CFI, at the right load bias, finds
# the callers. Exit 77 (skipped) when perf is not installed or cannot
# record (perf_event_paranoid).
import os
import shutil
import subprocess
import sys


def run(cmd, ok_fail=False):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode and not ok_fail:
        sys.exit("FAIL: %s: exit %d\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr[-2000:]))
    return r


def perf_folded(data):
    out = run(["perf", "script", "-i", data, "-F", "ip,sym"]).stdout
    counts = {}
    for block in out.strip("\n").split("\n\n"):
        frames = []
        for line in block.splitlines():
            parts = line.strip().split(None, 1)
            if len(parts) == 2:
                frames.append(parts[1])
        if frames:
            key = ";".join(reversed(frames))
            counts[key] = counts.get(key, 0) + 1
    return counts


def folded_of(tdrec, data, folded):
    run([tdrec, "export", "-i", data, "-o", folded])
    ours = {}
    with open(folded) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            ours[stack] = ours.get(stack, 0) + int(n)
    return ours


def from_main(counts):
    """Stacks from main inward: libc's start frames are named from its
    symbol table by tdrec and from its debug info by perf
    (__libc_start_main@@GLIBC_2.34 against __libc_start_main_impl)."""
    out = {}
    for k, n in counts.items():
        frames = k.split(";")
        if "main" in frames:
            frames = frames[frames.index("main"):]
        key = ";".join(frames)
        out[key] = out.get(key, 0) + n
    return out


def check_dwarf(tdrec, work, prog):
    """--call-graph dwarf: the export unwinds the stack copies as perf does.

    Both unwind with libdw but are different code: at least 99% of the
    samples must get the stack perf script prints for them."""
    data = os.path.join(work, "dwarf.perf.data")
    r = run(["perf", "record", "-q", "--call-graph", "dwarf", "-e", "cpu-clock:u", "-F", "1000",
             "-o", data, "--"] + prog, ok_fail=True)
    if r.returncode:
        print("skip dwarf: perf record failed: " + r.stderr.strip()[-300:])
        return 0
    ours = from_main(folded_of(tdrec, data, os.path.join(work, "dwarf.folded")))
    theirs = from_main(perf_folded(data))
    total = sum(theirs.values())
    same = sum(min(n, ours.get(k, 0)) for k, n in theirs.items())
    deep = max((k.count(";") + 1 for k in ours), default=0)
    if not total or same < 0.99 * total or deep < 4:
        print("FAIL dwarf: %d of %d samples with perf script's stack (deepest %d frames)"
              % (same, total, deep))
        return 1
    print("ok dwarf: %d of %d samples with perf script's stack" % (same, total))
    return 0


def main():
    args = sys.argv[1:]
    dwarf_only = args[:1] == ["--dwarf-only"]
    if dwarf_only:
        args = args[1:]
    tdrec, work, prog = args[0], args[1], args[2:]
    if shutil.which("perf") is None:
        print("SKIP: perf not installed")
        sys.exit(77)
    os.makedirs(work, exist_ok=True)
    if dwarf_only:
        sys.exit(1 if check_dwarf(tdrec, work, prog) else 0)
    data = os.path.join(work, "g.perf.data")
    r = run(["perf", "record", "-q", "-g", "-e", "cpu-clock:u", "-F", "2000", "-o", data, "--"] + prog,
            ok_fail=True)
    if r.returncode:
        print("SKIP: perf record failed: " + r.stderr.strip()[-300:])
        sys.exit(77)
    folded = os.path.join(work, "g.folded")
    run([tdrec, "export", "-i", data, "-o", folded])
    ours = {}
    with open(folded) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            # A frame in no mapping: tdrec says [unmapped], perf [unknown].
            stack = ";".join("[unknown]" if fr == "[unmapped]" else fr for fr in stack.split(";"))
            ours[stack] = ours.get(stack, 0) + int(n)
    theirs = perf_folded(data)
    bad = 0
    # A caller is looked up one byte before its return address (the call
    # itself); perf script names the return address. They differ only when
    # a call is the last instruction of a function (ld.so's _start calling
    # _dl_start, then _dl_start_user): allow 1% of the samples for that.
    total = sum(theirs.values())
    off = sum(abs(ours.get(k, 0) - theirs.get(k, 0)) for k in set(ours) | set(theirs)) // 2
    for k in sorted(set(ours) | set(theirs)):
        if ours.get(k, 0) != theirs.get(k, 0):
            print("%s stack %s: tdrec %d, perf script %d"
                  % ("FAIL" if off > total // 100 else "note", k, ours.get(k, 0), theirs.get(k, 0)))
    if off > total // 100:
        bad += 1
    deep = max((k.count(";") + 1 for k in ours), default=0)
    if deep < 2:
        print("FAIL no stack with callers (deepest %d frames)" % deep)
        bad += 1
    if not bad:
        print("ok stacks: %d distinct stacks (up to %d frames) equal perf script's" % (len(ours), deep))
    bad += check_dwarf(tdrec, work, prog)
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run([sys.executable, os.path.join(here, "check_pprof.py"), tdrec,
                        os.path.join(work, "pprof"), data])
    if r.returncode not in (0, 77):
        bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
