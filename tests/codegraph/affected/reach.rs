//! What the walk follows beyond direct calls, each change's exact selection: a Go import whose
//! path is not the package's name, a special method reaching who constructs its class, a class
//! held as a value, an override under a generic base, names used through a package that
//! re-exports them, a static method bound at module level and exported under another name, a
//! name in a docstring or a comment (no value) and in a doctest (run by the tests that run
//! doctests), a builtin class named as a receiver (Python's own), a method named through
//! another class, a class in a header's annotation, a parameter named as a function, a method of
//! a string literal.

use codegraph::analysis::affected::Format;

use super::Repo;

#[test]
fn a_go_package_imported_under_its_name_not_its_path_reaches_its_importers_tests() {
    let repo = Repo::new(&[
        ("go.mod", "module example.com/go-calc\n\ngo 1.21\n"),
        (
            "calc.go",
            "package calc\n\nfunc Comma(v int) string { return string(rune(v)) }\n\nfunc Other() int { return 1 }\n",
        ),
        (
            "words/words.go",
            "package words\n\nimport (\n\tcalc \"example.com/go-calc\"\n)\n\nfunc Plural(n int) string { return calc.Comma(n) + \"s\" }\n",
        ),
        (
            "words/words_test.go",
            "package words\n\nimport \"testing\"\n\nfunc TestPlural(t *testing.T) {\n\tif Plural(1) == \"\" {\n\t\tt.Fatal()\n\t}\n}\n\nfunc TestNothing(t *testing.T) {}\n",
        ),
        (
            "units/units.go",
            "package units\n\nimport \"example.com/go-calc\"\n\nfunc Count(n int) string { return calc.Comma(n) }\n",
        ),
        (
            "units/units_test.go",
            "package units\n\nimport \"testing\"\n\nfunc TestCount(t *testing.T) {\n\tif Count(1) == \"\" {\n\t\tt.Fatal()\n\t}\n}\n",
        ),
    ]);
    repo.replace("calc.go", "string(rune(v))", "string(rune(v + 1))");
    assert_eq!(
        repo.affected(Format::Go).1,
        ["./units ^(TestCount)$", "./words ^(TestPlural)$"]
    );
}

/// The tests of `repo` selected for its change since HEAD, as pytest node ids.
fn pytest(repo: &Repo) -> Vec<String> {
    repo.affected(Format::Pytest).1
}

#[test]
fn a_special_method_reaches_who_constructs_its_class_and_a_function_named_through_its_module() {
    let repo = Repo::new(&[
        ("pkg/__init__.py", ""),
        (
            "pkg/keys.py",
            "class _Key(tuple):\n    def __hash__(self):\n        return tuple.__hash__(self)\n\n\ndef hashkey(*args):\n    return _Key(args)\n",
        ),
        (
            "pkg/cache.py",
            "from pkg import keys\n\n\ndef cached(func, key=keys.hashkey):\n    def wrapper(*args):\n        return func(*args), hash(key(*args))\n\n    return wrapper\n",
        ),
        (
            "tests/test_cache.py",
            "from pkg.cache import cached\n\n\ndef test_cached():\n    assert cached(len)(\"ab\")[0] == 2\n",
        ),
        (
            "tests/test_other.py",
            "def test_other():\n    assert True\n",
        ),
    ]);
    repo.replace("pkg/keys.py", "return tuple.__hash__(self)", "return 0");
    assert_eq!(pytest(&repo), ["tests/test_cache.py::test_cached"]);
}

