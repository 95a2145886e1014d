#!/usr/bin/env python3
"""tests/format/independent_reader.py - a .tdr reader written from docs/format.md alone.

It shares no code with format/: it follows the byte tables of docs/format.md
(file header, blocks, TLV metadata with both forms of a category, frames
with codecs 0, 1 and 2, trailer,
footer, the scan of section 12) and uses the zstd command for zstd frames.
If the spec leaves out something a reader needs, or the C code drifts from
the spec, this reader disagrees with tdrec and the test fails.

usage: independent_reader.py TDREC DUMP_FRAMES FILE[:ids]...

For each FILE it decodes every frame and checks what the spec promises:
records tile each frame with exactly record_cnt records, the trailer's
TOTALS equal the counts taken from the records, and (with ':ids', for files
the real recorder wrote) every sample's first word, its PERF_SAMPLE_IDENTIFIER,
is one of the kernel ids of the metadata. The decoded records must be
byte for byte those of tdrec's reader (DUMP_FRAMES, tests/format/dump_frames.c),
and its view must match 'TDREC info --json FILE': format version, plan,
event names, frames, records, lost samples, whether the file is
truncated, the DSO table's entries (used, with a build-id, lost), the
ARCHIVE section's counts (section 7.2: objects, addresses, functions,
inline frames, strings, bytes, stacks and the samples naming one; or
damaged; a stacks part must describe the file's frames, with no more
entries in a frame than its sample records), and each
event's counted total (the trailer's COUNTED item, section 8.1).
Exit status 0 when all agree.
"""
import json
import struct
import subprocess
import sys

FILE_MAGIC = b'\x89TDR\r\n\x1a\n'
FOOTER_MAGIC = b'\x89TDE\r\n\x1a\n'
M64 = (1 << 64) - 1
# perf_event_header.type values (linux/perf_event.h)
REC_LOST, REC_THROTTLE, REC_UNTHROTTLE, REC_SAMPLE, REC_LOST_SAMPLES = 2, 5, 6, 9, 13
PERF_SAMPLE_IDENTIFIER = 1 << 16


class Bad(Exception):
    """The file breaks a rule of the spec."""


def need(cond, what):
    if not cond:
        raise Bad(what)


def crc32c(data):
    """Section 1: reflected 0x82F63B78, init and final xor 0xFFFFFFFF."""
    c = 0xFFFFFFFF
    for x in data:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
    return c ^ 0xFFFFFFFF


def u16(b, o): return struct.unpack_from('<H', b, o)[0]
def u32(b, o): return struct.unpack_from('<I', b, o)[0]
def u64(b, o): return struct.unpack_from('<Q', b, o)[0]
def align8(v): return (v + 7) & ~7


def unzstd(data, size):
    out = subprocess.run(['zstd', '-d', '-c', '-q'], input=data, capture_output=True,
                         check=True).stdout
    need(len(out) == size, 'zstd data gives %d bytes, not %d' % (len(out), size))
    return out


def unzstd_prefix(data):
    """What the start of one unfinished zstd frame decodes to (section 6.2:
    a chain's block 0 bytes so far). The zstd command writes what it decoded
    and then fails on the missing end of the frame."""
    res = subprocess.run(['zstd', '-d', '-c', '-q'], input=data, capture_output=True)
    need(res.returncode == 0 or b'premature end' in res.stderr,
         'chained zstd data: %s' % res.stderr.decode(errors='replace').strip())
    return res.stdout


class Chain:
    """Section 6.2: what a ring's chain carries from frame to frame."""

    def __init__(self):
        self.link, self.zdata, self.zout = None, b'', 0
        self.last, self.slots = [], [None] * 64


def tlv(b):
    """Section 4: items fill their container exactly."""
    o = 0
    while o < len(b):
        need(o + 8 <= len(b), 'TLV header past the end')
        tag, ln = struct.unpack_from('<II', b, o)
        need(o + 8 + ln <= len(b), 'TLV value past the end')
        yield tag, b[o + 8:o + 8 + ln]
        o += 8 + ln


