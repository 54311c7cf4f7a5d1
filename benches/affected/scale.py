#!/usr/bin/env python3
"""How long `codegraph affected` takes on a large repository, from the command line (warm
cache) and through MCP on a live server, next to its floor measured in the same run: git
listing the same change (`git diff --name-only` plus `git ls-files --others`).

    python3 benches/affected/scale.py REPO [--functions 10] [--seed 1] [--runs 5]

REPO must be a git work tree with a clean state; ten functions of production files are edited
(a statement added as the first line of the body), measured, and the edit undone. Python files
only (the edit is Python syntax). Standard library only; `CODEGRAPH` names the binary.
"""

import argparse
import ast
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

BINARY = os.environ.get("CODEGRAPH", "target/release/codegraph")


def production_functions(repo: Path, rng: random.Random, count: int) -> list[tuple[Path, int, str]]:
    files = subprocess.run(["git", "-C", str(repo), "ls-files", "*.py"], capture_output=True, text=True, check=True).stdout.split()
    files = [name for name in files if "test" not in name.lower() and "/doc" not in name]
    rng.shuffle(files)
    picked: list[tuple[Path, int, str]] = []
    for name in files:
        path = repo / name
        try:
            tree = ast.parse(path.read_text())
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        functions = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.body]
        if not functions:
            continue
        function = rng.choice(functions)
        first = function.body[0]
        if isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant) and len(function.body) > 1:
            first = function.body[1]
        picked.append((path, first.lineno, function.name))
        if len(picked) == count:
            break
    return picked


def edit(functions: list[tuple[Path, int, str]]) -> None:
    for path, line, _ in functions:
        lines = path.read_text().split("\n")
        body = lines[line - 1]
        indent = body[: len(body) - len(body.lstrip())]
        lines.insert(line - 1, f"{indent}_codegraph_bench = None")
        path.write_text("\n".join(lines))


def timed(command: list[str], cwd: Path | None = None) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed: {done.stderr}")
    return elapsed, done.stdout


class Mcp:
    """A minimal MCP client over stdio (newline-delimited JSON-RPC)."""

    def __init__(self, repo: Path):
        self.process = subprocess.Popen(
            [BINARY, "serve", "--repo", str(repo)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.next_id = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        assert self.process.stdin
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def call(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.process.stdout
        while True:
            line = self.process.stdout.readline()
            if not line:
                sys.exit("the server closed its output")
            message = json.loads(line)
            if message.get("id") == self.next_id:
                if "error" in message:
                    sys.exit(f"{method}: {message['error']}")
                return message["result"]

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("repo", type=Path)
    parser.add_argument("--functions", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    repo = arguments.repo.resolve()
    status = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, check=True)
    if status.stdout.strip():
        sys.exit(f"{repo}: the work tree has changes; the benchmark edits it and must restore it")
    lines = sum(
        (repo / name).read_bytes().count(b"\n")
        for name in subprocess.run(["git", "-C", str(repo), "ls-files"], capture_output=True, text=True, check=True).stdout.split()
        if (repo / name).is_file()
    )
    functions = production_functions(repo, random.Random(arguments.seed), arguments.functions)
    index_time, _ = timed([BINARY, "index", "--repo", str(repo)])
    edit(functions)
    try:
        floors, cli, sizes = [], [], None
        for _ in range(arguments.runs):
            diff, _ = timed(["git", "-C", str(repo), "diff", "--name-only", "HEAD"])
            others, _ = timed(["git", "-C", str(repo), "ls-files", "--others", "--exclude-standard"])
            floors.append(diff + others)
            elapsed, out = timed([BINARY, "affected", "--repo", str(repo), "--json"])
            cli.append(elapsed)
            answer = json.loads(out)
            sizes = (len(answer["changed"]), len(answer["affected"]), len(answer["tests"]), answer["provenance"]["elapsed_ms"])
        server = Mcp(repo)
        try:
            mcp = []
            for _ in range(arguments.runs):
                started = time.perf_counter()
                result = server.call("tools/call", {"name": "find_affected_tests", "arguments": {"limit": 5000}})
                mcp.append(time.perf_counter() - started)
                assert not result.get("isError"), result
        finally:
            server.close()
    finally:
        subprocess.run(["git", "-C", str(repo), "checkout", "-q", "--", "."], check=True)
    floor = statistics.median(floors)
    print(f"repository: {repo.name}, {lines:,} lines in git; {len(functions)} functions edited; first index {index_time:.1f} s")
    print(f"changed {sizes[0]}, affected {sizes[1]}, tests {sizes[2]}; in-process time {sizes[3]} ms")
    print("| what | median | best | ratio to the floor |")
    print("|---|---|---|---|")
    print(f"| floor: git diff + ls-files | {floor * 1000:.0f} ms | {min(floors) * 1000:.0f} ms | 1.0 |")
    print(f"| `codegraph affected --json`, warm cache (process) | {statistics.median(cli) * 1000:.0f} ms | {min(cli) * 1000:.0f} ms | {statistics.median(cli) / floor:.1f} |")
    print(f"| `find_affected_tests` through MCP, live server | {statistics.median(mcp) * 1000:.0f} ms | {min(mcp) * 1000:.0f} ms | {statistics.median(mcp) / floor:.1f} |")


if __name__ == "__main__":
    main()
