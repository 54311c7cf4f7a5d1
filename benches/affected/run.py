#!/usr/bin/env python3
"""The test-selection benchmark: `codegraph affected` measured against real test suites by
mutation testing.

    benches/affected-corpus.sh && python3 benches/affected/run.py

For each project of the corpus (benches/affected-corpus.sh, DIR/projects.tsv) it samples
production functions (seeded), and for each makes a mutant that fails as soon as the function is
called: `raise RuntimeError("mutant")` as the first statement of a Python body (after the
docstring), `panic!("mutant");` in Rust, `panic("mutant")` in Go, `throw new Error("mutant");` in
TypeScript. The project's whole suite, run on the mutant, gives the ground truth: the tests that
fail. A mutant that no test catches is counted apart. Then each selector is run on the same
mutated working tree, timed, and its selection compared with the failing tests:

  codegraph   `$CODEGRAPH affected --repo DIR --json`, read as its runner format runs it
              (`--format pytest|cargo|go|jest` print the same answer): Python, a test is selected
              by its node id in `tests` (a class's id selects its tests), or by its file when
              `test_files` lists the file and no test of `tests` is in it (the file is printed
              whole); Rust, libtest's substring filters; Go, package directory and test name;
              TypeScript, its file among `test_files`. Checked once per Python project: pytest
              given `--format pytest`'s output collects exactly these tests (or refuses it)
  cg-files    the same answer at file level: a test is selected also when its file is among
              `test_files` (which lists every file that holds a selected test)
  testmon     pytest-testmon (Python): its data recorded once on the clean tree
              (`pytest --testmon`), restored before each mutant; what it selects is what
              `pytest --testmon --collect-only -q` lists (checked once per project against what
              `pytest --testmon` runs)
  imports     file level: every test file that imports the mutated file, directly or
              transitively (Python: `import`/`from` statements, a package's __init__ and the
              test's conftest.py files; TypeScript: import/export/require specifiers, relative or
              through tsconfig `paths`; Go: the package's tests and those of the packages that
              import it; Rust: the test files that name the crate, and unit tests of the file)

Figures per project and overall, per selector: safety (the fraction of caught mutants whose
failing tests are all selected), recall of failing tests, selection size (selected tests /
tests in the suite, mean and median over caught mutants), time per selection. Then every
codegraph safety miss: the mutated function and the failing tests not selected.

Environment: AFFECTED_PROJECTS=a,b (default all), AFFECTED_SAMPLES=30 (per project),
AFFECTED_SEED=1, CODEGRAPH=path (default /work/sweep-build/target/release/codegraph),
AFFECTED_SELECTORS=codegraph,testmon,imports (default all; codegraph is skipped, with a note,
when the binary does not exist or has no `affected` command), CODEGRAPH_AFFECTED_CORPUS=DIR
(default <repo>/bench-affected), AFFECTED_RESULTS=DIR (default CORPUS/.results).

Raw results: RESULTS/ground-truth.jsonl caches each mutant's suite run, keyed by project,
version, function and seed, so a rerun only reruns the selectors; RESULTS/mutants.jsonl has one
line per mutant of the last run, with every selector's selection.

Test identity: Python, the pytest node id with parameters dropped (`tests/t.py::C::test[a-b]` is
`tests/t.py::C::test`), from `--junitxml`; a file that fails to import fails all its tests.
Rust, `cargo test --lib --tests` (doctests are not part of the suite here), `FILE::path::name`
with FILE the test target's source. Go, `DIR/FILE_test.go::TestName` (subtests are their test),
each test run on its own from the package's compiled test binary, since a panic ends the whole
binary. TypeScript, vitest's JSON reporter, `FILE::describe > test`; a file that fails to load
fails all its tests.
"""

import ast
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.abspath(os.environ.get("CODEGRAPH_AFFECTED_CORPUS",
                                        os.path.join(REPO, "bench-affected")))
RESULTS = os.path.abspath(os.environ.get("AFFECTED_RESULTS", os.path.join(CORPUS, ".results")))
CODEGRAPH = os.environ.get("CODEGRAPH", "/work/sweep-build/target/release/codegraph")
SAMPLES = int(os.environ.get("AFFECTED_SAMPLES", "30"))
SEED = int(os.environ.get("AFFECTED_SEED", "1"))
SELECTORS = [s for s in os.environ.get("AFFECTED_SELECTORS", "codegraph,testmon,imports").split(",")
             if s]
SUITE_TIMEOUT = 600

PY_MUTANT = 'raise RuntimeError("mutant")'
RUST_MUTANT = ' panic!("mutant");'
GO_MUTANT = ' panic("mutant");'
TS_MUTANT = ' throw new Error("mutant");'


def log(*args):
    print(*args, file=sys.stderr, flush=True)


class TimedOut(Exception):
    pass