def count_list(v, entry_sz):
    cnt = u32(v, 0)
    need(len(v) == 8 + cnt * entry_sz, 'count-prefixed list of the wrong length')
    return [v[8 + i * entry_sz:8 + (i + 1) * entry_sz] for i in range(cnt)]


def decode_counted(v):
    """Section 8.1: per event (value, time_enabled, time_running), or None
    for an entry without the KNOWN flag."""
    ents = count_list(v, 32)
    need(len(ents) <= 256, 'COUNTED with %d entries' % len(ents))
    return [struct.unpack_from('<3Q', e) if u32(e, 24) & 1 else None for e in ents]


def decode_terms(items, where):
    """Section 5.2: NUM (5) and DEN (6) items, 16 bytes each."""
    side = {5: [], 6: []}
    for t, w in items:
        if t in side:
            need(len(w) == 16, '%s: term of %d bytes' % (where, len(w)))
            side[t].append((u32(w, 0), struct.unpack_from('<d', w, 8)[0]))
            need(len(side[t]) <= 256, '%s: more than 256 terms' % where)
    return side[5], side[6]


def decode_wterm(w):
    """Section 5.2, since 1.5: a WNUM or WDEN item, one TERM (1) and its
    weight's NUM and DEN (no weighted terms of its own)."""
    items = list(tlv(w))
    terms = [x for t, x in items if t == 1]
    need(len(terms) == 1 and len(terms[0]) == 16, 'a weighted term with %d TERMs' % len(terms))
    need(not any(t in (7, 8) for t, _ in items), 'a weight with weighted terms')
    num, den = decode_terms(items, 'weight')
    need(den, 'a weight without a denominator')
    return (u32(terms[0], 0), struct.unpack_from('<d', terms[0], 8)[0], num, den)


def decode_category(v, old=False):
    """Section 5.2: the linear form (NUM/DEN) or the product form (PART
    items of FACTOR items, since 1.3; WPART items whose factors may hold
    WNUM and WDEN, since 1.5), never both. old: read as a reader of 1.4
    does, skipping WPART."""
    c = {'name': None, 'num': [], 'den': [], 'parts': []}
    kinds = set()
    items = list(tlv(v))
    for t, w in items:
        if t == 1:
            c['name'] = w.decode()
        elif t == 7 or (t == 8 and not old):
            kinds.add(t)
            factors = []
            for ft, fw in tlv(w):
                if ft == 1:
                    fitems = list(tlv(fw))
                    num, den = decode_terms(fitems, 'factor')
                    need(den, 'a factor without a denominator')
                    wn = [decode_wterm(x) for k, x in fitems if k == 7]
                    wd = [decode_wterm(x) for k, x in fitems if k == 8]
                    need(t == 8 or not (wn or wd), 'weighted terms in a PART')
                    factors.append((num, den, wn, wd))
            need(1 <= len(factors) <= 3, 'a part of %d factors' % len(factors))
            c['parts'].append(factors)
            need(len(c['parts']) <= 16, 'more than 16 parts')
    c['num'], c['den'] = decode_terms(items, 'category')
    need(c['name'] is not None, 'category without a name')
    need(len(kinds) <= 1, 'category with PART and WPART items')
    need(not (c['parts'] and (c['num'] or c['den'])), 'category with terms and parts')
    c['weighted'] = 8 in kinds
    return c


def wsum(wterms, d):
    """Weighted terms: coef * delta * weight; None when a weight has none."""
    v = 0.0
    for i, k, num, den in wterms:
        w = ratio(num, den, d)
        if w is None:
            return None
        v += k * d[i] * w
    return v


def ratio(num, den, d, wn=(), wd=()):
    n, q = wsum(wn, d), wsum(wd, d)
    if n is None or q is None:
        return None
    n += sum(k * d[i] for i, k in num)
    q += sum(k * d[i] for i, k in den)
    return n / q if q > 0 else None


