"""N MCP clients of one repository: one shared server against N in-process servers.

    python3 benches/shared/run.py REPO        (CODEGRAPH=path to the binary; SHARED_CLIENTS=1,3,10;
                                               SHARED_TOOL, SHARED_ARGUMENTS: the question asked,
                                               default query_codebase {"query": "parse"})

For each N, in each mode, N `codegraph mcp --repo REPO` clients are started one after another,
each once the one before has answered; each sends initialize and one tools/call
(query_codebase), and its time to first answer is measured from its start. Once all N have
answered and 3 s more have passed (at rest: each process has returned what its index freed),
the memory of every codegraph process of the run is read from /proc: resident (RSS)
and proportional (PSS: a page shared by k processes counts 1/k in each, so the binary's pages
that every client maps count once). Then the clients close (and the shared server is stopped).

- `in-process`: `codegraph mcp --no-attach`: each client indexes and serves the repository
  itself, from the warm cache (the run indexes REPO once first).
- `shared`: `codegraph mcp` (the default): the first client starts the shared server and
  attaches, the later ones attach to it. Their processes are relays; the server is counted too.

Prints a table and the issue's targets with a verdict: 10 clients' total memory <= 1.2x one
in-process server's; the second and later clients' first answer <= 300 ms.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BINARY = os.environ.get("CODEGRAPH", "/work/sweep-build/target/release/codegraph")
CLIENTS = [int(count) for count in os.environ.get("SHARED_CLIENTS", "1,3,10").split(",")]
# Seconds between the last client's answer and reading the memory of every process.
SETTLE = 3

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
# The first question each client asks: `SHARED_TOOL` with `SHARED_ARGUMENTS` (JSON).
QUERY = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {
        "name": os.environ.get("SHARED_TOOL", "query_codebase"),
        "arguments": json.loads(os.environ.get("SHARED_ARGUMENTS", '{"query": "parse"}')),
    },
}


def start_client(repo: Path, environment: dict, in_process: bool) -> tuple[subprocess.Popen, float]:
    """A client started and answered once: the process and its time to the first answer (s)."""
    arguments = [BINARY, "mcp", "--repo", str(repo)] + (["--no-attach"] if in_process else [])
    began = time.perf_counter()
    process = subprocess.Popen(
        arguments,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=environment,
    )
    assert process.stdin and process.stdout
    for message in (INITIALIZE, INITIALIZED, QUERY):
        process.stdin.write((json.dumps(message) + "\n").encode())
    process.stdin.flush()
    while True:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"client {process.pid} ended before answering")
        answer = json.loads(line)
        if answer.get("id") == 2:
            if "error" in answer or answer["result"].get("isError"):
                raise RuntimeError(f"query failed: {line[:300]!r}")
            return process, time.perf_counter() - began


def memory(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of a process, in bytes."""
    rss = pss = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) * 1024
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            pss = int(line.split()[1]) * 1024
    return rss, pss


def shared_server_pids(runtime_dir: Path) -> list[int]:
    return [
        json.loads(entry.read_text())["pid"]
        for entry in sorted((runtime_dir / "codegraph").glob("*.json"))
    ]


def measure(roots: list[Path], shared: bool) -> dict:
    """One client per root, started one after another, in a private runtime directory: each
    one's time to its first answer, and the memory of every process of the run (the clients and
    the shared servers) once all have answered. The clients are closed and the servers stopped."""
    with tempfile.TemporaryDirectory() as runtime_dir:
        environment = dict(os.environ, XDG_RUNTIME_DIR=runtime_dir, CODEGRAPH_IDLE_EXIT="30")
        environment.pop("CODEGRAPH_NO_DAEMON", None)
        clients, times = [], []
        try:
            for root in roots:
                process, seconds = start_client(root, environment, not shared)
                clients.append(process)
                times.append(seconds)
            servers = sorted(set(shared_server_pids(Path(runtime_dir)))) if shared else []
            # At rest: every process has returned to the system what its index freed
            # (codegraph trims once its graph has not changed for a second).
            time.sleep(SETTLE)
            measured = [memory(pid) for pid in [client.pid for client in clients] + servers]
        finally:
            for client in clients:
                if client.stdin:
                    client.stdin.close()
            for client in clients:
                try:
                    client.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    client.kill()
            if shared:
                subprocess.run(
                    [BINARY, "stop", "--all"], env=environment, stdout=subprocess.DEVNULL, check=False
                )
        return {
            "first": times[0],
            "later": times[1:],
            "rss": sum(rss for rss, _ in measured),
            "pss": sum(pss for _, pss in measured),
            "processes": len(measured),
        }


def run(repo: Path, count: int, in_process: bool) -> dict:
    return {
        "clients": count,
        "mode": "in-process" if in_process else "shared",
        **measure([repo] * count, shared=not in_process),
    }


def megabytes(size: int) -> str:
    return f"{size / 2**20:,.0f} MB"


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    repo = Path(sys.argv[1]).resolve()
    version = subprocess.run([BINARY, "--version"], capture_output=True, text=True).stdout.strip()
    began = time.perf_counter()
    subprocess.run([BINARY, "index", "--repo", str(repo)], check=True, stdout=subprocess.DEVNULL)
    print(f"{version}; {repo}; warm cache written in {time.perf_counter() - began:.1f} s")
    rows = [run(repo, count, in_process) for count in CLIENTS for in_process in (True, False)]
    one = next(row for row in rows if row["mode"] == "in-process" and row["clients"] == 1)
    print()
    print("| clients | mode | processes | first client's first answer | later clients' (median / max) | total RSS | total PSS | PSS ÷ one in-process server's |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        later = (
            f"{statistics.median(row['later']) * 1000:,.0f} / {max(row['later']) * 1000:,.0f} ms"
            if row["later"]
            else "-"
        )
        print(
            f"| {row['clients']} | {row['mode']} | {row['processes']} | {row['first'] * 1000:,.0f} ms | {later} | "
            f"{megabytes(row['rss'])} | {megabytes(row['pss'])} | {row['pss'] / one['pss']:.2f} |"
        )
    print()
    largest = max(CLIENTS)
    shared = next(row for row in rows if row["mode"] == "shared" and row["clients"] == largest)
    ratio_pss = shared["pss"] / one["pss"]
    ratio_rss = shared["rss"] / one["rss"]
    later = [seconds for row in rows if row["mode"] == "shared" for seconds in row["later"]]
    print(
        f"target: {largest} clients' total memory <= 1.2x one server's: PSS {ratio_pss:.2f}x, "
        f"RSS {ratio_rss:.2f}x: {'met' if ratio_pss <= 1.2 else 'missed'} (PSS), "
        f"{'met' if ratio_rss <= 1.2 else 'missed'} (RSS)"
    )
    if later:
        print(
            f"target: later clients' first answer <= 300 ms: max {max(later) * 1000:,.0f} ms: "
            f"{'met' if max(later) <= 0.3 else 'missed'}"
        )


if __name__ == "__main__":
    main()
