#!/usr/bin/env python3
"""Peer baselines: "automerge-paper typed, one commit per keystroke" for Loro and Yrs.

For each library this script
  1. replays the trace into a fresh document, one commit/transaction per trace
     transaction (automerge-paper has exactly one patch per transaction), and checks
     the final text against endContent;
  2. exports the WHOLE history as one update (Loro: ExportMode.Updates from the empty
     version vector, not a shallow snapshot; Yrs: Doc.get_update() from the empty
     state) and reports its size raw and zlib-deflated (level 6);
  3. in a FRESH child process, imports that file into a new empty document and reads
     the text back, 7 times (a new document each time), timing only import + text read
     with time.perf_counter; the median is reported as import_ms.
It prints one JSON line per library.

Run:  pip install loro pycrdt
      python3 Benchmarks/peers/keystroke_history.py [trace.json.gz]
Default trace: ../shared/traces/sequential/automerge-paper.json.gz (from the repository root)
(Joseph Gentle's editing-trace format; positions are Unicode code points).
Only the standard library plus the `loro` and `pycrdt` (Yrs binding) packages are used.
"""
import gzip, json, os, statistics, subprocess, sys, tempfile, time, zlib
from importlib.metadata import version

DEFAULT_TRACE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/traces/sequential/automerge-paper.json.gz")
RUNS = 7


def build_loro(trace):
    from loro import ExportMode, LoroDoc, VersionVector
    doc = LoroDoc()
    text = doc.get_text("text")
    for txn in trace["txns"]:
        for pos, ndel, ins in txn["patches"]:
            if ndel:
                text.delete(pos, ndel)
            if ins:
                text.insert(pos, ins)  # Loro's Python insert/delete take code-point offsets
        doc.commit()
    return text.to_string(), doc.export(ExportMode.Updates(VersionVector()))


class NonASCIITrace(Exception):
    """A trace a peer's binding cannot replay as it is."""


def build_yrs(trace):
    from pycrdt import Doc, Text
    # pycrdt (Yrs default OffsetKind) indexes text by UTF-8 byte, the trace by code
    # point: identical only for ASCII, so refuse anything else rather than convert.
    if not (trace["endContent"].isascii() and all(p[2].isascii() for t in trace["txns"] for p in t["patches"])):
        raise NonASCIITrace("pycrdt indexes by UTF-8 byte and this trace by code point: ASCII traces only")
    doc = Doc()
    text = doc.get("text", type=Text)
    for txn in trace["txns"]:
        with doc.transaction():
            for pos, ndel, ins in txn["patches"]:
                if ndel:
                    del text[pos:pos + ndel]
                if ins:
                    text.insert(pos, ins)
    return str(text), doc.get_update()


def load_loro(data):
    from loro import LoroDoc
    doc = LoroDoc()
    doc.import_(data)
    return doc.get_text("text").to_string()


def load_yrs(data):
    from pycrdt import Doc, Text
    doc = Doc()
    doc.apply_update(data)
    return str(doc.get("text", type=Text))


PEERS = {"loro": ("loro", build_loro, load_loro), "yrs": ("pycrdt", build_yrs, load_yrs)}


def child(peer, path, trace_path):
    """Runs in a fresh interpreter: time import + text read, RUNS times."""
    load = PEERS[peer][2]
    with open(path, "rb") as f:
        data = f.read()
    end = json.load(gzip.open(trace_path))["endContent"]
    times, ok = [], True
    for _ in range(RUNS):
        t0 = time.perf_counter()
        s = load(data)
        times.append((time.perf_counter() - t0) * 1000)
        ok = ok and s == end
    print(json.dumps({"import_ms": statistics.median(times), "correct": ok}))


def main(trace_path):
    trace = json.load(gzip.open(trace_path))
    for peer, (pkg, build, _) in PEERS.items():
        try:
            final, data = build(trace)
        except NonASCIITrace as refusal:
            print(json.dumps({"peer": peer, "version": version(pkg), "skipped": str(refusal)}), flush=True)
            continue
        with tempfile.NamedTemporaryFile(suffix=f".{peer}", delete=False) as f:
            f.write(data)
        try:
            out = subprocess.run([sys.executable, __file__, "--child", peer, f.name, trace_path],
                                 check=True, capture_output=True, text=True).stdout
            res = json.loads(out)
        finally:
            os.unlink(f.name)
        print(json.dumps({
            "peer": peer, "version": version(pkg),
            "delta_bytes": len(data), "delta_deflated_bytes": len(zlib.compress(data, 6)),
            "import_ms": round(res["import_ms"], 3),
            "correct": final == trace["endContent"] and res["correct"]}), flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(*sys.argv[2:5])
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_TRACE)