def category_value(c, d):
    """Section 5.2 on one vector of (summed) deltas; None: no value."""
    if not c['parts']:
        return ratio(c['num'], c['den'], d)
    v = 0.0
    for factors in c['parts']:
        p = 1.0
        for num, den, wn, wd in factors:
            r = ratio(num, den, d, wn, wd)
            if r is None:
                return None
            p *= r
        v += p
    return v


def decode_meta(b):
    """Section 5: the tags this check needs (plan, events with attr and ids,
    categories)."""
    m = {'plan': None, 'events': [], 'categories': [], 'category_items': []}
    for tag, v in tlv(b):
        if tag == 11:
            m['plan'] = v.decode()
        elif tag == 19:
            m['categories'].append(decode_category(v))
            m['category_items'].append(v)
        elif tag == 18:
            ev = {'name': None, 'attr': None, 'ids': []}
            for t, w in tlv(v):
                if t == 1:
                    ev['name'] = w.decode()
                elif t == 6:
                    need(64 <= len(w) <= 4096, 'attr size')
                    ev['attr'] = w
                elif t == 7:
                    ev['ids'] = [u64(e, 8) for e in count_list(w, 16)]
            need(ev['name'] is not None and ev['attr'] is not None, 'event without name/attr')
            m['events'].append(ev)
    return m


class Stream:
    """A byte cursor that must not run past its end."""

    def __init__(self, b):
        self.b, self.o = b, 0

    def byte(self):
        need(self.o < len(self.b), 'stream read past its end')
        self.o += 1
        return self.b[self.o - 1]

    def take(self, n):
        need(self.o + n <= len(self.b), 'stream read past its end')
        self.o += n
        return self.b[self.o - n:self.o]

    def varint(self):
        v = 0
        for i in range(10):
            x = self.byte()
            v |= (x & 0x7F) << (7 * i)
            if not x & 0x80:
                need(v <= M64, 'varint above 2^64')
                return v
        raise Bad('varint longer than 10 bytes')

    def done(self):
        return self.o == len(self.b)


def unzz(u):
    return ((u >> 1) ^ -(u & 1)) & M64