#[test]
fn a_class_held_in_a_test_class_through_its_module_runs_that_test_classs_tests() {
    let repo = Repo::new(&[
        (
            "pkg/__init__.py",
            "class Cache:\n    def __setitem__(self, key, value):\n        self.data = {key: value}\n\n\nclass Other:\n    pass\n",
        ),
        (
            "tests/__init__.py",
            "class CacheMixin:\n    Cache = None\n\n    def test_subclass(self):\n        class Sub(self.Cache):\n            pass\n\n        Sub()[1] = 2\n",
        ),
        (
            "tests/test_cache.py",
            "import unittest\n\nimport pkg\n\nfrom tests import CacheMixin\n\n\nclass CacheTest(unittest.TestCase, CacheMixin):\n    Cache = pkg.Cache\n",
        ),
        (
            "tests/test_other.py",
            "import unittest\n\nimport pkg\n\nfrom tests import CacheMixin\n\n\nclass OtherTest(unittest.TestCase, CacheMixin):\n    Cache = pkg.Other\n",
        ),
    ]);
    repo.replace("pkg/__init__.py", "{key: value}", "{value: key}");
    assert_eq!(
        pytest(&repo),
        ["tests/test_cache.py::CacheTest::test_subclass"]
    );
}

#[test]
fn a_method_of_a_class_held_in_a_class_attribute_reaches_the_holders_users() {
    let repo = Repo::new(&[
        (
            "pkg/codec.py",
            "class _Compact:\n    @staticmethod\n    def dumps(obj):\n        return str(obj)\n",
        ),
        (
            "pkg/serializer.py",
            "import json\nfrom typing import Protocol\n\nfrom pkg.codec import _Compact\n\n\nclass Codec(Protocol):\n    def dumps(self, obj): ...\n\n\nclass Serializer:\n    default = json\n\n    def __init__(self):\n        self.codec: Codec = self.default\n\n    def dumps(self, obj):\n        return self.codec.dumps(obj)\n\n\nclass CompactSerializer(Serializer):\n    default = _Compact\n",
        ),
        (
            "tests/test_serializer.py",
            "from pkg.serializer import CompactSerializer, Serializer\n\n\ndef test_plain():\n    assert Serializer().dumps(1) == \"1\"\n\n\ndef test_compact():\n    assert CompactSerializer().dumps(1) == \"1\"\n",
        ),
    ]);
    repo.replace("pkg/codec.py", "return str(obj)", "return repr(obj)");
    assert_eq!(pytest(&repo), ["tests/test_serializer.py::test_compact"]);
}

#[test]
fn an_override_in_a_mixin_of_a_generic_base_reaches_the_calls_through_that_base() {
    let repo = Repo::new(&[
        (
            "pkg/base.py",
            "from typing import Generic, TypeVar\n\nT = TypeVar(\"T\")\n\n\nclass Serializer(Generic[T]):\n    def dumps(self, obj):\n        return self.dump_payload(obj)\n\n    def dump_payload(self, obj):\n        return str(obj)\n",
        ),
        (
            "pkg/url.py",
            "from pkg.base import Serializer\n\n\nclass URLSafeMixin(Serializer[str]):\n    def dump_payload(self, obj):\n        return super().dump_payload(obj).replace(\"+\", \"-\")\n\n\nclass URLSafeSerializer(URLSafeMixin, Serializer[str]):\n    pass\n",
        ),
        (
            "tests/test_url.py",
            "from pkg.url import URLSafeSerializer\n\n\ndef test_url():\n    assert URLSafeSerializer().dumps(1) == \"1\"\n",
        ),
        (
            "tests/test_base.py",
            "from pkg.base import Serializer\n\n\ndef test_base():\n    assert Serializer().dumps(1) == \"1\"\n\n\ndef test_none():\n    assert True\n",
        ),
    ]);
    repo.replace(
        "pkg/url.py",
        "replace(\"+\", \"-\")",
        "replace(\"/\", \"_\")",
    );
    // `Serializer.dumps` calls `self.dump_payload`, which runs the mixin's override on a
    // `URLSafeSerializer`; `test_base` builds no instance of the mixin, so it cannot run it.
    assert_eq!(pytest(&repo), ["tests/test_url.py::test_url"]);
}