def run(argv, cwd, env=None, timeout=SUITE_TIMEOUT, check=False, merge=False):
    """Runs argv in a process group of its own, killed whole at the timeout (TimedOut)."""
    merged = dict(os.environ)
    if env:
        merged.update(env)
    child = subprocess.Popen(argv, cwd=cwd, env=merged, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT if merge else subprocess.PIPE, text=True,
                             errors="replace", start_new_session=True)
    try:
        stdout, stderr = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        raise TimedOut(f"{argv[:3]} after {timeout} s")
    done = subprocess.CompletedProcess(argv, child.returncode, stdout, stderr or "")
    if check and done.returncode != 0:
        raise RuntimeError(f"{argv} in {cwd} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return done


def strip_params(name):
    """`test_x[a-b]` -> `test_x` (the brackets may hold anything, even nested brackets)."""
    i = name.find("[")
    return name[:i] if i >= 0 else name


def git_restore(root):
    run(["git", "checkout", "--quiet", "--", "."], root, check=True)
    run(["git", "clean", "--quiet", "-fd", "--", "."], root)


class Function:
    def __init__(self, file, name, line, edit):
        self.file, self.name, self.line = file, name, line
        self.edit = edit  # (offset in characters, text inserted) or ("line", n, text)

    @property
    def key(self):
        return f"{self.file}::{self.name}@{self.line}"


# --- projects --------------------------------------------------------------------------------

class Project:
    language = None

    def __init__(self, name, version, root, import_root):
        self.name, self.version, self.root, self.import_root = name, version, root, import_root

    # Overridden: functions(), suite() -> (failing ids, all ids, broken), file_of(test id),
    # import_selector(function) -> set of test files.

    def apply(self, function):
        path = os.path.join(self.root, function.file)
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
        offset, insert = function.edit
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text[:offset] + insert + text[offset:])

    def file_of(self, test_id):
        return test_id.split("::", 1)[0]

    def source_files(self, extensions, skip_dirs=()):
        out = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")
                                 and d not in ("node_modules", "target", "__pycache__")
                                 and d not in skip_dirs)
            for name in sorted(filenames):
                if name.endswith(extensions):
                    out.append(os.path.relpath(os.path.join(dirpath, name), self.root))
        return out


