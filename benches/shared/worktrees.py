"""W worktrees of one repository at nearby commits: one shared server against W separate ones.

    python3 benches/shared/worktrees.py SOURCE [WORK]
        (CODEGRAPH=path to the binary; SHARED_WORKTREES=1,5,20; SHARED_TOOL and
         SHARED_ARGUMENTS as run.py takes them)

SOURCE is a directory of code (for example `bench-corpus/pypi/Django-5.1.4`). The script makes
WORK/repo (default: a temporary directory) a git repository of it, then one commit per
worktree, each appending a function to three files of the commit before (nearby commits), and
`git worktree add --detach` of each commit.

For each W, in each mode, one `codegraph mcp --repo WORKTREE` client per worktree is started,
one after another, each sending initialize and one tools/call (query_codebase); then, at rest
(3 s after the last answer), the memory of every codegraph process of the run (RSS and PSS, as
`run.py` reads them) and the size of every cache written under the worktrees are measured. No
worktree has a cache when a run starts.

- `separate`: `codegraph mcp --no-attach`: each client indexes its worktree itself and writes
  its own cache, as W servers of W unrelated checkouts would.
- `shared`: `codegraph mcp` (the default): the first client starts the shared server of its
  worktree; every later one asks it to serve its worktree too, derived from the first's graph.

Prints a table and the issue's target with a verdict: 20 worktrees' total memory and cache <=
2x one worktree's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from run import BINARY, measure, megabytes

WORKTREES = [int(count) for count in os.environ.get("SHARED_WORKTREES", "1,5,20").split(",")]
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "commit.gpgsign=false"]


def git(repo: Path, *arguments: str) -> str:
    return subprocess.run(
        [*GIT, "-C", str(repo), *arguments], check=True, capture_output=True, text=True
    ).stdout.strip()


def make_repository(source: Path, work: Path, count: int) -> list[Path]:
    """WORK/repo from SOURCE with `count` nearby commits; a detached worktree of each."""
    repo = work / "repo"
    shutil.copytree(source, repo, ignore=shutil.ignore_patterns(".codegraph", ".git"))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    python = sorted(path for path in repo.rglob("*.py") if path.stat().st_size > 2000)
    worktrees = []
    for number in range(count):
        for file in python[number * 3 : number * 3 + 3]:
            with file.open("a") as out:
                out.write(f"\n\ndef bench_change_{number}():\n    return {number}\n")
        git(repo, "commit", "-qam", f"change {number}")
        worktree = work / f"worktree-{number}"
        git(repo, "worktree", "add", "-q", "--detach", str(worktree), "HEAD")
        worktrees.append(worktree)
    return worktrees


def cache_bytes(worktrees: list[Path]) -> int:
    total = 0
    for worktree in worktrees:
        cache = worktree / ".codegraph"
        if cache.is_dir():
            total += sum(path.stat().st_size for path in cache.rglob("*") if path.is_file())
    return total


def run(worktrees: list[Path], shared: bool) -> dict:
    for worktree in worktrees:
        shutil.rmtree(worktree / ".codegraph", ignore_errors=True)
    measured = measure(worktrees, shared)
    return {
        "worktrees": len(worktrees),
        "mode": "shared" if shared else "separate",
        **measured,
        "cache": cache_bytes(worktrees),
    }


def main() -> None:
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    source = Path(sys.argv[1]).resolve()
    work = Path(sys.argv[2]) if len(sys.argv) == 3 else Path(tempfile.mkdtemp(prefix="worktrees-"))
    worktrees = make_repository(source, work, max(WORKTREES))
    listed = git(work / "repo", "ls-files").splitlines()
    lines = sum(
        (work / "repo" / name).read_bytes().count(b"\n") for name in listed if (work / "repo" / name).is_file()
    )
    version = subprocess.run([BINARY, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{version}; {source} ({lines:,} lines in git); {max(WORKTREES)} worktrees in {work}")
    rows = []
    for count in WORKTREES:
        for shared in (False, True):
            began = time.perf_counter()
            rows.append(run(worktrees[:count], shared))
            rows[-1]["wall"] = time.perf_counter() - began
    one = next(row for row in rows if row["mode"] == "separate" and row["worktrees"] == 1)
    print()
    print("| worktrees | mode | first client's first answer | later clients' (median / max) | total PSS (RSS) | caches | PSS ÷ one worktree's | cache ÷ one worktree's |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        later = sorted(row["later"])
        later_text = (
            f"{later[len(later) // 2] * 1000:,.0f} / {later[-1] * 1000:,.0f} ms" if later else "-"
        )
        print(
            f"| {row['worktrees']} | {row['mode']} | {row['first'] * 1000:,.0f} ms | {later_text} | "
            f"{megabytes(row['pss'])} ({megabytes(row['rss'])}) | {megabytes(row['cache'])} | "
            f"{row['pss'] / one['pss']:.2f} | {row['cache'] / max(one['cache'], 1):.2f} |"
        )
    largest = max(WORKTREES)
    shared = next(row for row in rows if row["mode"] == "shared" and row["worktrees"] == largest)
    memory_ratio = shared["pss"] / one["pss"]
    cache_ratio = shared["cache"] / max(one["cache"], 1)
    verdict = "met" if memory_ratio <= 2 and cache_ratio <= 2 else "missed"
    print()
    print(
        f"target: {largest} worktrees' total memory and cache <= 2x one worktree's: "
        f"memory {memory_ratio:.2f}x (PSS), cache {cache_ratio:.2f}x: {verdict}"
    )


if __name__ == "__main__":
    main()