#[test]
fn a_class_or_function_named_through_a_package_that_re_exports_it_reaches_its_holders() {
    let repo = Repo::new(&[
        ("pkg/__init__.py", "from .more import *\n"),
        (
            "pkg/more.py",
            "class peekable:\n    def __init__(self, iterable):\n        self._it = iter(iterable)\n\n    def __bool__(self):\n        try:\n            self.peek()\n        except StopIteration:\n            return False\n        return True\n\n    def peek(self):\n        return next(self._it)\n\n\ndef windowed(seq, n):\n    return seq[:n]\n",
        ),
        (
            "tests/test_more.py",
            "from functools import partial\nfrom unittest import TestCase\n\nimport pkg as mi\n\n\nclass PeekableMixin:\n    cls = None\n\n    def test_truthiness(self):\n        self.assertTrue(self.cls([1]))\n\n\nclass PeekableTests(PeekableMixin, TestCase):\n    cls = mi.peekable\n\n\nclass WindowedTests(TestCase):\n    def test_partial(self):\n        self.assertEqual(list(map(partial(mi.windowed, [1, 2]), [1])), [[1]])\n\n    def test_other(self):\n        self.assertTrue(True)\n",
        ),
    ]);
    // `bool(p)` runs `__bool__`, which calls the changed method.
    repo.replace(
        "pkg/more.py",
        "return next(self._it)",
        "return next(self._it, None)",
    );
    assert_eq!(
        pytest(&repo),
        ["tests/test_more.py::PeekableTests::test_truthiness"]
    );
    repo.reset();
    repo.replace("pkg/more.py", "return seq[:n]", "return seq[: n + 1]");
    assert_eq!(
        pytest(&repo),
        ["tests/test_more.py::WindowedTests::test_partial"]
    );
}

#[test]
fn a_static_method_bound_and_exported_under_another_name_reaches_the_files_that_import_it() {
    let repo = Repo::new(&[
        (
            "package.json",
            "{\"name\": \"m\", \"version\": \"1.0.0\"}\n",
        ),
        (
            "src/types.ts",
            "export class Effects {\n  static createWithPreprocess = (value: number) => {\n    return value + 1;\n  };\n}\n\nconst preprocessType = Effects.createWithPreprocess;\n\nexport { preprocessType as preprocess };\n",
        ),
        ("src/external.ts", "export * from \"./types\";\n"),
        (
            "src/index.ts",
            "import * as z from \"./external\";\nexport * from \"./external\";\nexport { z };\n",
        ),
        (
            "src/helper.ts",
            "export function helper() {\n  return 1;\n}\n",
        ),
        (
            "test/preprocess.test.ts",
            "import * as z from \"../src/index\";\n\ntest(\"preprocess\", () => {\n  expect(z.preprocess(1)).toBe(2);\n});\n",
        ),
        (
            "test/helper.test.ts",
            "import { helper } from \"../src/helper\";\n\ntest(\"helper\", () => {\n  expect(helper()).toBe(1);\n});\n",
        ),
    ]);
    repo.replace("src/types.ts", "return value + 1;", "return value + 2;");
    assert_eq!(repo.affected(Format::Jest).1, ["test/preprocess.test.ts"]);
}

const HIERARCHY: &str = "class Base:\n    def make(self):\n        return \"base\"\n\n\nclass Left(Base):\n    def make(self):\n        return super().make() + \"left\"\n\n\nclass Right(Base):\n    def make(self):\n        return Base.make(self) + \"right\"\n\n\nclass Other(Base):\n    def make(self):\n        return \"other\"\n\n\ndef use(value: Base):\n    return value.make()\n";

const HIERARCHY_TESTS: &str = "from pkg.shapes import Left, Other, Right, use\n\n\ndef test_left():\n    assert Left().make() == \"baseleft\"\n\n\ndef test_right():\n    assert Right().make() == \"baseright\"\n\n\ndef test_use():\n    assert use(Other()) == \"other\"\n";

