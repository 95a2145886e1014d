#!/usr/bin/env python3
# tests/export/check_html.py - 'tdrec export' html in headless Chromium, against 'tdrec report'.
#
# usage: check_html.py TDREC WORKDIR RECORDING [--screenshot PNG] [--record PROGRAM ARGS...]
#
# Loads the page with #selftest in headless Chromium (--dump-dom: the DOM
# after the scripts ran) and checks what the page wrote into #selftest:
# it drew flame graph frames, among them every function with over 1% of
# the samples in 'tdrec report'; its total is the report's samples; a
# mouse click on the widest frame under the root zoomed into that frame
# (now the whole width; with one-frame stacks, the report's top function); selecting the first
# half of the timeline leaves exactly the samples of the first half of
# the cells (summed here from the page's own data); a search marks frames;
# the table has a row per report function; one timeline row per thread.
# Also: the page loads nothing from the network. Exit 77 (skipped) when
# chromium is not installed.
import html
import json
import os
import re
import shutil
import subprocess
import sys

bad = 0


def fail(msg):
    global bad
    print("FAIL " + msg)
    bad += 1


def run(cmd, timeout=120):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode:
        sys.exit("FAIL: %s: exit %d\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr[-2000:]))
    return r.stdout


def chromium():
    for c in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(c):
            return c
    return None


def main():
    args = sys.argv[1:]
    tdrec, work, rec = args[0], args[1], args[2]
    rest = args[3:]
    shot = None
    if "--screenshot" in rest:
        shot = rest[rest.index("--screenshot") + 1]
    browser = chromium()
    if not browser:
        print("SKIP: chromium not installed (Debian chromium)")
        sys.exit(77)
    os.makedirs(work, exist_ok=True)
    if "--record" in rest:
        rec = os.path.join(work, rec)
        run([tdrec, "record", "-q", "-o", rec, "--"] + rest[rest.index("--record") + 1:])
    page = os.path.join(os.path.abspath(work), "out.html")
    run([tdrec, "export", "-i", rec, "-o", page])
    with open(page) as f:
        text = f.read()
    if re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text) or "<link" in text or "@import" in text:
        fail("the page refers to something outside itself")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--window-size=1280,900", "--user-data-dir=" + os.path.join(os.path.abspath(work), "chrome")]
    dom = run([browser] + flags + ["--dump-dom", "file://" + page + "#selftest"])
    m = re.search(r'<pre id="selftest"[^>]*>(.*?)</pre>', dom, re.S)
    if not m or not m.group(1).strip():
        sys.exit("FAIL: the page wrote no self-test result (a script error?)")
    out = json.loads(html.unescape(m.group(1)))
    m = re.search(r'<script id="tdr-data" type="application/json">(.*?)</script>', text, re.S)
    data = json.loads(m.group(1))

    rep = json.loads(run([tdrec, "report", "-i", rec, "--json"]))
    by = {}
    for row in rep["rows"]:
        by[row["name"]] = by.get(row["name"], 0) + row["samples"]
    total = sum(by.values())
    if out["frames"] < 2:
        fail("%d frames drawn" % out["frames"])
    missing = [n for n, s in by.items() if s > 0.01 * total and n not in out["names"]]
    if missing:
        fail("functions with over 1%% of the samples not drawn: %s" % missing)
    if out["total"] != total:
        fail("page total %s, report %s" % (out["total"], total))
    # The widest frame under the root: the outermost function with most
    # samples (for one-frame stacks, the report's top function).
    outer = {}
    for c in data["cells"]:
        st = data["stacks"][c[2]]
        if st:
            name = data["funcs"][st[0]][0]
            outer[name] = outer.get(name, 0) + c[3]
    top = [n for n in outer if outer[n] == max(outer.values())]
    if all(len(st) == 1 for st in data["stacks"]) and set(top) - set(n for n in by if by[n] == max(by.values())):
        fail("widest outermost frames %s are not the report's top functions" % top)
    if out.get("clicked") not in top or out.get("zoomed") != out.get("clicked"):
        fail("click: clicked %r zoomed %r, want the widest frame %s" % (out.get("clicked"), out.get("zoomed"), top))
    if abs(out.get("zoomed_width", 0) - out.get("flame_width", -1)) > 2:
        fail("zoomed frame %.1f px wide in a %s px flame graph" % (out.get("zoomed_width", 0), out.get("flame_width")))
    half = (data["buckets"] - 1) // 2
    s_idx = 3  # cells: bucket, thread, stack, values (samples first)
    want_half = sum(c[s_idx] for c in data["cells"] if c[0] <= half)
    if out["first_half_samples"] != want_half:
        fail("first half of the timeline: page %s, cells %s" % (out["first_half_samples"], want_half))
    if out["search_matches"] < 1:
        fail("search marked no frame")
    if out["table_rows"] != len(by):
        fail("table rows %d, report functions %d" % (out["table_rows"], len(by)))
    if out["timeline_rows"] != min(24, len(data["threads"])):
        fail("timeline rows %d, threads %d" % (out["timeline_rows"], len(data["threads"])))
    if shot:
        run([browser] + flags + ["--screenshot=" + os.path.abspath(shot), "file://" + page])
    if not bad:
        print("ok html: %d frames, click zoomed into %s, span selection %d of %d samples, "
              "%d table rows" % (out["frames"], out["zoomed"], want_half, total, out["table_rows"]))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
