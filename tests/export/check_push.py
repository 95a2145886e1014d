#!/usr/bin/env python3
# tests/export/check_push.py - 'tdrec export --push' against a local HTTP receiver.
#
# usage: check_push.py TDREC RECORDING
#
# A receiver on 127.0.0.1 (python's http.server, any free port) takes what
# tdrec sends and decodes it on its own: the request is POST /ingest with
# name (as given, labels included), from <= until (Unix seconds) and
# format=pprof; the body is multipart/form-data whose "profile" part is
# gzip'd profile.proto, read here with a protocol buffer decoder written
# from the proto's field numbers (Profile.sample_type 1, sample 2,
# string_table 6, default_sample_type 14; ValueType.type 1; Sample.value
# 2). The profile's sample types start with "samples" (the default) and
# its samples add up to 'tdrec report''s total. A server that answers 500
# makes tdrec fail with exit 1 and the server's reason, and so does a port
# nobody listens on, and (as root) a libcurl.so.4 that cannot be loaded
# (tdrec loads it when a push starts). Exit 77 (skipped) when tdrec was
# built without libcurl.
import gzip
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import urllib.parse

got = {}


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, i


def fields(b):
    """(field number, wire type, value) of a message: ints or bytes."""
    i, out = 0, []
    while i < len(b):
        key, i = varint(b, i)
        f, w = key >> 3, key & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % w)
        out.append((f, w, v))
    return out


def packed(v):
    i, out = 0, []
    while i < len(v):
        x, i = varint(v, i)
        out.append(x - (1 << 64) if x >= 1 << 63 else x)
    return out


def decode_profile(raw):
    p = fields(gzip.decompress(raw))
    strings = [v.decode() for f, w, v in p if f == 6]
    types = []
    for f, w, v in p:
        if f == 1:
            t = dict((ff, vv) for ff, ww, vv in fields(v))
            types.append(strings[t.get(1, 0)])
    totals = [0] * len(types)
    for f, w, v in p:
        if f == 2:
            for ff, ww, vv in fields(v):
                if ff == 2:
                    for k, x in enumerate(packed(vv) if ww == 2 else [vv]):
                        totals[k] += x
    dflt = [v for f, w, v in p if f == 14]
    return types, totals, strings[dflt[0]] if dflt else None


def multipart_part(body, ctype, name):
    boundary = ctype.split("boundary=")[1].strip('"').encode()
    for part in body.split(b"--" + boundary):
        head, _, data = part.partition(b"\r\n\r\n")
        if ('name="%s"' % name).encode() in head:
            return data[:-2] if data.endswith(b"\r\n") else data
    return None


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        url = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(url.query)
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if q.get("name", [""])[0] == "fail":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"ingester is down\nmore\n")
            return
        got.update(path=url.path, query=q, ctype=self.headers.get("Content-Type", ""), body=body)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    tdrec, rec = sys.argv[1], sys.argv[2]
    srv = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d" % srv.server_address[1]
    name = "app.cpu{env=test,host=a b}"
    r = subprocess.run([tdrec, "export", "-i", rec, "--push", base, "--name", name],
                       capture_output=True, text=True)
    if r.returncode and "not built in" in r.stderr:
        print("SKIP: " + r.stderr.strip())
        sys.exit(77)
    bad = []
    if r.returncode:
        bad.append("tdrec export --push: exit %d: %s" % (r.returncode, r.stderr))
    else:
        q = got["query"]
        if got["path"] != "/ingest":
            bad.append("path %s" % got["path"])
        if q.get("name") != [name] or q.get("format") != ["pprof"]:
            bad.append("query %s" % q)
        if not (0 < int(q["from"][0]) <= int(q["until"][0])):
            bad.append("from %s until %s" % (q["from"], q["until"]))
        raw = multipart_part(got["body"], got["ctype"], "profile") \
            if got["ctype"].startswith("multipart/form-data") else None
        if raw is None:
            bad.append("no 'profile' part in a multipart/form-data body (%s)" % got["ctype"])
        else:
            types, totals, dflt = decode_profile(raw)
            rep = json.loads(subprocess.run([tdrec, "report", "-i", rec, "--json"],
                                            capture_output=True, text=True, check=True).stdout)
            if not types or types[0] != "samples" or dflt != "samples":
                bad.append("sample types %s, default %s" % (types, dflt))
            elif totals[0] != rep["totals"]["samples"]:
                bad.append("pushed samples %d, report %d" % (totals[0], rep["totals"]["samples"]))
            else:
                print("ok push: /ingest %s, %d sample types, %d samples" % (
                    " ".join("%s=%s" % (k, v[0]) for k, v in sorted(q.items())), len(types), totals[0]))
    r = subprocess.run([tdrec, "export", "-i", rec, "--push", base + "/", "--name", "fail"],
                       capture_output=True, text=True)
    if r.returncode != 1 or "HTTP 500: ingester is down" not in r.stderr or "more" in r.stderr:
        bad.append("a 500 answer: exit %d, %r" % (r.returncode, r.stderr))
    else:
        print("ok push: a 500 answer fails with %r" % r.stderr.strip())
    srv.shutdown()
    srv.server_close()
    # Nobody listens there any more: the transport error, exit 1.
    r = subprocess.run([tdrec, "export", "-i", rec, "--push", base], capture_output=True, text=True)
    if r.returncode != 1 or "--push " + base not in r.stderr:
        bad.append("no server: exit %d, %r" % (r.returncode, r.stderr))
    else:
        print("ok push: no server fails with %r" % r.stderr.strip())
    bad += missing_libcurl(tdrec, rec, base)
    for b in bad:
        print("FAIL " + b)
    sys.exit(1 if bad else 0)


def missing_libcurl(tdrec, rec, base):
    """libcurl is loaded when a push starts: where it cannot be (an empty
    file bound over it in a private mount namespace, as root), the push
    fails with one line naming the library and the package, exit 1."""
    lib = "/usr/lib/x86_64-linux-gnu/libcurl.so.4"
    if os.geteuid() != 0 or not shutil.which("unshare") or not os.path.exists(lib):
        print("skip push without libcurl: needs root, unshare and %s" % lib)
        return []
    real = os.path.realpath(lib)
    r = subprocess.run(["unshare", "-m", "sh", "-c", 'mount --bind /dev/null "$0" && exec "$@"',
                        real, tdrec, "export", "-i", rec, "--push", base],
                       capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    if r.returncode != 1 or len(lines) != 1 or "push needs libcurl.so.4 (Debian package libcurl4)" \
            not in lines[0]:
        return ["without libcurl: exit %d, %r" % (r.returncode, r.stderr)]
    print("ok push: without libcurl fails with %r" % lines[0])
    return []


if __name__ == "__main__":
    main()