class PythonProject(Project):
    language = "python"

    @property
    def python(self):
        return os.path.join(CORPUS, ".venvs", self.name, "bin", "python")

    @staticmethod
    def is_test_file(rel):
        parts = rel.split("/")
        return any(p in ("tests", "test", "testing") for p in parts[:-1]) or \
            parts[-1].startswith("test_") or parts[-1].endswith("_test.py") or \
            parts[-1] == "conftest.py"

    def production_files(self):
        base = "" if self.import_root == "." else self.import_root + "/"
        return [f for f in self.source_files((".py",), ("docs", "examples", "build"))
                if f.startswith(base) and not self.is_test_file(f)
                and f not in ("setup.py", "versioneer.py") and not f.startswith("docs/")]

    def functions(self):
        out = []
        for rel in self.production_files():
            with open(os.path.join(self.root, rel), encoding="utf-8") as f:
                text = f.read()
            try:
                tree = ast.parse(text)
            except SyntaxError:
                continue
            lines = text.splitlines(keepends=True)
            starts = [0]
            for line in lines:
                starts.append(starts[-1] + len(line))

            def walk(node, owner, in_type_checking):
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.ClassDef):
                        walk(child, owner + child.name + ".", in_type_checking)
                    elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        if not in_type_checking:
                            f = self.mutant_of(rel, child, owner, lines, starts)
                            if f:
                                out.append(f)
                    elif isinstance(child, ast.If):
                        test = ast.unparse(child.test)
                        walk(child, owner, in_type_checking or "TYPE_CHECKING" in test)
                    elif isinstance(child, (ast.Try, ast.With)):
                        walk(child, owner, in_type_checking)
            walk(tree, "", False)
        return out

    @staticmethod
    def mutant_of(rel, node, owner, lines, starts):
        for decorator in node.decorator_list:
            text = ast.unparse(decorator)
            if text.endswith("overload") or text.endswith("abstractmethod"):
                return None
        body = node.body
        first = body[0]
        has_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
            and isinstance(first.value.value, str)
        if first.lineno == node.lineno or (has_doc and first.end_lineno == node.lineno):
            return None  # a body on the def's own line
        if has_doc and len(body) > 1:
            anchor = body[1]
            if anchor.lineno == first.end_lineno:
                return None
        elif has_doc:
            # Only a docstring: the raise goes on the line after it, indented like it.
            indent = lines[first.lineno - 1][:first.col_offset]
            offset = starts[first.end_lineno]
            return Function(rel, owner + node.name, node.lineno,
                            (offset, indent + PY_MUTANT + "\n"))
        else:
            anchor = first
        # Decorated statements start at their first decorator.
        line_no = anchor.lineno
        if getattr(anchor, "decorator_list", None):
            line_no = min([line_no] + [d.lineno for d in anchor.decorator_list])
        line = lines[line_no - 1]
        indent = line[:len(line) - len(line.lstrip())]
        return Function(rel, owner + node.name, node.lineno,
                        (starts[line_no - 1], indent + PY_MUTANT + "\n"))

    # The suite.
    def pytest(self, *args, junit=None, cache=False):
        argv = [self.python, "-m", "pytest", "-q", "-o", "junit_family=xunit1",
                "-p", "no:randomly"]
        if not cache:
            argv += ["-p", "no:cacheprovider"]
        if junit:
            argv += ["--junitxml", junit]
        return run(argv + list(args), self.root,
                   env={"PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"})

    def node_id(self, case):
        """The node id of a junit testcase: its file is the longest head of `classname` that is a
        file (the `file` attribute names where an inherited test method is written, not the
        test class's file)."""
        classname = case.get("classname", "")
        name = strip_params(case.get("name", ""))
        if not classname:
            return None  # a collection error
        parts = classname.split(".")
        for i in range(len(parts), 0, -1):
            candidate = "/".join(parts[:i]) + ".py"
            if os.path.isfile(os.path.join(self.root, candidate)):
                return "::".join([candidate] + parts[i:] + [name])
        return None

    def suite(self, baseline=None):
        with tempfile.TemporaryDirectory() as tmp:
            junit = os.path.join(tmp, "junit.xml")
            done = self.pytest(junit=junit)
            if not os.path.exists(junit):
                # pytest did not get to its tests (the package fails to import in a conftest.py):
                # every test fails.
                return (set(baseline) if baseline else None), [], True
            tree = ET.parse(junit)
        failing, every, broken_files = set(), set(), set()
        for case in tree.iter("testcase"):
            bad = case.find("failure") is not None or case.find("error") is not None
            test_id = self.node_id(case.attrib)
            if test_id is None:
                # A collection error: `name` is the test module's dotted path.
                if bad:
                    broken_files.add(case.get("name", "").replace(".", "/") + ".py")
                continue
            every.add(test_id)
            if bad:
                failing.add(test_id)
        for file in broken_files:
            failing |= {t for t in (baseline or []) if self.file_of(t) == file}
        broken = done.returncode not in (0, 1) and not broken_files
        if broken and baseline is not None:
            failing = set(baseline)
        return failing, sorted(every), broken

    # Selectors.
    def testmon_record(self):
        data = os.path.join(self.root, ".testmondata")
        for suffix in ("", "-shm", "-wal"):
            if os.path.exists(data + suffix):
                os.remove(data + suffix)
        self.pytest("--testmon", cache=True)
        self.testmon_copy = os.path.join(RESULTS, "testmon", self.name)
        os.makedirs(os.path.dirname(self.testmon_copy), exist_ok=True)
        shutil.copyfile(data, self.testmon_copy)

    def testmon_restore(self):
        data = os.path.join(self.root, ".testmondata")
        for suffix in ("-shm", "-wal"):
            if os.path.exists(data + suffix):
                os.remove(data + suffix)
        shutil.copyfile(self.testmon_copy, data)

    def testmon_select(self):
        self.testmon_restore()
        done = self.pytest("--testmon", "--collect-only", cache=True)
        selected = set()
        for line in done.stdout.splitlines():
            if "::" in line and not line.startswith(("INTERNALERROR", "ERROR", "FAILED")):
                selected.add(self.collected_id(line.strip()))
        return selected

    def collected_id(self, node_id):
        parts = node_id.split("::")
        parts[-1] = strip_params(parts[-1])
        return "::".join(parts)

    def testmon_check(self):
        """What `--testmon --collect-only` lists is what `--testmon` runs."""
        listed = self.testmon_select()
        self.testmon_restore()
        with tempfile.TemporaryDirectory() as tmp:
            junit = os.path.join(tmp, "junit.xml")
            self.pytest("--testmon", junit=junit, cache=True)
            ran = set()
            if os.path.exists(junit):
                for case in ET.parse(junit).iter("testcase"):
                    test_id = self.node_id(case.attrib)
                    if test_id:
                        ran.add(test_id)
        self.testmon_restore()
        return listed == ran, len(listed), len(ran)

    # The import selector.
    def module_index(self):
        """module name -> file, for every .py file of the project."""
        index = {}
        roots = ["."] + ([self.import_root] if self.import_root != "." else [])
        for rel in self.source_files((".py",), ("docs", "build")):
            for root in roots:
                base = "" if root == "." else root + "/"
                if not rel.startswith(base):
                    continue
                path = rel[len(base):][:-3].split("/")
                if path[-1] == "__init__":
                    path = path[:-1]
                if path:
                    index.setdefault(".".join(path), rel)
        return index

    def import_selector(self, function, tests):
        index = self.module_index()
        by_file = {v: k for k, v in index.items()}
        edges = {}
        for rel in set(index.values()):
            edges[rel] = self.imports_of(rel, by_file.get(rel, ""), index)
        # conftest.py files above a test file are imported for it.
        test_files = sorted({self.file_of(t) for t in tests})
        target = function.file
        memo = {}

        def reaches(rel, seen):
            if rel == target:
                return True
            if rel in memo:
                return memo[rel]
            seen.add(rel)
            result = any(reaches(n, seen) for n in edges.get(rel, ()) if n not in seen)
            memo[rel] = result
            return result
        selected = set()
        for tf in test_files:
            starts = [tf]
            d = os.path.dirname(tf)
            while True:
                conftest = os.path.join(d, "conftest.py") if d else "conftest.py"
                if conftest in edges:
                    starts.append(conftest)
                if not d:
                    break
                d = os.path.dirname(d)
            if any(reaches(s, set()) for s in starts):
                selected.add(tf)
        return selected

    def imports_of(self, rel, module, index):
        try:
            with open(os.path.join(self.root, rel), encoding="utf-8") as f:
                tree = ast.parse(f.read())
        except (SyntaxError, UnicodeDecodeError):
            return set()
        package = module if rel.endswith("__init__.py") else module.rpartition(".")[0]
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    names.add(alias.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".") if package else []
                    base = base[:len(base) - (node.level - 1)] if node.level > 1 else base
                    base = ".".join(base + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                names.add(base)
                for alias in node.names:
                    names.add(f"{base}.{alias.name}" if base else alias.name)
        out = set()
        for name in names:
            parts = name.split(".")
            # Importing a.b.c runs a/__init__.py and a/b/__init__.py too.
            for i in range(1, len(parts) + 1):
                hit = index.get(".".join(parts[:i]))
                if hit:
                    out.add(hit)
        # A package's submodule runs its package's __init__ first.
        if module and "." in module:
            parts = module.split(".")
            for i in range(1, len(parts)):
                hit = index.get(".".join(parts[:i]))
                if hit:
                    out.add(hit)
        out.discard(rel)
        return out


class RustProject(Project):
    language = "rust"

    @property
    def target_dir(self):
        return os.path.join(CORPUS, ".targets", self.name)

    def functions(self):
        out = []
        for rel in self.source_files((".rs",), ("tests", "benches", "examples")):
            if rel == "build.rs" or not rel.startswith("src/"):
                continue
            with open(os.path.join(self.root, rel), encoding="utf-8") as f:
                text = f.read()
            out += self.rust_functions(rel, text)
        return out

    @staticmethod
    def blank(text):
        """Comments, strings and char literals blanked to spaces, offsets kept."""
        out = list(text)
        i, n = 0, len(text)

        def clear(a, b):
            for k in range(a, b):
                if out[k] != "\n":
                    out[k] = " "
        while i < n:
            c = text[i]
            if text.startswith("//", i):
                j = text.find("\n", i)
                j = n if j < 0 else j
                clear(i, j)
                i = j
            elif text.startswith("/*", i):
                depth, j = 1, i + 2
                while j < n and depth:
                    if text.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif text.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                    else:
                        j += 1
                clear(i, j)
                i = j
            elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
                hashes = re.match(r'r(#*)"', text[i:]).group(1)
                end = text.find('"' + hashes, i + 2 + len(hashes))
                j = n if end < 0 else end + 1 + len(hashes)
                clear(i, j)
                i = j
            elif c == '"':
                j = i + 1
                while j < n and text[j] != '"':
                    j += 2 if text[j] == "\\" else 1
                clear(i, j + 1)
                i = j + 1
            elif c == "'":
                m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
                if m:
                    clear(i, i + m.end())
                    i += m.end()
                else:
                    i += 1  # a lifetime
            else:
                i += 1
        return "".join(out)

    def rust_functions(self, rel, text):
        clean = self.blank(text)
        # Each block's enclosing block, for the owner's name and to skip test modules, macro
        # bodies and nested functions.
        stack = []
        parent_of = {}
        for i, c in enumerate(clean):
            if c == "{":
                parent_of[i] = stack[-1] if stack else None
                stack.append(i)
            elif c == "}" and stack:
                stack.pop()

        def header(open_at):
            j = max(clean.rfind(";", 0, open_at), clean.rfind("}", 0, open_at),
                    clean.rfind("{", 0, open_at))
            return clean[j + 1:open_at].strip()

        out = []
        for m in re.finditer(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)", clean):
            start = m.end()
            depth, j = 0, start
            body = None
            while j < len(clean):
                c = clean[j]
                if c in "([":
                    depth += 1
                elif c in ")]":
                    depth -= 1
                elif depth == 0 and c == ";":
                    break
                elif depth == 0 and c == "{":
                    body = j
                    break
                j += 1
            if body is None:
                continue
            prefix = clean[max(0, clean.rfind("\n", 0, m.start())):m.start()]
            if "const" in prefix.split():
                continue  # a const fn may be evaluated at compile time
            # Owners: the headers of the blocks around the fn.
            owners = []
            k = parent_of.get(body)
            skip = False
            while k is not None:
                h = header(k)
                if re.search(r"\bmacro_rules!|\bmod\s+tests\b|#\[cfg\(test\)\]", h):
                    skip = True
                im = re.search(r"\bimpl\b.*?(?:\bfor\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(?:<[^{]*>)?\s*(?:where\b.*)?$", h, re.S)
                tm = re.search(r"\btrait\s+([A-Za-z_][A-Za-z0-9_]*)", h)
                if im:
                    owners.append(im.group(1))
                elif tm:
                    owners.append(tm.group(1))
                elif re.search(r"\bfn\b", h):
                    skip = True  # a nested fn
                k = parent_of.get(k)
            if skip:
                continue
            name = ".".join(reversed(owners)) + ("." if owners else "") + m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            out.append(Function(rel, name, line, (body + 1, RUST_MUTANT)))
        return out

    def cargo(self, *args):
        return run(["cargo", "test", "--offline", "--lib", "--tests", "--no-fail-fast", *args],
                   self.root, merge=True, env={"CARGO_TARGET_DIR": self.target_dir, "CARGO_TERM_COLOR": "never",
                                   "RUST_BACKTRACE": "0"})

    def suite(self, baseline=None):
        done = self.cargo("--", "--test-threads=2")
        text = done.stdout
        failing, every = set(), set()
        current = None
        finished = set()
        for line in text.splitlines():
            m = re.match(r"\s*Running (?:unittests )?(\S+)", line)
            if m:
                current = m.group(1)
                continue
            if line.startswith("test result:") and current:
                finished.add(current)
            m = re.match(r"test (\S+) \.\.\. (ok|FAILED|ignored)", line)
            if m and current:
                test_id = f"{current}::{m.group(1)}"
                every.add(test_id)
                if m.group(2) == "FAILED":
                    failing.add(test_id)
        if "could not compile" in text or "error[" in text:
            return None, sorted(every), True
        # A test binary that died (a panic in a destructor while unwinding aborts it) fails
        # every test it holds.
        for test_id in baseline or ():
            if self.file_of(test_id) not in finished:
                failing.add(test_id)
        return failing, sorted(every), False

    def import_selector(self, function, tests):
        crate = self.name.replace("-", "_")
        selected = set()
        for tf in sorted({self.file_of(t) for t in tests}):
            if tf.startswith("tests/"):
                with open(os.path.join(self.root, tf), encoding="utf-8") as f:
                    if re.search(rf"\b{crate}::", f.read()):
                        selected.add(tf)
            elif tf == function.file:
                selected.add(tf)
        return selected


class GoProject(Project):
    language = "go"
    env = {"GOPROXY": "off", "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"}

    def functions(self):
        done = run(["go", "run", os.path.join(HERE, "gofuncs.go"), self.root], HERE,
                   env=self.env, check=True)
        out = []
        for line in done.stdout.splitlines():
            f = json.loads(line)
            with open(os.path.join(self.root, f["file"]), "rb") as fh:
                data = fh.read()
            offset = len(data[:f["after"]].decode("utf-8"))
            out.append(Function(f["file"], f["name"], f["line"], (offset, GO_MUTANT)))
        return out

    def packages(self):
        dirs = set()
        for rel in self.source_files((".go",), ("testdata", "vendor")):
            if rel.endswith("_test.go"):
                dirs.add(os.path.dirname(rel) or ".")
        return sorted(dirs)

    def test_files_of(self, pkg):
        out = {}
        d = os.path.join(self.root, pkg)
        for name in sorted(os.listdir(d)):
            if name.endswith("_test.go"):
                with open(os.path.join(d, name), encoding="utf-8") as f:
                    for m in re.finditer(r"^func ((?:Test|Example|Fuzz)\w*)\(", f.read(), re.M):
                        out[m.group(1)] = os.path.normpath(os.path.join(pkg, name))
        return out

    def suite(self, baseline=None):
        failing, every = set(), set()
        with tempfile.TemporaryDirectory() as tmp:
            for pkg in self.packages():
                binary = os.path.join(tmp, pkg.replace("/", "_") + ".test")
                built = run(["go", "test", "-c", "-o", binary, "./" + pkg], self.root, env=self.env)
                if built.returncode != 0:
                    return None, sorted(every), True
                where = self.test_files_of(pkg)
                listed = run([binary, "-test.list", "."], os.path.join(self.root, pkg))
                for name in listed.stdout.split():
                    if name not in where:
                        continue
                    test_id = f"{where[name]}::{name}"
                    every.add(test_id)
                    one = run([binary, "-test.run", f"^{name}$", "-test.count=1"],
                              os.path.join(self.root, pkg), timeout=120)
                    if one.returncode != 0:
                        failing.add(test_id)
        return failing, sorted(every), False

    def go_imports(self):
        """package dir -> package dirs it imports (within the module)."""
        with open(os.path.join(self.root, "go.mod"), encoding="utf-8") as f:
            module = re.search(r"^module\s+(\S+)", f.read(), re.M).group(1)
        out = {}
        for rel in self.source_files((".go",), ("testdata", "vendor")):
            pkg = os.path.dirname(rel) or "."
            with open(os.path.join(self.root, rel), encoding="utf-8") as f:
                text = f.read()
            for spec in re.findall(r'"([^"\s]+)"', "\n".join(
                    re.findall(r"^import\s*(?:\([^)]*\)|[^\n]*)", text, re.M))):
                if spec == module or spec.startswith(module + "/"):
                    target = spec[len(module) + 1:] or "."
                    out.setdefault(pkg, set()).add(target)
        return out

    def import_selector(self, function, tests):
        imports = self.go_imports()
        target = os.path.dirname(function.file) or "."
        hit = {target}
        changed = True
        while changed:
            changed = False
            for pkg, deps in imports.items():
                if pkg not in hit and deps & hit:
                    hit.add(pkg)
                    changed = True
        return {self.file_of(t) for t in tests
                if (os.path.dirname(self.file_of(t)) or ".") in hit}


class TypeScriptProject(Project):
    language = "typescript"

    def production_files(self):
        return [f for f in self.source_files((".ts", ".tsx", ".js", ".mjs", ".cjs"))
                if not self.is_test_file(f) and f.startswith("src/")]

    @staticmethod
    def is_test_file(rel):
        return re.search(r"\.(test|spec)\.[cm]?[jt]sx?$", rel) is not None or "/tests/" in rel \
            or "/__tests__/" in rel

    def functions(self):
        typescript = os.path.join(CORPUS, ".tools", "node_modules", "typescript")
        files = [os.path.join(self.root, f) for f in self.production_files()]
        done = run(["node", os.path.join(HERE, "ts_functions.cjs"), typescript, self.root] + files,
                   self.root, check=True)
        out = []
        for line in done.stdout.splitlines():
            f = json.loads(line)
            with open(os.path.join(self.root, f["file"]), encoding="utf-8") as fh:
                text = fh.read()
            # ts offsets count UTF-16 code units.
            units = text.encode("utf-16-le")
            offset = len(units[:2 * f["after"]].decode("utf-16-le"))
            if text[offset - 1] != "{":
                continue
            out.append(Function(f["file"], f["name"], f["line"], (offset, TS_MUTANT)))
        return out

    def suite(self, baseline=None):
        with tempfile.TemporaryDirectory() as tmp:
            report = os.path.join(tmp, "report.json")
            argv = ["npx", "--no-install", "vitest", "run", "--pool=threads", "--reporter=json",
                    "--outputFile=" + report]
            # Files in one context are 7 times faster; but when a mutant breaks the loading of
            # many files, that run can hang, and the suite is run again a file a context.
            try:
                run(argv + ["--no-isolate"], self.root, env={"CI": "1"}, timeout=90)
            except TimedOut:
                log("   vitest without isolation hung: again, isolated")
                run(argv, self.root, env={"CI": "1"}, timeout=600)
            if not os.path.exists(report):
                return None, [], True
            with open(report, encoding="utf-8") as f:
                data = json.load(f)
        failing, every = set(), set()
        for suite in data["testResults"]:
            file = os.path.relpath(suite["name"], self.root)
            cases = suite.get("assertionResults") or []
            for case in cases:
                test_id = f"{file}::" + " > ".join(case.get("ancestorTitles", []) + [case["title"]])
                every.add(test_id)
                if case["status"] == "failed":
                    failing.add(test_id)
            if suite.get("status") == "failed" and not any(
                    c["status"] == "failed" for c in cases):
                # The file failed to load.
                failing |= {t for t in (baseline or []) if self.file_of(t) == file}
        return failing, sorted(every), False

    def resolver(self):
        paths = {}
        try:
            with open(os.path.join(self.root, "tsconfig.json"), encoding="utf-8") as f:
                config = json.load(f)
            for alias, targets in config.get("compilerOptions", {}).get("paths", {}).items():
                paths[alias] = os.path.normpath(targets[0])
        except (OSError, ValueError):
            pass
        return paths

    def resolve(self, rel, spec, paths, files):
        if spec in paths:
            base = paths[spec]
        elif spec.startswith("."):
            base = os.path.normpath(os.path.join(os.path.dirname(rel), spec))
        else:
            return None
        stem = re.sub(r"\.(m|c)?js$", "", base)
        for candidate in (base, stem + ".ts", stem + ".tsx", stem + ".js", stem + ".mts",
                          os.path.join(stem, "index.ts"), os.path.join(stem, "index.js")):
            if candidate in files:
                return candidate
        return None

    def import_selector(self, function, tests):
        files = set(self.source_files((".ts", ".tsx", ".js", ".mjs", ".cjs")))
        paths = self.resolver()
        pattern = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']""")
        edges = {}
        for rel in files:
            with open(os.path.join(self.root, rel), encoding="utf-8") as f:
                text = f.read()
            edges[rel] = {r for r in (self.resolve(rel, s, paths, files)
                                      for s in pattern.findall(text)) if r}
        memo = {}

        def reaches(rel, seen):
            if rel == function.file:
                return True
            if rel in memo:
                return memo[rel]
            seen.add(rel)
            memo[rel] = any(reaches(n, seen) for n in edges.get(rel, ()) if n not in seen)
            return memo[rel]
        return {tf for tf in {self.file_of(t) for t in tests} if reaches(tf, set())}


KINDS = {"python": PythonProject, "rust": RustProject, "go": GoProject,
         "typescript": TypeScriptProject}


def load_projects():
    listing = os.path.join(CORPUS, "projects.tsv")
    if not os.path.exists(listing):
        sys.exit(f"no {listing}: run benches/affected-corpus.sh first")
    wanted = [p for p in os.environ.get("AFFECTED_PROJECTS", "").split(",") if p]
    out = []
    with open(listing, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, language, version, directory, import_root = (line.rstrip("\n").split("\t") + [""])[:5]
            if wanted and name not in wanted:
                continue
            out.append(KINDS[language](name, version, os.path.join(CORPUS, directory),
                                       import_root or "."))
    return out


# --- codegraph ---------------------------------------------------------------------------------

def codegraph_available():
    if not (os.path.isfile(CODEGRAPH) and os.access(CODEGRAPH, os.X_OK)):
        return f"no binary at {CODEGRAPH}"
    done = run([CODEGRAPH, "affected", "--help"], REPO, timeout=60)
    if done.returncode != 0:
        return f"{CODEGRAPH} has no `affected` command"
    return None


def codegraph_select(project):
    """(selected test ids or None, selected test files, the raw answer's counts, error)."""
    done = run([CODEGRAPH, "affected", "--repo", project.root, "--json"], project.root,
               timeout=600)
    if done.returncode != 0:
        return None, None, {"error": done.stderr.strip()[-2000:]}
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        return None, None, {"error": "not JSON: " + done.stdout[:500]}
    return answer.get("tests", []), answer.get("test_files", []), {
        "changed": [c.get("id") for c in answer.get("changed", [])],
        "unmodelled": answer.get("unmodelled", []),
    }


def codegraph_selected(project, tests, entries, files):
    """Which of the suite's tests the answer selects, read as its runner format would run them
    (`--format pytest|cargo|go|jest` print the same answer):
      Python      each test's node id selects that test (a class's id, all its tests); a file of
                  `test_files` that holds none of `tests` is run whole (conftest.py aside)
      Rust        libtest's filters: a test runs when one of the names is part of its path
      Go          a test runs when its package's directory and its name are those of a test
      TypeScript  the files of `test_files`, whole
    Returns (selected, selected by name rather than by whole file)."""
    language = project.language
    by_name, by_file = set(), set()
    if language == "python":
        names = {e.get("name", "") for e in entries if e.get("file", "").endswith(".py")}
        names = {"::".join(n.split("::")[:-1] + [strip_params(n.split("::")[-1])]) for n in names if n}
        whole = {os.path.normpath(f) for f in files if f.endswith(".py")
                 and not f.endswith("conftest.py")
                 and not any(e.get("file") == f for e in entries)}
        for t in tests:
            if t in names or any(t.startswith(n + "::") for n in names):
                by_name.add(t)
            elif os.path.normpath(project.file_of(t)) in whole:
                by_file.add(t)
    elif language == "rust":
        names = {e.get("name", "") for e in entries if e.get("file", "").endswith(".rs")}
        names.discard("")
        for t in tests:
            path = t.split("::", 1)[1]
            if any(n in path for n in names):
                by_name.add(t)
    elif language == "go":
        wanted = {((os.path.dirname(e.get("file", "")) or "."), e.get("name", "")) for e in entries
                  if e.get("file", "").endswith(".go")}
        for t in tests:
            file, _, name = t.partition("::")
            if ((os.path.dirname(file) or "."), name) in wanted:
                by_name.add(t)
    else:
        whole = {os.path.normpath(f) for f in files}
        for t in tests:
            if os.path.normpath(project.file_of(t)) in whole:
                by_file.add(t)
    return by_name | by_file, by_name


def pytest_check(project, selected):
    """Whether pytest takes `--format pytest`'s selection, and collects what the benchmark counts
    as selected."""
    done = run([CODEGRAPH, "affected", "--repo", project.root, "--format", "pytest"],
               project.root, timeout=600)
    items = done.stdout.split()
    if not items:
        return "--format pytest selects nothing"
    collected = project.pytest("--collect-only", *items)
    got = set()
    for line in collected.stdout.splitlines():
        if "::" in line and not line.startswith(("ERROR", "FAILED", "INTERNALERROR")):
            got.add(project.collected_id(line.strip()))
    rejected = [line.split("not found: ", 1)[1].replace(project.root + "/", "")
                for line in (collected.stdout + collected.stderr).splitlines()
                if "not found: " in line]
    verdict = (f"pytest takes `--format pytest` ({len(items)} items): collects {len(got)} tests, "
               f"{'the same as' if got == set(selected) else 'NOT the same as'} the "
               f"{len(selected)} counted here")
    if collected.returncode not in (0, 5):
        verdict = (f"pytest REFUSES `--format pytest` ({len(items)} items; exit "
                   f"{collected.returncode}, {len(rejected)} node ids not found, e.g. "
                   f"{', '.join(rejected[:2])}); counted here: the {len(selected)} tests the "
                   f"other ids name")
    return verdict


# --- the run ----------------------------------------------------------------------------------

def load_cache(path):
    cache = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                cache[row["key"]] = row
    return cache


def cache_key(project, function_key):
    return f"{project.name}|{project.version}|{function_key}|seed={SEED}"


def measure(project, cache, cache_file, out, codegraph_note):
    log(f"== {project.name} {project.version} ({project.language})")
    git_restore(project.root)
    key = cache_key(project, "(clean tree)")
    if key in cache:
        baseline = cache[key]["tests"]
    else:
        started = time.monotonic()
        failing, baseline, broken = project.suite()
        if broken or failing:
            raise RuntimeError(f"{project.name}: the clean suite does not pass: {sorted(failing or [])[:5]}")
        row = {"key": key, "tests": baseline, "seconds": time.monotonic() - started}
        cache[key] = row
        cache_file.write(json.dumps(row) + "\n")
        cache_file.flush()
    log(f"   {len(baseline)} tests in the suite")
    functions = sorted(project.functions(), key=lambda f: f.key)
    rng = random.Random(f"{SEED}:{project.name}")
    sample = rng.sample(functions, min(SAMPLES, len(functions)))
    log(f"   {len(functions)} production functions, {len(sample)} sampled")
    use_testmon = "testmon" in SELECTORS and project.language == "python"
    if use_testmon:
        project.testmon_record()
    checked_testmon = checked_pytest = False
    rows = []
    for number, function in enumerate(sample, 1):
        key = cache_key(project, function.key)
        project.apply(function)
        try:
            if key in cache:
                truth = cache[key]
            else:
                started = time.monotonic()
                try:
                    failing, _, broken = project.suite(baseline)
                except TimedOut:
                    failing, broken = None, "timeout"
                truth = {"key": key, "project": project.name, "version": project.version,
                         "seed": SEED, "function": function.key,
                         "failing": None if failing is None else sorted(failing),
                         "broken": broken, "seconds": round(time.monotonic() - started, 3)}
                cache[key] = truth
                cache_file.write(json.dumps(truth) + "\n")
                cache_file.flush()
            row = {"project": project.name, "version": project.version, "language": project.language,
                   "seed": SEED, "function": {"file": function.file, "name": function.name,
                                              "line": function.line},
                   "failing": truth["failing"], "broken": truth["broken"],
                   "suite_seconds": truth["seconds"], "tests_in_suite": len(baseline),
                   "selectors": {}}
            if truth["failing"] is None:
                row["not_built"] = True
            else:
                if "codegraph" in SELECTORS and not codegraph_note:
                    started = time.monotonic()
                    entries, files, info = codegraph_select(project)
                    seconds = time.monotonic() - started
                    if entries is None:
                        row["selectors"]["codegraph"] = {"error": info["error"], "seconds": seconds}
                    else:
                        selected, named = codegraph_selected(project, baseline, entries, files)
                        row["selectors"]["codegraph"] = {
                            "selected": sorted(selected), "named": len(named),
                            "seconds": seconds, "raw_tests": len(entries),
                            "raw_files": sorted(files), **info}
                        whole = {os.path.normpath(f) for f in files}
                        row["selectors"]["cg-files"] = {
                            "selected": sorted(set(selected) | {
                                t for t in baseline
                                if os.path.normpath(project.file_of(t)) in whole}),
                            "seconds": seconds}
                        # Checked on a mutant that leaves the suite collectable: one that
                        # fails every test may break `conftest.py`, and pytest then takes no ids.
                        if project.language == "python" and not checked_pytest and truth["failing"] \
                                and len(truth["failing"]) < len(baseline) and selected:
                            checked_pytest = True
                            log("   codegraph check: " + pytest_check(project, selected))
                if use_testmon:
                    if not checked_testmon and truth["failing"]:
                        same, listed, ran = project.testmon_check()
                        if listed:  # checked on a mutant for which testmon selects tests
                            log(f"   testmon check: --collect-only lists {listed}, --testmon runs "
                                f"{ran}: {'the same tests' if same else 'DIFFERENT'}")
                            checked_testmon = True
                    started = time.monotonic()
                    selected = project.testmon_select()
                    seconds = time.monotonic() - started
                    row["selectors"]["testmon"] = {
                        "selected": sorted(selected & set(baseline)), "seconds": seconds}
                if "imports" in SELECTORS:
                    started = time.monotonic()
                    files = project.import_selector(function, baseline)
                    seconds = time.monotonic() - started
                    row["selectors"]["imports"] = {
                        "selected": sorted(t for t in baseline if project.file_of(t) in files),
                        "seconds": seconds}
        finally:
            git_restore(project.root)
        caught = len(row["failing"] or [])
        log(f"   [{number}/{len(sample)}] {function.key}: {caught} failing"
            + ("".join(f", {name} {len(s.get('selected', []))}" + ("" if "error" not in s else " (error)")
                       for name, s in row["selectors"].items())))
        out.write(json.dumps(row) + "\n")
        out.flush()
        rows.append(row)
    if use_testmon:
        for suffix in ("", "-shm", "-wal"):
            path = os.path.join(project.root, ".testmondata" + suffix)
            if os.path.exists(path):
                os.remove(path)
    return rows


def summarize(rows, selectors):
    built = [r for r in rows if r["failing"] is not None]
    caught = [r for r in built if r["failing"]]
    line = {"mutants": len(rows), "not built": len(rows) - len(built), "caught": len(caught),
            "selectors": {}}
    for name in selectors:
        have = [r for r in caught if name in r["selectors"] and "selected" in r["selectors"][name]]
        if not have:
            continue
        safe = 0
        failing_total = failing_selected = 0
        sizes = []
        for r in have:
            selected = set(r["selectors"][name]["selected"])
            failing = set(r["failing"])
            safe += failing <= selected
            failing_total += len(failing)
            failing_selected += len(failing & selected)
            sizes.append(len(selected) / max(1, r["tests_in_suite"]))
        times = [r["selectors"][name]["seconds"] for r in built
                 if name in r["selectors"] and "seconds" in r["selectors"][name]]
        errors = sum(1 for r in built if "error" in r["selectors"].get(name, {}))
        line["selectors"][name] = {
            "measured": len(have), "safe": safe, "safety": safe / len(have),
            "recall": failing_selected / max(1, failing_total),
            "size_mean": statistics.mean(sizes), "size_median": statistics.median(sizes),
            "seconds_mean": statistics.mean(times) if times else 0.0, "errors": errors}
    return line


def print_table(by_project, selectors):
    header = (f"{'project':<22} {'selector':<10} {'mutants':>7} {'caught':>6} {'safety':>13} "
              f"{'recall':>6} {'size mean':>9} {'size median':>11} {'time mean':>9}")
    print(header)
    print("-" * len(header))
    for name, line in by_project:
        first = True
        if not line["selectors"]:
            print(f"{name:<22} {'-':<10} {line['mutants']:>7} {line['caught']:>6}")
        for selector, s in line["selectors"].items():
            print(f"{name if first else '':<22} {selector:<10} "
                  f"{line['mutants'] if first else '':>7} {line['caught'] if first else '':>6} "
                  f"{s['safety']:>6.2f} ({s['safe']:>2}/{s['measured']:>2}) {s['recall']:>6.2f} "
                  f"{s['size_mean']:>9.3f} {s['size_median']:>11.3f} {s['seconds_mean']:>8.2f}s"
                  + (f"  ({s['errors']} errors)" if s["errors"] else ""))
            first = False
    print()


def main():
    os.makedirs(RESULTS, exist_ok=True)
    projects = load_projects()
    selectors = [s for s in ("codegraph", "cg-files", "testmon", "imports")
                 if s in SELECTORS or (s == "cg-files" and "codegraph" in SELECTORS)]
    codegraph_note = codegraph_available() if "codegraph" in selectors else None
    if codegraph_note:
        log(f"codegraph selector skipped: {codegraph_note}")
    cache_path = os.path.join(RESULTS, "ground-truth.jsonl")
    cache = load_cache(cache_path)
    all_rows = []
    started = time.monotonic()
    with open(cache_path, "a", encoding="utf-8") as cache_file, \
            open(os.path.join(RESULTS, "mutants.jsonl"), "w", encoding="utf-8") as out:
        for project in projects:
            all_rows += measure(project, cache, cache_file, out, codegraph_note)
    elapsed = time.monotonic() - started

    print(f"\nTest selection against mutation testing: {SAMPLES} sampled functions a project, "
          f"seed {SEED}")
    print("safety: caught mutants whose failing tests are all selected; recall: failing tests "
          "selected;\nsize: selected tests / tests in the suite over caught mutants; time: per "
          "selection\n")
    by_project = []
    for project in projects:
        rows = [r for r in all_rows if r["project"] == project.name]
        by_project.append((f"{project.name} {project.version}", summarize(rows, selectors)))
    by_project.append(("all", summarize(all_rows, selectors)))
    print_table(by_project, selectors)
    suite_seconds = sum(r["suite_seconds"] for r in all_rows)
    uncaught = sum(1 for r in all_rows if r["failing"] == [])
    not_built = sum(1 for r in all_rows if r["failing"] is None)
    print(f"{len(all_rows)} mutants: {len(all_rows) - uncaught - not_built} caught, {uncaught} "
          f"caught by no test (counted apart), {not_built} that do not build; ground truth "
          f"{suite_seconds:.0f} s of suite runs (cached runs count their first time); this run "
          f"{elapsed:.0f} s")
    if codegraph_note:
        print(f"codegraph: not measured ({codegraph_note})")
    for name in ("codegraph",) + tuple(s for s in selectors if s != "codegraph"):
        misses = [r for r in all_rows if r["failing"] and name in r["selectors"]
                  and "selected" in r["selectors"][name]
                  and not set(r["failing"]) <= set(r["selectors"][name]["selected"])]
        if name not in selectors or not any(name in r["selectors"] for r in all_rows):
            continue
        print(f"\n{name}: {len(misses)} safety misses")
        if name != "codegraph":
            continue
        for r in misses:
            f = r["function"]
            missed = sorted(set(r["failing"]) - set(r["selectors"][name]["selected"]))
            print(f"  {r['project']}: {f['file']}:{f['line']} {f['name']}: {len(missed)} of "
                  f"{len(r['failing'])} failing tests not selected")
            for t in missed[:8]:
                print(f"      {t}")
            if len(missed) > 8:
                print(f"      ... {len(missed) - 8} more")
    errors = [r for r in all_rows if "error" in r["selectors"].get("codegraph", {})]
    for r in errors[:5]:
        print(f"\ncodegraph error on {r['project']} {r['function']['name']}: "
              f"{r['selectors']['codegraph']['error'][:500]}")


if __name__ == "__main__":
    main()
