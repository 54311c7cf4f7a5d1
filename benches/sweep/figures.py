#!/usr/bin/env python3
"""What the sweep corpus holds: packages per source and per main language, source files, lines
and bytes per language, and the size on disk.

    python3 benches/sweep/figures.py CORPUS [PACKAGES_TXT]

Counts files the way codegraph picks them (by extension, hidden entries left out; .gitignore is
not applied here, so the index may see a little less). A package's main language is the one
with the most lines in it.
"""

import collections
import json
import os
import sys

LANGUAGES = {
    "python": "py pyi",
    "javascript": "js jsx mjs cjs",
    "typescript": "ts mts cts",
    "tsx": "tsx",
    "rust": "rs",
    "go": "go",
    "java": "java",
    "c": "c h",
    "cpp": "cpp cc cxx hpp hh hxx c++ h++",
    "csharp": "cs",
    "ruby": "rb rake",
    "php": "php",
    "kotlin": "kt kts",
    "swift": "swift",
    "scala": "scala sc",
    "lua": "lua",
    "bash": "sh bash",
}
BY_EXTENSION = {ext: lang for lang, exts in LANGUAGES.items() for ext in exts.split()}
MAX_FILE = 1 << 20  # codegraph's default --max-file-size


def package_dirs(corpus):
    for source in sorted(os.listdir(corpus)):
        path = os.path.join(corpus, source)
        if source.startswith(".") or not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            package = os.path.join(path, name)
            if os.path.exists(os.path.join(package, ".complete")):
                yield source, name, package


def count(package):
    """files, lines, bytes per language of one package; and its bytes on disk."""
    files, lines, size = collections.Counter(), collections.Counter(), collections.Counter()
    disk = 0
    for directory, dirs, names in os.walk(package):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            path = os.path.join(directory, name)
            try:
                stat = os.lstat(path)
            except OSError:
                continue
            disk += stat.st_size
            if name.startswith(".") or os.path.islink(path) or "." not in name:
                continue
            lang = BY_EXTENSION.get(name.rsplit(".", 1)[-1].lower())
            if lang is None or stat.st_size > MAX_FILE:
                continue
            with open(path, "rb") as file:
                data = file.read()
            files[lang] += 1
            size[lang] += len(data)
            lines[lang] += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return files, lines, size, disk


def main():
    corpus = sys.argv[1]
    files, lines, size = collections.Counter(), collections.Counter(), collections.Counter()
    by_source, by_main = collections.Counter(), collections.Counter()
    disk = 0
    rows = []
    for source, name, package in package_dirs(corpus):
        f, l, s, d = count(package)
        files.update(f)
        lines.update(l)
        size.update(s)
        disk += d
        by_source[source] += 1
        main_lang = max(l, key=l.get) if l else "none"
        by_main[main_lang] += 1
        rows.append({"source": source, "package": name, "main": main_lang,
                     "files": sum(f.values()), "lines": sum(l.values()), "disk": d,
                     "languages": dict(l)})
    with open(os.path.join(corpus, ".log", "figures.jsonl"), "w") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    total = sum(by_source.values())
    print(f"packages: {total} ({', '.join(f'{s} {n}' for s, n in sorted(by_source.items()))})")
    if len(sys.argv) > 2:
        wanted = sum(1 for line in open(sys.argv[2]) if line.strip() and not line.startswith("#"))
        print(f"listed: {wanted}; missing (failed or not fetched yet): {wanted - total}")
    print("packages by main language: "
          + ", ".join(f"{lang} {n}" for lang, n in by_main.most_common()))
    print(f"\n{'language':<12} {'files':>9} {'lines':>12} {'MiB':>9}")
    for lang in sorted(lines, key=lambda lang: -lines[lang]):
        print(f"{lang:<12} {files[lang]:>9} {lines[lang]:>12} {size[lang] / 2**20:>9.1f}")
    print(f"{'total':<12} {sum(files.values()):>9} {sum(lines.values()):>12} "
          f"{sum(size.values()) / 2**20:>9.1f}")
    print(f"\non disk: {disk / 2**30:.2f} GiB")


if __name__ == "__main__":
    main()