def decode_columns(data, raw_sz, record_cnt, chain=None, link=0):
    """Section 6.1, codec 1; with chain, section 6.2, codec 2 (chain holds the
    state after the chain's previous frame, or is new for link 0)."""
    src = Stream(data)
    method = src.byte()
    b0_raw = src.varint()
    if chain is not None:
        need(method == 2, 'codec 2 block 0 method')
        chain.zdata += src.take(src.varint())
        out = unzstd_prefix(chain.zdata)
        need(len(out) == chain.zout + b0_raw,
             'chained block 0 gives %d bytes, not %d' % (len(out) - chain.zout, b0_raw))
        blk0 = out[chain.zout:]
        chain.zout = len(out)
    elif method == 1:
        blk0 = unzstd(src.take(src.varint()), b0_raw)
    else:
        need(method == 0, 'block 0 method')
        blk0 = src.take(b0_raw)
    d = Stream(blk0)
    stream_cnt = d.varint()
    need(stream_cnt >= 4 and (stream_cnt - 4) % 3 == 0, 'stream count')
    ncol = (stream_cnt - 4) // 3
    need(ncol <= 64, 'more than 64 columns')
    dirs = []
    for _ in range(stream_cnt):
        raw_len = d.varint()
        place = d.byte() if raw_len else None
        stored = d.varint() if place == 1 else None
        dirs.append((raw_len, place, stored))
    streams = [d.take(rl) if rl and pl == 0 else b'' for rl, pl, _ in dirs]
    need(d.done(), 'block 0 longer than its directory and inline streams')
    for i, (raw_len, place, stored) in enumerate(dirs):
        if raw_len and place == 1:
            streams[i] = unzstd(src.take(stored), raw_len)
        elif raw_len and place == 2:
            streams[i] = src.take(raw_len)
        else:
            need(not raw_len or place == 0, 'stream place')
    need(src.done(), 'own streams do not end with the data')
    s = [Stream(x) for x in streams]
    params, headers, other, new = s[0], s[1], s[2], s[3]
    keys, pred, bias = [], [0] * ncol, [0] * ncol
    if streams[0]:
        keys = [params.varint() for _ in range(params.varint())]
        need(len(keys) <= 2 and all(k < ncol for k in keys), 'key columns')
        for j in range(ncol):
            pred[j], bias[j] = params.varint(), unzz(params.varint())

    def residual(j):
        a_plane, b_plane, c_plane = s[4 + 3 * j], s[5 + 3 * j], s[6 + 3 * j]
        if not streams[4 + 3 * j]:
            return 0
        a = a_plane.byte()
        u = a & 0x7F
        if a & 0x80:
            b = b_plane.byte()
            u |= (b & 0x7F) << 7
            if b & 0x80:
                u |= c_plane.varint() << 14
        return u

    last, slots, out = [], [None] * 64, bytearray()
    if chain is not None and link:
        last, slots = chain.last, chain.slots
    for _ in range(record_cnt):
        rtype, misc, size = headers.varint(), headers.varint(), headers.varint() * 8
        out += struct.pack('<IHH', rtype, misc, size)
        if rtype != REC_SAMPLE:
            out += other.take(size - 8)
            continue
        n = size // 8 - 1
        m = min(n, ncol)
        word, delta = [0] * m, [0] * m
        for k in keys:
            if k < m:
                delta[k] = unzz(residual(k))
                word[k] = ((last[k] if k < len(last) else 0) + delta[k]) & M64
        kv = [word[k] if k < m else 0 for k in keys] + [0, 0]
        h = (((n * 0x9E3779B97F4A7C15 + kv[0]) & M64) * 0xC2B2AE3D27D4EB4F + kv[1]) & M64
        slot = ((h * 0x165667B19E3779F9) & M64) >> 58
        ctx = slots[slot]
        fresh = ctx is None or ctx[0] != (n, kv[0], kv[1])
        for j in range(m):
            if j in keys:
                continue
            if fresh:
                delta[j] = unzz(new.varint())
                word[j] = ((last[j] if j < len(last) else 0) + delta[j]) & M64
            else:
                delta[j] = (unzz(residual(j)) + bias[j] +
                            (delta[pred[j] - 1] if pred[j] else 0)) & M64
                word[j] = (ctx[1][j] + delta[j]) & M64
        out += struct.pack('<%dQ' % m, *word)
        rest = other.take(8 * (n - m))
        out += rest
        # A context keeps its sample's first min(n, 64) words: a later
        # frame of the chain may model more columns (section 6.2).
        whole = word + list(struct.unpack('<%dQ' % (n - m), rest))
        slots[slot] = ((n, kv[0], kv[1]), whole[:64])
        last = word
    need(all(x.done() for x in s), 'a stream is not used up')
    need(len(out) == raw_sz, 'codec 1 data gives %d bytes, not %d' % (len(out), raw_sz))
    if chain is not None:
        chain.last, chain.slots = last, slots
    return bytes(out)


def decode_dso_table(d):
    """Section 7.1 and its rules for damage: (entries used, those with a
    build-id, entries lost)."""
    if len(d) < 8 or u32(d, 0) > (len(d) - 8) // 32:
        return 0, 0, 1
    cnt, pos, used, bids, skipped = u32(d, 0), 8, 0, 0, 0
    for _ in range(cnt):
        if len(d) - pos < 24:
            return used, bids, cnt - used
        esz, plen, blen, status = u32(d, pos), u16(d, pos + 4), d[pos + 6], d[pos + 7]
        if esz % 8 or esz > len(d) - pos or esz < align8(24 + plen + blen):
            return used, bids, cnt - used
        path = d[pos + 24:pos + 24 + plen]
        pos += esz
        if not (1 <= plen <= 4096 and 0 not in path and blen <= 20 and
                (status == 0) == (blen > 0)):
            skipped += 1
            continue
        used += 1
        bids += status == 0
    return used, bids, skipped