#[test]
fn an_override_is_not_reached_through_calls_that_name_the_class_whose_method_runs() {
    // `super().make()` in `Left` and `Base.make(self)` in `Right` run `Base.make`, never
    // `Other.make`; `value.make()` on a `Base` may run it.
    let repo = Repo::new(&[
        ("pkg/__init__.py", ""),
        ("pkg/shapes.py", HIERARCHY),
        ("tests/test_shapes.py", HIERARCHY_TESTS),
    ]);
    repo.replace("pkg/shapes.py", "return \"other\"", "return \"others\"");
    assert_eq!(pytest(&repo), ["tests/test_shapes.py::test_use"]);
}

#[test]
fn a_super_call_reaches_an_override_that_a_class_mixing_both_in_puts_after_it() {
    // In `Mixed(Left, Other)`, `super().make()` in `Left` runs `Other.make`.
    let hierarchy = format!("{HIERARCHY}\n\nclass Mixed(Left, Other):\n    pass\n");
    let tests = format!(
        "{HIERARCHY_TESTS}\n\ndef test_mixed():\n    from pkg.shapes import Mixed\n\n    assert Mixed().make() == \"otherleft\"\n"
    );
    let repo = Repo::new(&[
        ("pkg/__init__.py", ""),
        ("pkg/shapes.py", &hierarchy),
        ("tests/test_shapes.py", &tests),
    ]);
    repo.replace("pkg/shapes.py", "return \"other\"", "return \"others\"");
    // `Left.make` reaches `Other.make` through `super()`, but `test_left` builds only a `Left`,
    // which has no `Other` among its bases.
    assert_eq!(
        pytest(&repo),
        [
            "tests/test_shapes.py::test_use",
            "tests/test_shapes.py::test_mixed"
        ]
    );
}

#[test]
fn a_decorator_named_through_the_package_that_imports_it_reaches_the_tests_that_apply_it() {
    // `click.pass_context`: the package's `__init__.py` imports the name, the tests use it
    // as an attribute of the package, uncalled, as a decorator.
    let repo = Repo::new(&[
        (
            "src/click/__init__.py",
            "from .decorators import pass_context as pass_context\nfrom .core import run as run\n",
        ),
        (
            "src/click/decorators.py",
            "def pass_context(f):\n    def new_func(*args):\n        return f(\"context\", *args)\n\n    return new_func\n",
        ),
        ("src/click/core.py", "def run(f):\n    return f()\n"),
        (
            "tests/test_context.py",
            "import click\n\n\ndef test_context():\n    @click.pass_context\n    def cli(ctx):\n        return ctx\n\n    assert click.run(cli) == \"context\"\n\n\ndef test_run():\n    assert click.run(lambda: 1) == 1\n",
        ),
    ]);
    repo.replace("src/click/decorators.py", "\"context\"", "\"ctx\"");
    assert_eq!(pytest(&repo), ["tests/test_context.py::test_context"]);
}

#[test]
fn an_import_hook_reaches_the_tests_that_import_the_package_it_is_registered_by() {
    // `find_spec` is called by Python's import system for the finder `tlz` puts on
    // `sys.meta_path` when it is imported.
    let repo = Repo::new(&[
        ("tlz/__init__.py", "from . import _build_tlz\n"),
        (
            "tlz/_build_tlz.py",
            "import sys\n\n\nclass TlzLoader:\n    def find_spec(self, fullname, path, target=None):\n        if fullname.startswith(\"tlz.\"):\n            return None\n        return None\n\n\ntlz_loader = TlzLoader()\nsys.meta_path.append(tlz_loader)\n",
        ),
        ("toolz/__init__.py", "def curry(f):\n    return f\n"),
        (
            "toolz/tests/test_tlz.py",
            "def test_tlz():\n    import tlz\n\n    assert tlz.__name__ == \"tlz\"\n",
        ),
        (
            "toolz/tests/test_curry.py",
            "from toolz import curry\n\n\ndef test_curry():\n    assert curry(len)(\"a\") == 1\n",
        ),
    ]);
    repo.replace(
        "tlz/_build_tlz.py",
        "return None\n        return",
        "return 1\n        return",
    );
    assert_eq!(pytest(&repo), ["toolz/tests/test_tlz.py::test_tlz"]);
}

