#!/usr/bin/env python3
"""The crash sweep: `codegraph index` on every package of the sweep corpus, one at a time, each
under a time limit and a memory limit, and what went wrong.

    python3 benches/sweep/run.py [--corpus DIR] [--results DIR] [--binary PATH]
                                 [--timeout SECONDS] [--memory GIB] [--only SUBSTRING]...
                                 [--jobs N] [--resume] [--smallest-first] [--slow-files SECONDS]
                                 [--no-slow-files]
    python3 benches/sweep/run.py --summary [--results DIR]
    python3 benches/sweep/run.py --bisect PACKAGE_DIR [--results DIR]

DIR defaults: the corpus /work/sweep-corpus ($CODEGRAPH_SWEEP_CORPUS), the results
/work/sweep-results ($CODEGRAPH_SWEEP_RESULTS); the binary target/release/codegraph.

Each package is indexed with `codegraph index --no-cache --json DIR` (nothing is written into
the corpus), RAYON_NUM_THREADS=1 (the sweep shares a small machine; run it under `nice`), its
address space limited (RLIMIT_AS, --memory) and killed after --timeout seconds. Its peak
resident memory is the child's getrusage (wait4). One JSON line per package goes to
RESULTS/packages.jsonl, its stderr to RESULTS/stderr/ when it failed.

Outcomes: ok (exit 0), crash (killed by a signal, a panic, an abort such as a stack overflow, or
any other non-zero exit), oom (an allocation failed under the memory limit), timeout.

Files over 1 s: the CLI reports no per-file time, so after the sweep every package that took
longer than --slow-files seconds (default 2) is looked at file by file: each source file's
extraction (`codegraph debug-extract FILE`: parse and extraction, without resolution) is timed
in CPU seconds (user and system: a busy machine does not make a file slow; the process's own
start, the language's query compiled once, is under 0.2 s), and the files over 1 s are listed
(RESULTS/slow-files.jsonl); the packages slowest per file
go first, within --slow-budget minutes (default 60). Resolution, which needs the other
files, is not timed per file; a package slow in resolution shows as slow with no slow file.

--bisect PACKAGE_DIR: for a package that crashed, finds a small set of its source files that
still crashes the same way (delta debugging over files, copies under /tmp/sweep-bisect), then
a small set of lines of them, and prints where the result is.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

SOURCE_EXTENSIONS = {
    "py", "pyi", "js", "jsx", "mjs", "cjs", "ts", "mts", "cts", "tsx", "rs", "go", "java", "c",
    "h", "cpp", "cc", "cxx", "hpp", "hh", "hxx", "c++", "h++", "cs", "rb", "rake", "php", "kt",
    "kts", "swift", "scala", "sc", "lua", "sh", "bash",
}
# Files the workspace reads besides sources (manifests and configuration), kept when bisecting.
MANIFESTS = {
    "package.json", "tsconfig.json", "jsconfig.json", "Cargo.toml", "go.mod", "go.work",
    "pyproject.toml", "setup.cfg", "composer.json", "pom.xml", "build.gradle",
    "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "Gemfile", "Package.swift",
    "build.sbt", ".gitignore",
}


def is_source(name):
    return "." in name and name.rsplit(".", 1)[-1].lower() in SOURCE_EXTENSIONS


# --- running one index ---------------------------------------------------------------------

def run_limited(argv, timeout, memory_bytes, stdout_path, stderr_path, env):
    """Runs argv with RLIMIT_AS and a deadline. Returns (status, seconds, max_rss_kib,
    timed_out, cpu_seconds) where status is os.wait4's and cpu_seconds the child's user and
    system time."""
    def limits():
        os.setsid()
        if memory_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        started = time.monotonic()
        process = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                   env=env, preexec_fn=limits)
        timed_out = False
        delay = 0.005
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - started > timeout:
                timed_out = True
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                pid, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(delay)
            delay = min(delay * 2, 0.1)
        seconds = time.monotonic() - started
        process.returncode = 0  # reaped here; keep Popen from waiting again
    return status, seconds, usage.ru_maxrss, timed_out, usage.ru_utime + usage.ru_stime


def crash_message(stderr_text):
    """The line that says what went wrong, if stderr has one."""
    patterns = [
        r"has overflowed its stack",
        r"memory allocation of \d+ bytes failed",
        r"panicked at [^\n]*\n[^\n]*",
        r"fatal runtime error[^\n]*",
        r"Error: [^\n]*",
        r"error: [^\n]*",
    ]
    for pattern in patterns:
        match = re.search(pattern, stderr_text)
        if match:
            return match.group(0).strip()
    lines = [line for line in stderr_text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def signature(outcome, message):
    """What makes two crashes the same crash: the outcome and the message without numbers and
    thread names (a panic's location stays)."""
    message = re.sub(r"thread '[^']*'", "thread", message)
    message = re.sub(r"\b\d+ bytes\b", "N bytes", message)
    message = message.split("\n")[0]
    return f"{outcome}: {message}"


def index_package(binary, package, args, stdout_path, stderr_path):
    env = dict(os.environ)
    env.setdefault("RAYON_NUM_THREADS", str(args.threads))
    env.setdefault("RUST_BACKTRACE", "1")
    argv = [binary, "index", "--no-cache", "--json", package]
    status, seconds, rss, timed_out, _ = run_limited(
        argv, args.timeout, int(args.memory * 2**30), stdout_path, stderr_path, env)
    with open(stderr_path, "rb") as file:
        stderr_text = file.read().decode("utf-8", "replace")
    result = {"seconds": round(seconds, 3), "max_rss_mib": round(rss / 1024, 1)}
    if timed_out:
        result.update(outcome="timeout", message=f"killed after {args.timeout} s")
    elif os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        message = crash_message(stderr_text) or signal.Signals(sig).name
        outcome = "oom" if "memory allocation of" in message else "crash"
        result.update(outcome=outcome, signal=signal.Signals(sig).name, message=message)
    elif os.WEXITSTATUS(status) != 0:
        code = os.WEXITSTATUS(status)
        message = crash_message(stderr_text) or f"exit {code}"
        outcome = "oom" if "memory allocation of" in message else "crash"
        result.update(outcome=outcome, exit=code, message=message)
    else:
        result["outcome"] = "ok"
        try:
            with open(stdout_path) as file:
                report = json.load(file)
            report = report.get("result", report) if isinstance(report, dict) else {}
            for key in ("files", "lines", "parsed", "entities", "relations", "duration_ms",
                        "files_with_problems", "languages"):
                if key in report:
                    result[key] = report[key]
            result["skipped"] = len(report.get("skipped", []))
        except (OSError, ValueError) as error:
            result.update(outcome="crash", message=f"report is not JSON: {error}")
    if result["outcome"] != "ok":
        result["signature"] = signature(result["outcome"], result.get("message", ""))
    return result


# --- the sweep -----------------------------------------------------------------------------

def packages(corpus, only):
    for source in sorted(os.listdir(corpus)):
        directory = os.path.join(corpus, source)
        if source.startswith(".") or not os.path.isdir(directory):
            continue
        for name in sorted(os.listdir(directory)):
            package = os.path.join(directory, name)
            if not os.path.exists(os.path.join(package, ".complete")):
                continue
            key = f"{source}/{name}"
            if only and not any(pattern in key for pattern in only):
                continue
            yield key, package


def sweep(args, binary):
    os.makedirs(os.path.join(args.results, "stderr"), exist_ok=True)
    results_path = os.path.join(args.results, "packages.jsonl")
    done = set()
    if args.resume and os.path.exists(results_path):
        with open(results_path) as file:
            done = {json.loads(line)["package"] for line in file if line.strip()}
    elif os.path.exists(results_path) and not args.only:
        os.rename(results_path, results_path + ".previous")
    scratch = tempfile.mkdtemp(prefix="sweep-")
    todo = [(key, package) for key, package in packages(args.corpus, args.only)
            if key not in done]
    if args.smallest_first:
        todo.sort(key=lambda item: sum(os.path.getsize(path) for path in source_files(item[1])))
    print(f"{len(todo)} packages to index ({len(done)} done before)", file=sys.stderr)
    lock = threading.Lock()
    counter = [0]

    def one(item):
        key, package = item
        work = tempfile.mkdtemp(dir=scratch)
        stdout_path = os.path.join(work, "stdout")
        stderr_path = os.path.join(work, "stderr")
        result = {"package": key}
        result.update(index_package(binary, package, args, stdout_path, stderr_path))
        if result["outcome"] != "ok":
            kept = os.path.join(args.results, "stderr", key.replace("/", "__") + ".txt")
            shutil.copy(stderr_path, kept)
            result["stderr"] = kept
        shutil.rmtree(work, ignore_errors=True)
        with lock:
            counter[0] += 1
            results.write(json.dumps(result) + "\n")
            results.flush()
            mark = "" if result["outcome"] == "ok" else f"  {result['outcome'].upper()}: " \
                f"{result.get('message', '')[:160]}"
            print(f"[{counter[0]}/{len(todo)}] {key}: {result.get('files', '-')} files, "
                  f"{result['seconds']:.1f} s, {result['max_rss_mib']:.0f} MiB{mark}",
                  file=sys.stderr, flush=True)

    with open(results_path, "a") as results:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for _ in pool.map(one, todo):
                pass
    shutil.rmtree(scratch, ignore_errors=True)


def slow_files(args, binary):
    """Extraction time of each source file of the packages that took long."""
    results_path = os.path.join(args.results, "packages.jsonl")
    out_path = os.path.join(args.results, "slow-files.jsonl")
    rows = load(results_path)
    looked = set()
    if args.resume and os.path.exists(out_path):
        looked = {json.loads(line).get("package") for line in open(out_path)}
    candidates = [row for row in rows.values()
                  if row["seconds"] >= args.slow_files and row["package"] not in looked]
    # The packages slowest per file first, within the time budget; those that did not finish
    # (their file count unknown) last.
    candidates.sort(key=lambda row: -row["seconds"] / max(row.get("files") or 10**9, 1))
    deadline = time.monotonic() + args.slow_budget * 60
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    print(f"timing files of {len(candidates)} packages that took {args.slow_files} s or more",
          file=sys.stderr)
    with open(out_path, "a") as out:
        for row in candidates:
            if time.monotonic() > deadline:
                print(f"time budget spent; {len(candidates)} packages not all looked at",
                      file=sys.stderr)
                break
            package = os.path.join(args.corpus, row["package"])
            slow, count, worst = [], 0, (0.0, "")
            for path in source_files(package):
                count += 1
                status, seconds, rss, timed_out, _ = run_limited(
                    [binary, "debug-extract", path], args.timeout, int(args.memory * 2**30),
                    os.devnull, os.devnull, env)
                worst = max(worst, (seconds, path))
                if seconds > 1.0 or timed_out:
                    slow.append({"file": os.path.relpath(path, args.corpus),
                                 "seconds": round(seconds, 2),
                                 "bytes": os.path.getsize(path),
                                 "timed_out": timed_out, "max_rss_mib": round(rss / 1024)})
                    print(f"  slow: {slow[-1]}", file=sys.stderr, flush=True)
            out.write(json.dumps({"package": row["package"], "package_seconds": row["seconds"],
                                  "files_timed": count, "slowest": round(worst[0], 3),
                                  "slowest_file": os.path.relpath(worst[1], args.corpus)
                                  if worst[1] else "", "slow_files": slow}) + "\n")
            out.flush()
            print(f"{row['package']}: {count} files, slowest {worst[0]:.2f} s", file=sys.stderr,
                  flush=True)


def source_files(root):
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            path = os.path.join(directory, name)
            if is_source(name) and not name.startswith(".") and not os.path.islink(path) \
                    and os.path.getsize(path) <= 1 << 20:
                yield path


# --- the summary ---------------------------------------------------------------------------

def load(path):
    rows = {}
    if os.path.exists(path):
        with open(path) as file:
            for line in file:
                if line.strip():
                    row = json.loads(line)
                    rows[row["package"]] = row
    return rows


def summary(args):
    rows = load(os.path.join(args.results, "packages.jsonl"))
    if not rows:
        sys.exit("no results")
    outcomes = collections.Counter(row["outcome"] for row in rows.values())
    ok = [row for row in rows.values() if row["outcome"] == "ok"]
    by_source = collections.Counter(key.split("/")[0] for key in rows)
    files = sum(row.get("files", 0) for row in ok)
    lines = sum(row.get("lines", 0) for row in ok)
    seconds = sum(row["seconds"] for row in rows.values())
    print(f"packages   {len(rows)} ({', '.join(f'{s} {n}' for s, n in sorted(by_source.items()))})")
    print(f"files      {files} (indexed, in the packages that finished)")
    print(f"lines      {lines}")
    print(f"time       {seconds / 60:.1f} min of indexing in all")
    print(f"ok         {outcomes['ok']}")
    print(f"crashes    {outcomes['crash']}")
    print(f"oom        {outcomes['oom']} (allocation failed under the memory limit)")
    print(f"timeouts   {outcomes['timeout']}")
    languages = collections.Counter()
    main = collections.Counter()
    for row in ok:
        languages.update(row.get("languages", {}))
        if row.get("languages"):
            main[max(row["languages"], key=row["languages"].get)] += 1
    print("files by language:  " + ", ".join(f"{k} {v}" for k, v in languages.most_common()))
    print("packages by main language (most files):  "
          + ", ".join(f"{k} {v}" for k, v in main.most_common()))
    failures = [row for row in rows.values() if row["outcome"] != "ok"]
    if failures:
        print("\nfailures (package, outcome, message):")
        for row in sorted(failures, key=lambda row: (row["outcome"], row["package"])):
            how = row.get("signal") or (f"exit {row['exit']}" if "exit" in row else "")
            print(f"  {row['package']:<55} {row['outcome']:<8} {row['seconds']:>7.1f} s  "
                  f"{how:<8} {row.get('message', '')[:150]}")
        distinct = collections.Counter(row["signature"] for row in failures)
        print("\ndistinct failures:")
        for sig, count in distinct.most_common():
            print(f"  {count:>4} x {sig[:170]}")
    print("\nslowest packages (wall s, files, lines, peak MiB):")
    for row in sorted(rows.values(), key=lambda row: -row["seconds"])[:15]:
        print(f"  {row['package']:<55} {row['seconds']:>8.1f} {row.get('files', '-'):>7} "
              f"{row.get('lines', '-'):>9} {row['max_rss_mib']:>8.0f}  {row['outcome']}")
    print("\npeak memory (MiB, files):")
    for row in sorted(rows.values(), key=lambda row: -row["max_rss_mib"])[:8]:
        print(f"  {row['package']:<55} {row['max_rss_mib']:>8.0f} {row.get('files', '-'):>7}  "
              f"{row['outcome']}")
    slow_path = os.path.join(args.results, "slow-files.jsonl")
    if os.path.exists(slow_path):
        timed = [json.loads(line) for line in open(slow_path) if line.strip()]
        slow = [dict(entry, package=row["package"]) for row in timed for entry in row["slow_files"]]
        waiting = sum(1 for row in rows.values() if row["seconds"] >= args.slow_files)
        print(f"\nfiles over 1 s to extract: {len(slow)} (all files of {len(timed)} of the "
              f"{waiting} packages that took {args.slow_files} s or more, slowest per file first)")
        for entry in sorted(slow, key=lambda entry: -entry["seconds"])[:20]:
            print(f"  {entry['file']:<90} {entry['seconds']:>7.2f} s {entry['bytes']:>8} B")
        print("slowest file of each slow package (extraction):")
        for row in sorted(timed, key=lambda row: -row["slowest"])[:10]:
            print(f"  {row['slowest_file']:<90} {row['slowest']:>7.2f} s")


# --- bisecting a crash ---------------------------------------------------------------------

def bisect(args, binary):
    package = os.path.abspath(args.bisect)
    scratch = tempfile.mkdtemp(prefix="sweep-bisect-")
    stdout_path = os.path.join(scratch, "stdout")
    stderr_path = os.path.join(scratch, "stderr")
    sources = [os.path.relpath(path, package) for path in source_files(package)]
    manifests = []
    for directory, dirs, names in os.walk(package):
        dirs[:] = [d for d in dirs if not d.startswith(".") or d == ".gitignore"]
        manifests += [os.path.relpath(os.path.join(directory, name), package)
                      for name in names if name in MANIFESTS]
    runs = [0]

    def materialise(files, contents=None):
        work = os.path.join(scratch, "tree")
        shutil.rmtree(work, ignore_errors=True)
        for relative in manifests + list(files):
            target = os.path.join(work, relative)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if contents and relative in contents:
                with open(target, "wb") as file:
                    file.write(contents[relative])
            else:
                shutil.copy(os.path.join(package, relative), target)
        return work

    def outcome(files, contents=None):
        runs[0] += 1
        work = materialise(files, contents)
        result = index_package(binary, work, args, stdout_path, stderr_path)
        return result.get("signature") if result["outcome"] != "ok" else None

    whole = outcome(sources)
    if not whole:
        sys.exit(f"{package}: no crash on the whole package here")
    print(f"crash: {whole}", file=sys.stderr)
    check = lambda files, contents=None: outcome(files, contents) == whole
    files = ddmin(sources, check, "files")
    print(f"files: {files}", file=sys.stderr)
    contents = {}
    for relative in files:
        with open(os.path.join(package, relative), "rb") as file:
            lines = file.read().splitlines(keepends=True)

        def check_lines(kept, relative=relative):
            trial = dict(contents)
            trial[relative] = b"".join(kept)
            return check(files, trial)
        kept = ddmin(lines, check_lines, f"lines of {relative}")
        contents[relative] = b"".join(kept)
    out = os.path.join("/tmp/sweep-bisect", os.path.basename(package))
    shutil.rmtree(out, ignore_errors=True)
    for relative in files:
        target = os.path.join(out, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as file:
            file.write(contents[relative])
    shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps({"package": package, "signature": whole, "files": files, "minimal": out,
                      "runs": runs[0]}))


def ddmin(items, check, what):
    """Zeller's delta debugging: a 1-minimal sublist of items for which check holds."""
    granularity = 2
    while len(items) >= 2:
        size = max(1, len(items) // granularity)
        chunks = [items[i:i + size] for i in range(0, len(items), size)]
        reduced = False
        for chunk in chunks:
            if check(chunk):
                items, granularity, reduced = chunk, 2, True
                break
        if not reduced:
            for index in range(len(chunks)):
                complement = [x for j, c in enumerate(chunks) if j != index for x in c]
                if check(complement):
                    items, granularity, reduced = complement, max(granularity - 1, 2), True
                    break
        if not reduced:
            if granularity >= len(items):
                break
            granularity = min(granularity * 2, len(items))
        print(f"  {what}: {len(items)}", file=sys.stderr, flush=True)
    return items


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default=os.environ.get("CODEGRAPH_SWEEP_CORPUS",
                                                           "/work/sweep-corpus"))
    parser.add_argument("--results", default=os.environ.get("CODEGRAPH_SWEEP_RESULTS",
                                                            "/work/sweep-results"))
    parser.add_argument("--binary", default=os.path.join(REPO, "target/release/codegraph"))
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--memory", type=float, default=8, help="GiB of address space")
    parser.add_argument("--threads", type=int, default=1, help="RAYON_NUM_THREADS")
    parser.add_argument("--jobs", type=int, default=1,
                        help="packages indexed at once (wall times are then less comparable)")
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--smallest-first", action="store_true",
                        help="index the packages in order of their source bytes")
    parser.add_argument("--slow-files", type=float, default=2.0)
    parser.add_argument("--no-slow-files", action="store_true")
    parser.add_argument("--slow-budget", type=float, default=60,
                        help="minutes for timing files, slowest packages per file first")
    parser.add_argument("--summary", action="store_true")
    parser.add_argument("--bisect")
    args = parser.parse_args()
    if args.summary:
        summary(args)
        return
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        sys.exit(f"{binary}: no binary (cargo build --release)")
    if args.bisect:
        bisect(args, binary)
        return
    sweep(args, binary)
    if not args.no_slow_files:
        slow_files(args, binary)
    summary(args)


if __name__ == "__main__":
    main()