def decode_archive(d):
    """Section 7.2: (objects, addresses, functions, inline frames, strings,
    data bytes, body bytes, stacks, samples with a stack, the entry count
    per frame of the stacks part or None without one), or None when the archive is damaged (used
    whole or not at all)."""
    try:
        need(len(d) >= 8, 'archive header')
        raw_sz, method = u32(d, 0), d[4]
        need(method <= 1 and raw_sz <= 32 << 20, 'archive method or size')
        if method == 0:
            need(len(d) - 8 == raw_sz, 'stored archive size')
            body = d[8:]
        else:
            body = unzstd(d[8:], raw_sz)
            need(len(body) == raw_sz, 'archive body size')
        s = Stream(body)
        str_cnt = s.varint()
        need(str_cnt <= (len(body) - s.o) // 2, 'string count')
        for _ in range(str_cnt):
            n = s.varint()
            need(1 <= n <= 65536 and 0 not in s.take(n), 'archive string')
        obj_cnt = s.varint()
        need(obj_cnt <= (len(body) - s.o) // 4, 'object count')
        counts = []
        for _ in range(obj_cnt):
            need(s.byte() <= 1, 'object kind')
            need(s.varint() < str_cnt, 'object path')
            blen = s.byte()
            need(blen <= 20, 'build-id length')
            s.take(blen)
            n = s.varint()
            need(n <= (len(body) - s.o) // 2, 'address count')
            counts.append(n)
        need(sum(counts) <= raw_sz // 2, 'addresses')

        def ref(opt):
            v = s.varint()
            need(v < str_cnt + opt, 'string index')

        def u32v():
            need(s.varint() < 1 << 32, 'a 32-bit field')

        funcs = frames = 0
        for n in counts:
            off = None
            for _ in range(n):
                delta = s.varint()
                if off is not None:
                    need(delta >= 1 and off + delta <= M64, 'address order')
                    off += delta
                else:
                    off = delta
                status = s.byte()
                need(status <= 1, 'answer status')
                if status == 1:
                    continue
                funcs += 1
                ref(0)
                s.varint()
                s.varint()
                ref(1)
                u32v()
                u32v()
                k = s.varint()
                need(k <= 256, 'inline frames')
                frames += k
                for _ in range(k):
                    ref(1)
                    ref(1)
                    u32v()
                    u32v()
        stacks = stack_samples = 0
        per_frame = None
        if not s.done():
            # The stacks part (7.2 "Stacks"): a table of distinct stacks,
            # then per frame of the file the stack of each sample record.
            stacks = s.varint()
            need(stacks <= (len(body) - s.o) // 2, 'stack count')
            for _ in range(stacks):
                n = s.varint()
                need(1 <= n <= 128, 'stack of %d pcs' % n)
                pc = s.varint()
                for _ in range(n - 1):
                    pc = (pc + unzz(s.varint())) & M64
            frame_cnt = s.varint()
            need(frame_cnt <= len(body) - s.o, 'stacks frame count')
            per_frame = []
            for _ in range(frame_cnt):
                n = s.varint()
                need(n <= len(body) - s.o, 'stack entries of a frame')
                ents = [s.varint() for _ in range(n)]
                need(all(k <= stacks for k in ents), 'stack entry above the table')
                stack_samples += sum(k != 0 for k in ents)
                per_frame.append(n)
        need(s.done(), 'bytes after the last answer or the stacks part')
        return (obj_cnt, sum(counts), funcs, frames, str_cnt, len(d), raw_sz, stacks,
                stack_samples, per_frame)
    except (Bad, subprocess.CalledProcessError):
        return None


def read(path):
    """Sections 2, 3, 5, 6, 7, 8, 9 and the scan of section 12."""
    b = open(path, 'rb').read()
    need(b[:8] == FILE_MAGIC, 'not a .tdr file')
    major, minor, hdr_sz = u16(b, 8), u16(b, 10), u32(b, 12)
    need(major == 1, 'major version %d' % major)
    need(u32(b, 28) == crc32c(b[:28]), 'file header CRC')

    def block(off):
        """(type, payload, payload_crc, end) of a complete block, else None."""
        if off + 24 > len(b) or b[off:off + 4] != b'TDBK':
            return None
        if u32(b, off + 20) != crc32c(b[off:off + 20]):
            return None
        psz = u64(b, off + 8)
        end = align8(off + 24 + psz)
        if end > len(b):
            return None
        return u16(b, off + 4), b[off + 24:off + 24 + psz], u32(b, off + 16), end

    blk = block(hdr_sz)
    need(blk and blk[0] == 1 and crc32c(blk[1]) == blk[2], 'metadata block')
    meta = decode_meta(blk[1])
    off, frames, totals, complete, dso, counted = blk[3], [], None, False, None, []
    archive = False  # not seen; None: damaged; else decode_archive's tuple
    while True:
        blk = block(off)
        if not blk:
            break
        btype, payload, pcrc, end = blk
        if btype == 2 and len(payload) >= 24 and u32(payload, 20) == crc32c(payload[:20]):
            frames.append((payload, pcrc))
        elif btype == 3 and dso is None and len(payload) >= 8 and u32(payload, 0) == 1:
            # The first DSO table; one whose CRC fails is not used at all.
            dso = decode_dso_table(payload[8:]) if crc32c(payload) == pcrc else (0, 0, 1)
        elif btype == 3 and archive is False and len(payload) >= 8 and u32(payload, 0) == 3:
            # The first ARCHIVE section (7.2); a failed CRC: not used.
            archive = decode_archive(payload[8:]) if crc32c(payload) == pcrc else None
        elif btype == 4 and crc32c(payload) == pcrc:
            items = list(tlv(payload))
            tags = [tag for tag, _ in items]
            items = dict(items)
            if 1 in items:
                totals = struct.unpack('<9Q', items[1])
            need(tags.count(6) <= 1, 'two COUNTED items')
            counted = decode_counted(items[6]) if 6 in items else []
            foot = b[end:end + 24]
            if (len(foot) == 24 and foot[16:] == FOOTER_MAGIC and
                    u32(foot, 12) == crc32c(foot[:12]) and u64(foot, 0) == off):
                off = end + 24
                complete = off == len(b)
                break
        off = end
    r = {'version': '%d.%d' % (major, minor), 'meta': meta, 'frames': len(frames),
         'truncated': not complete, 'totals': totals, 'records': 0, 'samples': 0,
         'lost_records': 0, 'lost_samples': 0, 'lost_samples_pmu': 0, 'throttles': 0,
         'unthrottles': 0, 'raw_bytes': 0, 'comp_bytes': 0, 'first_words': [], 'damaged': 0,
         'raw': bytearray(), 'dso': dso or (0, 0, 0), 'counted': counted,
         'archive': archive, 'frame_samples': []}
    chains = {}
    for payload, pcrc in frames:
        codec, raw_sz, comp_sz, cnt = payload[0], u32(payload, 8), u32(payload, 12), \
            u32(payload, 16)
        need(comp_sz == len(payload) - 24, 'comp_sz')
        r['raw_bytes'] += raw_sz
        r['comp_bytes'] += comp_sz
        r['frame_samples'].append(None)  # its sample records, once decoded
        if crc32c(payload) != pcrc:
            r['damaged'] += 1  # tdrec skips it too
            if codec == 2:
                chains.pop(u32(payload, 4), None)  # and the rest of its chain
            continue
        data = payload[24:]
        if codec == 2:
            # Section 6.2: link 0 starts a chain; link k continues the
            # ring's previous codec 2 frame, which must have link k - 1
            # and have decoded. A broken chain costs its frames.
            ring, link = u32(payload, 4), payload[1] | payload[2] << 8 | payload[3] << 16
            chain = chains.get(ring)
            if link == 0:
                chain = chains[ring] = Chain()
            elif chain is None or chain.link != link - 1:
                chains.pop(ring, None)
                r['damaged'] += 1
                continue
            try:
                raw = decode_columns(data, raw_sz, cnt, chain, link)
            except Bad:
                chains.pop(ring, None)
                raise
            chain.link = link
        else:
            need(codec <= 1, 'codec %d' % codec)
            raw = unzstd(data, raw_sz) if codec == 0 else decode_columns(data, raw_sz, cnt)
        r['raw'] += raw
        o = n = 0
        samples_before = r['samples']
        while o < len(raw):
            need(o + 8 <= len(raw), 'record header past the end')
            rtype, _, size = struct.unpack_from('<IHH', raw, o)
            need(size >= 8 and size % 8 == 0 and o + size <= len(raw), 'record size')
            if rtype == REC_SAMPLE:
                r['samples'] += 1
                if size >= 16:
                    r['first_words'].append(u64(raw, o + 8))
            elif rtype == REC_LOST:
                r['lost_records'] += 1
                r['lost_samples'] += u64(raw, o + 16)
            elif rtype == REC_LOST_SAMPLES:
                r['lost_samples_pmu'] += u64(raw, o + 8)
            r['throttles'] += rtype == REC_THROTTLE
            r['unthrottles'] += rtype == REC_UNTHROTTLE
            o += size
            n += 1
        need(n == cnt, '%d records, frame header says %d' % (n, cnt))
        r['frame_samples'][-1] = r['samples'] - samples_before
        r['records'] += n
    return r


def check(tdrec, dump_frames, arg):
    path, _, opt = arg.partition(':')
    r = read(path)
    theirs = subprocess.run([dump_frames, path], capture_output=True, check=True).stdout
    need(theirs == r['raw'], 'decoded records differ from tdrec\'s (%d and %d bytes)' %
         (len(r['raw']), len(theirs)))
    if r['totals'] and not r['truncated'] and not r['damaged']:
        mine = (r['frames'], r['records'], r['samples'], r['lost_records'], r['lost_samples'],
                r['throttles'], r['unthrottles'], r['raw_bytes'], r['comp_bytes'])
        need(tuple(r['totals']) == mine, 'trailer TOTALS %s, records say %s' % (r['totals'], mine))
    cats = r['meta']['categories']
    for c in cats:
        ws = [w for f in c['parts'] for _, _, wn, wd in f for w in wn + wd]
        for t in (c['num'] + c['den'] + [x for f in c['parts'] for n, d, _, _ in f for x in n + d]
                  + [(w[0], 1) for w in ws] + [x for w in ws for x in w[2] + w[3]]):
            need(t[0] < len(r['meta']['events']), 'category %s names event %d' % (c['name'], t[0]))
    products = any(c['parts'] for c in cats)
    weighted = any(c['weighted'] for c in cats)
    minor = int(r['version'].split('.')[1])
    # Section 2: minor 3 exactly when a category uses the product form, 4
    # when an archive may follow (with or without products), 5 exactly
    # when a category has weighted terms (with or without either).
    need(weighted == (minor == 5), 'version %s with%s weighted categories' %
         (r['version'], '' if weighted else 'out'))
    need(products == (minor == 3) or minor in (4, 5), 'version %s with%s product categories' %
         (r['version'], '' if products else 'out'))
    need(r['archive'] is False or minor in (4, 5), 'an archive in a file of minor %d' % minor)
    if opt == 'skx-weighted':
        # tests/format/test_weighted.c writes Skylake-SP's memory bound and
        # core bound over ten events (W = 4): its hand values, 2/15 and 1/6.
        sums = [1000, 1800, 1600, 800, 50, 300, 100, 500, 200, 250]
        got = {c['name']: category_value(c, sums) for c in cats}
        need(set(got) == {'mem-bound', 'core-bound'}, 'categories %s' % sorted(got))
        need(abs(got['mem-bound'] - 2 / 15) < 1e-9, 'mem-bound = %r' % got['mem-bound'])
        need(abs(got['core-bound'] - 1 / 6) < 1e-9, 'core-bound = %r' % got['core-bound'])
        # A reader of 1.4 skips the WPART items: a category without terms,
        # so no value, never a wrong one.
        old = [decode_category(v, old=True) for v in r['meta']['category_items']]
        need(all(category_value(c, sums) is None for c in old), 'an old reader reads a value')
    if opt == 'arm-v2':
        # tests/format/test_products.c writes Neoverse V2's formulas: the
        # hand values of docs/plans.md "Arm Neoverse" on these sums.
        sums = [1000, 2000, 2400, 4800, 600, 800, 10]
        want = {'retiring': 0.3, 'bad-spec': 0.14, 'fe-bound': 0.24, 'be-bound': 0.27}
        got = {c['name']: category_value(c, sums) for c in cats}
        need(set(got) == set(want), 'categories %s' % sorted(got))
        for k, v in want.items():
            need(abs(got[k] - v) < 1e-9, '%s = %r, by hand %r' % (k, got[k], v))
    if opt == 'ids':
        ids = {i for ev in r['meta']['events'] for i in ev['ids']}
        need(all(u64(ev['attr'], 24) & PERF_SAMPLE_IDENTIFIER for ev in r['meta']['events']),
             'events without PERF_SAMPLE_IDENTIFIER')
        need(r['samples'] > 0 and ids, 'no samples or no ids to check')
        bad = [w for w in r['first_words'] if w not in ids]
        need(not bad, '%d samples carry an id the metadata does not list' % len(bad))
    info = json.loads(subprocess.run([tdrec, 'info', '--json', path], capture_output=True,
                                     check=True).stdout)
    want = {'format_version': r['version'], 'plan': r['meta']['plan'],
            'events': [ev['name'] for ev in r['meta']['events']], 'frames': r['frames'],
            'records': r['records'], 'truncated': r['truncated'],
            'lost_samples': r['lost_samples'] + r['lost_samples_pmu']}
    for key, value in want.items():
        need(info.get(key) == value, '%s: tdrec info says %r, this reader %r' %
             (key, info.get(key), value))
    for i, ev in enumerate(info['event_totals']):
        mine = r['counted'][i] if i < len(r['counted']) else None
        theirs = tuple(ev[k] for k in ('counted', 'counted_time_enabled_ns',
                                       'counted_time_running_ns'))
        need(theirs == (mine or (None, None, None)),
             'event %d counted: tdrec info says %s, this reader %s' % (i, theirs, mine))
    theirs = tuple(info['parse'][k] for k in ('dso_entries', 'dso_build_ids', 'dso_damaged'))
    need(theirs == r['dso'], 'DSO table: tdrec info says %s, this reader %s' % (theirs, r['dso']))
    a = info.get('archive')
    keys = ('objects', 'addresses', 'functions', 'inline_frames', 'strings', 'bytes',
            'body_bytes', 'stacks', 'stack_samples')
    if r['archive'] is False:
        need(a is None, 'archive: tdrec info says %s, this reader none' % a)
    elif r['archive'] is None:
        need(a is not None and a.get('damaged') is True,
             'archive: tdrec info says %s, this reader damaged' % a)
    else:
        theirs = tuple(a.get(k) for k in keys) if a else None
        need(a is not None and a.get('damaged') is False and theirs == r['archive'][:-1],
             'archive: tdrec info says %s, this reader %s' % (theirs, r['archive'][:-1]))
        per_frame = r['archive'][-1]
        if per_frame is not None and not r['truncated']:
            # Made for this file's frames: one entry list per frame, no
            # more entries than the frame has sample records.
            need(len(per_frame) == r['frames'], 'stacks for %d frames, the file has %d' %
                 (len(per_frame), r['frames']))
            for f, (n, have) in enumerate(zip(per_frame, r['frame_samples'])):
                need(have is None or n <= have, 'frame %d: %d stack entries, %d samples' %
                     (f, n, have))
    return '%s: %s, %d frames, %d records, %d samples, %d categories%s%s' % (
        path, r['version'], r['frames'], r['records'], r['samples'], len(cats),
        ', %d counted totals' % sum(c is not None for c in r['counted']) if r['counted'] else '',
        ', truncated' if r['truncated'] else '')


def main():
    if len(sys.argv) < 4:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    failed = 0
    for arg in sys.argv[3:]:
        try:
            print(check(sys.argv[1], sys.argv[2], arg))
        except (Bad, struct.error, subprocess.CalledProcessError, ValueError) as e:
            print('%s: FAILED: %s' % (arg, e))
            failed += 1
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