#[test]
fn a_function_named_in_a_docstring_or_a_comment_is_no_value_but_one_in_a_doctest_runs_with_it() {
    let repo = Repo::new(&[
        (
            "pkg.py",
            "def thread(value):\n    return value\n\n\ndef pipe(value):\n    \"\"\"See also: thread\"\"\"\n    return value  # thread is faster\n\n\ndef compose(value):\n    \"\"\"\n    >>> apply(thread, 1)\n    1\n    \"\"\"\n    return value\n",
        ),
        (
            "tests/test_pkg.py",
            "from pkg import compose, pipe\n\n\ndef test_pipe():\n    assert pipe(1) == 1\n\n\ndef test_compose():\n    assert compose(1) == 1\n",
        ),
        (
            "tests/test_doctests.py",
            "import doctest\n\nimport pkg\n\n\ndef test_doctests():\n    assert doctest.testmod(pkg).failed == 0\n\n\ndef test_nothing():\n    assert pkg\n",
        ),
    ]);
    repo.replace(
        "pkg.py",
        "    return value\n\n\ndef pipe",
        "    return -value\n\n\ndef pipe",
    );
    // `compose`'s example calls `thread`: compose's callers, and the test running its examples.
    assert_eq!(
        pytest(&repo),
        [
            "tests/test_doctests.py::test_doctests",
            "tests/test_pkg.py::test_compose"
        ]
    );
}

#[test]
fn a_builtin_class_named_as_a_receiver_calls_none_of_the_workspaces_methods() {
    let repo = Repo::new(&[
        (
            "pkg.py",
            "class Lazy(property):\n    def __init__(self, fget):\n        property.__init__(self, fget)\n\n\nclass Box:\n    def __init__(self, value):\n        self.value = value\n\n\ndef make():\n    return Box(1)\n",
        ),
        (
            "tests/test_pkg.py",
            "from pkg import Lazy, make\n\n\ndef test_box():\n    assert make().value == 1\n\n\ndef test_lazy():\n    assert Lazy(len)\n",
        ),
    ]);
    // `property.__init__` is Python's own: no unresolved call of `Box.__init__`.
    repo.replace("pkg.py", "self.value = value", "self.value = value + 0");
    assert_eq!(pytest(&repo), ["tests/test_pkg.py::test_box"]);
}

/// The ids of the entities `repo`'s change since HEAD affects.
fn affected_ids(repo: &Repo) -> Vec<String> {
    let (world, _) = crate::support::index(repo.root());
    let (_, answer) = world.affected("HEAD").unwrap();
    answer
        .impact
        .affected
        .iter()
        .map(|affected| affected.id.to_string())
        .collect()
}

#[test]
fn a_method_named_through_another_class_is_not_a_mention_of_an_override() {
    let repo = Repo::new(&[(
        "caches.py",
        "class Cache:\n    def __setitem__(self, key, value):\n        self.data = {key: value}\n\n\nclass LRUCache(Cache):\n    def __setitem__(self, key, value, cache_setitem=Cache.__setitem__):\n        cache_setitem(self, key, value)\n\n\nclass TTLCache(Cache):\n    def __setitem__(self, key, value, cache_setitem=Cache.__setitem__):\n        return cache_setitem(self, key, value)\n",
    )]);
    // `Cache.__setitem__` in `LRUCache` names the base's method, not `TTLCache`'s.
    repo.replace(
        "caches.py",
        "return cache_setitem",
        "self.ttl = 1\n        return cache_setitem",
    );
    assert_eq!(affected_ids(&repo), ["caches.py::TTLCache"]);
}

