#!/usr/bin/env python3
"""Edit -> textDocument/diagnostic latency through the real server (`codegraph lsp --stdio`) over pipes.

usage: benches/rules_lsp_latency.py BINARY ROOT FILE ITERATIONS
       (ROOT holds .codegraph/rules.toml with a rule named orm-knows-no-http forbidding
        django/db/** -> django/http/**;
        FILE is under django/db/). With a fifth argument METHOD (e.g. textDocument/documentSymbol)
        the same edits are followed by METHOD instead, unchecked: the floor.
"""
import json, subprocess, sys, time, os
binary, root, rel = sys.argv[1], sys.argv[2], sys.argv[3]
proc = subprocess.Popen([binary, "lsp", "--stdio", "--no-cache", "--no-mcp-socket"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def send(msg):
    body = json.dumps(msg).encode()
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body); proc.stdin.flush()
def read():
    length = None
    while True:
        line = proc.stdout.readline()
        if line in (b"\r\n", b"\n"): break
        if line.lower().startswith(b"content-length:"): length = int(line.split(b":")[1])
    return json.loads(proc.stdout.read(length))
next_id = [0]
def request(method, params):
    next_id[0] += 1; i = next_id[0]
    send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
    while True:
        m = read()
        if "method" in m and "id" in m:
            send({"jsonrpc": "2.0", "id": m["id"], "result": None}); continue
        if m.get("id") == i and "method" not in m: return m
def notify(method, params): send({"jsonrpc": "2.0", "method": method, "params": params})
uri = "file://" + os.path.join(root, rel)
request("initialize", {"processId": None, "rootUri": "file://" + root, "capabilities": {"window": {"workDoneProgress": True}, "textDocument": {"diagnostic": {}}}, "workspaceFolders": [{"uri": "file://" + root, "name": "d"}]})
notify("initialized", {})
start = time.time()
while True:  # wait for the index to end
    m = read()
    if "method" in m and "id" in m: send({"jsonrpc": "2.0", "id": m["id"], "result": None})
    if m.get("method") == "$/progress" and m["params"]["value"].get("kind") == "end": break
print(f"indexed in {time.time()-start:.1f} s")
text = open(os.path.join(root, rel)).read()
notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
t = time.time(); first = request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
print(f"first diagnostic (every file checked) {1000*(time.time()-t):.0f} ms, {len(first['result']['items'])} items")
METHOD = sys.argv[5] if len(sys.argv) > 5 else "textDocument/diagnostic"
imp = "from django.http import HttpResponse as CodegraphBenchResponse\n"
version = 1; added = []; removed = []
for i in range(int(sys.argv[4])):
    version += 1; t = time.perf_counter()
    notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": imp}]})
    r = request(METHOD, {"textDocument": {"uri": uri}})
    added.append(time.perf_counter() - t)
    checked = METHOD == "textDocument/diagnostic"
    if checked:
        codes = [d["code"] for d in r["result"]["items"] if d["range"]["start"]["line"] == 0]
        assert "orm-knows-no-http" in codes, codes
    version += 1; t = time.perf_counter()
    notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}, "text": ""}]})
    r = request(METHOD, {"textDocument": {"uri": uri}})
    removed.append(time.perf_counter() - t)
    if checked:
        assert not any(d["code"] == "orm-knows-no-http" and d["range"]["start"]["line"] == 0 for d in r["result"]["items"])
def pct(xs, p): xs = sorted(xs); return 1000 * xs[min(len(xs)-1, round((len(xs)-1)*p))]
print(f"import added -> diagnostic: p50 {pct(added,.5):.2f} ms p99 {pct(added,.99):.2f} ms max {1000*max(added):.2f}")
print(f"import removed -> cleared:  p50 {pct(removed,.5):.2f} ms p99 {pct(removed,.99):.2f} ms max {1000*max(removed):.2f}")
request("shutdown", None); notify("exit", None); proc.wait(timeout=10)