#[test]
fn a_class_named_in_a_headers_annotation_is_a_type_not_a_value_held() {
    let repo = Repo::new(&[
        (
            "codec.py",
            "from __future__ import annotations\n\nimport typing as t\n\nT = t.TypeVar(\"T\")\n\n\nclass Codec(t.Generic[T]):\n    @t.overload\n    def load(self: Codec[str], data: str) -> str: ...\n\n    @t.overload\n    def load(self: Codec[bytes], data: bytes) -> bytes: ...\n\n    def load(self, data):\n        return data\n\n    def dumps(self, obj):\n        return str(obj)\n",
        ),
        (
            "tests/test_codec.py",
            "from codec import Codec\n\n\ndef test_load():\n    assert Codec().load(\"a\") == \"a\"\n\n\ndef test_dumps():\n    assert Codec().dumps(1) == \"1\"\n",
        ),
    ]);
    // `load`'s overloads name `Codec` as the type of `self`: they do not hold the class.
    repo.replace("codec.py", "return str(obj)", "return repr(obj)");
    assert_eq!(pytest(&repo), ["tests/test_codec.py::test_dumps"]);
}

#[test]
fn a_parameter_named_as_a_function_is_the_parameter_in_its_body() {
    let repo = Repo::new(&[
        (
            "pkg.py",
            "def complete(value):\n    return value\n\n\nclass Option:\n    def __init__(self, complete=None):\n        self.complete = complete\n\n\ndef run(value):\n    return complete(value)\n",
        ),
        (
            "tests/test_pkg.py",
            "from pkg import Option, run\n\n\ndef test_option():\n    assert Option().complete is None\n\n\ndef test_run():\n    assert run(1) == 1\n",
        ),
    ]);
    // `self.complete = complete` stores the parameter, not the function.
    repo.replace(
        "pkg.py",
        "    return value\n\n\nclass",
        "    return value + 0\n\n\nclass",
    );
    assert_eq!(pytest(&repo), ["tests/test_pkg.py::test_run"]);
}

#[test]
fn a_method_of_a_string_literal_is_pythons_own() {
    let repo = Repo::new(&[
        (
            "pkg/joins.py",
            "def join(left, right):\n    return left + right\n",
        ),
        (
            "pkg/names.py",
            "def names(items):\n    return \", \".join(items)\n",
        ),
        (
            "tests/test_pkg.py",
            "from pkg.joins import join\nfrom pkg.names import names\n\n\ndef test_join():\n    assert join(\"a\", \"b\") == \"ab\"\n\n\ndef test_names():\n    assert names([\"a\"]) == \"a\"\n",
        ),
    ]);
    // `", ".join(items)` is `str.join`, not an unresolved call of the workspace's `join`.
    repo.replace("pkg/joins.py", "return left + right", "return right + left");
    assert_eq!(pytest(&repo), ["tests/test_pkg.py::test_join"]);
}

#[test]
fn a_call_left_aside_in_a_packages_own_code_runs_when_any_of_its_modules_is_imported() {
    let repo = Repo::new(&[
        (
            "pkg/__init__.py",
            "from .core import *\n\ncore._registry.fill()\n",
        ),
        (
            "pkg/core.py",
            "def helper():\n    return 1\n\n\nfrom pkg import registry as _registry\n",
        ),
        (
            "pkg/registry.py",
            "TABLE = {}\n\n\ndef fill():\n    TABLE[\"a\"] = 1\n",
        ),
        ("pkg/other.py", "def alone():\n    return 0\n"),
        (
            "tests/test_other.py",
            "from pkg.other import alone\n\n\ndef test_alone():\n    assert alone() == 0\n",
        ),
    ]);
    // `core._registry.fill()` is left aside (`core` is bound by no import of `__init__.py`); it
    // runs whenever `pkg` is imported, which importing `pkg.other` does.
    repo.replace("pkg/registry.py", "TABLE[\"a\"] = 1", "TABLE[\"a\"] = 2");
    assert_eq!(pytest(&repo), ["tests/test_other.py::test_alone"]);
}
