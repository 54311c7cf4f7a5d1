//! A changed method's tests narrowed by the instance it runs on: each change's exact selection
//! where the walk from the method alone reaches further (through its base's calls on `self`),
//! and where an instance may exist without a test naming its class.

use codegraph::analysis::affected::Format;

use super::Repo;

/// A base whose `__setitem__` calls `self.popitem()`, which each cache overrides.
const CACHES: &str = "class Cache:\n    def __init__(self):\n        self.data = {}\n\n    def __setitem__(self, key, value):\n        if len(self.data) > 2:\n            self.popitem()\n        self.data[key] = value\n\n    def popitem(self):\n        return self.data.popitem()\n\n\nclass FIFOCache(Cache):\n    def popitem(self):\n        key = next(iter(self.data))\n        return key, self.data.pop(key)\n\n\nclass LRUCache(Cache):\n    def popitem(self):\n        return self.data.popitem()\n";

/// Tests written once in a mixin, run by one test class per cache through a class attribute.
const MIXIN: &str = "class CacheTestMixin:\n    Cache = None\n\n    def test_insert(self):\n        cache = self.Cache()\n        for key in range(4):\n            cache[key] = key\n";

/// The tests of `repo` selected for its change since HEAD, as pytest node ids.
fn pytest(repo: &Repo) -> Vec<String> {
    repo.affected(Format::Pytest).1
}

#[test]
fn an_override_runs_only_in_the_tests_that_hold_an_instance_of_its_class() {
    let repo = Repo::new(&[
        ("pkg/__init__.py", ""),
        ("pkg/caches.py", CACHES),
        ("tests/__init__.py", MIXIN),
        (
            "tests/test_fifo.py",
            "import unittest\n\nfrom pkg.caches import FIFOCache\n\nfrom . import CacheTestMixin\n\n\nclass FIFOCacheTest(unittest.TestCase, CacheTestMixin):\n    Cache = FIFOCache\n",
        ),
        (
            "tests/test_lru.py",
            "import unittest\n\nfrom pkg.caches import LRUCache\n\nfrom . import CacheTestMixin\n\n\nclass LRUCacheTest(unittest.TestCase, CacheTestMixin):\n    Cache = LRUCache\n\n\ndef test_lru_alone():\n    cache = LRUCache()\n    cache[1] = 1\n",
        ),
    ]);
    // `Cache.__setitem__` may run `FIFOCache.popitem`, and every test sets an item; only the
    // FIFO test class has a `FIFOCache`.
    repo.replace(
        "pkg/caches.py",
        "key = next(iter(self.data))",
        "key = min(self.data)",
    );
    assert_eq!(
        pytest(&repo),
        ["tests/test_fifo.py::FIFOCacheTest::test_insert"]
    );
}

#[test]
fn an_instance_made_when_a_module_is_imported_keeps_every_caller() {
    let repo = Repo::new(&[
        ("pkg/__init__.py", ""),
        ("pkg/caches.py", CACHES),
        (
            "pkg/defaults.py",
            "from pkg.caches import FIFOCache\n\nDEFAULT = FIFOCache()\n",
        ),
        (
            "pkg/api.py",
            "from pkg import defaults\n\n\ndef remember(key, value):\n    defaults.DEFAULT[key] = value\n",
        ),
        (
            "tests/test_api.py",
            "from pkg.api import remember\n\n\ndef test_remember():\n    for key in range(4):\n        remember(key, key)\n",
        ),
        (
            "tests/test_lru.py",
            "from pkg.caches import LRUCache\n\n\ndef test_lru():\n    cache = LRUCache()\n    cache[1] = 1\n",
        ),
    ]);
    // No test names `FIFOCache`, yet `test_remember` runs its `popitem`: an instance made at
    // import time leaves the selection whole.
    repo.replace(
        "pkg/caches.py",
        "key = next(iter(self.data))",
        "key = min(self.data)",
    );
    assert_eq!(
        pytest(&repo),
        [
            "tests/test_api.py::test_remember",
            "tests/test_lru.py::test_lru"
        ]
    );
}

#[test]
fn an_instance_made_in_a_test_classs_set_up_runs_in_its_tests() {
    let repo = Repo::new(&[
        ("pkg/__init__.py", ""),
        ("pkg/caches.py", CACHES),
        (
            "tests/test_caches.py",
            "import unittest\n\nfrom pkg.caches import FIFOCache, LRUCache\n\n\nclass FIFOTest(unittest.TestCase):\n    def setUp(self):\n        self.cache = FIFOCache()\n\n    def test_fill(self):\n        for key in range(4):\n            self.cache[key] = key\n\n\nclass LRUTest(unittest.TestCase):\n    def test_fill(self):\n        cache = LRUCache()\n        for key in range(4):\n            cache[key] = key\n",
        ),
    ]);
    repo.replace(
        "pkg/caches.py",
        "key = next(iter(self.data))",
        "key = min(self.data)",
    );
    assert_eq!(pytest(&repo), ["tests/test_caches.py::FIFOTest::test_fill"]);
}

#[test]
fn an_instance_made_in_a_test_classs_parameters_runs_wherever_that_class_is_collected() {
    let repo = Repo::new(&[
        ("pkg/__init__.py", ""),
        (
            "pkg/algorithms.py",
            "class SigningAlgorithm:\n    def get_signature(self, value):\n        return b\"\"\n\n\nclass NoneAlgorithm(SigningAlgorithm):\n    def get_signature(self, value):\n        return b\"\"\n\n\nclass HMACAlgorithm(SigningAlgorithm):\n    def get_signature(self, value):\n        return b\"x\"\n\n\ndef sign(algorithm):\n    return algorithm.get_signature(b\"v\")\n",
        ),
        ("tests/__init__.py", ""),
        (
            "tests/test_signer.py",
            "import pytest\n\nfrom pkg.algorithms import HMACAlgorithm, NoneAlgorithm, sign\n\n\nclass TestSigner:\n    @pytest.mark.parametrize(\"algorithm\", (NoneAlgorithm(), HMACAlgorithm()))\n    def test_algorithm(self, algorithm):\n        assert sign(algorithm) is not None\n\n    def test_plain(self):\n        assert sign(HMACAlgorithm())\n",
        ),
        (
            "tests/test_timed.py",
            "from tests.test_signer import TestSigner\n\n\nclass TestTimed(TestSigner):\n    pass\n",
        ),
    ]);
    // pytest collects `TestSigner` in each module that imports it, and its tests in each
    // subclass; the parameters are written in the class's body, which all its tests share.
    repo.replace(
        "pkg/algorithms.py",
        "return b\"\"\n\n\nclass HMAC",
        "return None\n\n\nclass HMAC",
    );
    assert_eq!(
        pytest(&repo),
        [
            "tests/test_signer.py::TestSigner::test_algorithm",
            "tests/test_signer.py::TestSigner::test_plain",
            "tests/test_timed.py::TestSigner::test_algorithm",
            "tests/test_timed.py::TestSigner::test_plain",
            "tests/test_timed.py::TestTimed::test_algorithm",
            "tests/test_timed.py::TestTimed::test_plain"
        ]
    );
}

#[test]
fn an_instance_a_conftest_makes_for_a_fixture_keeps_every_caller() {
    let repo = Repo::new(&[
        ("pkg/__init__.py", ""),
        ("pkg/caches.py", CACHES),
        (
            "tests/conftest.py",
            "import pytest\n\nfrom pkg.caches import FIFOCache\n\nSHARED = FIFOCache()\n\n\n@pytest.fixture\ndef cache():\n    return SHARED\n",
        ),
        (
            "tests/test_shared.py",
            "def test_shared(cache):\n    for key in range(4):\n        cache[key] = key\n",
        ),
        (
            "tests/test_lru.py",
            "from pkg.caches import LRUCache\n\n\ndef test_lru():\n    cache = LRUCache()\n    cache[1] = 1\n",
        ),
    ]);
    // `test_shared` names no `FIFOCache`; the one it fills is made when `conftest.py` is
    // imported: nothing is narrowed.
    repo.replace(
        "pkg/caches.py",
        "key = next(iter(self.data))",
        "key = min(self.data)",
    );
    assert_eq!(
        pytest(&repo),
        [
            "tests/test_lru.py::test_lru",
            "tests/test_shared.py::test_shared"
        ]
    );
}

#[test]
fn a_base_method_every_subclass_overrides_alone_runs_only_in_the_tests_of_those_that_do_not() {
    let repo = Repo::new(&[
        ("pkg/__init__.py", ""),
        (
            "pkg/signer.py",
            "class SigningAlgorithm:\n    def get_signature(self, value):\n        return b\"\"\n\n\nclass NoneAlgorithm(SigningAlgorithm):\n    def get_signature(self, value):\n        return b\"none\"\n\n\nclass HMACAlgorithm(SigningAlgorithm):\n    def get_signature(self, value):\n        return b\"hmac\"\n\n\nclass KeyedAlgorithm(SigningAlgorithm):\n    def get_signature(self, value):\n        return b\"key\" + super().get_signature(value)\n\n\ndef sign(algorithm, value):\n    return algorithm.get_signature(value)\n",
        ),
        (
            "tests/test_signer.py",
            "from pkg.signer import HMACAlgorithm, KeyedAlgorithm, NoneAlgorithm, SigningAlgorithm, sign\n\n\nclass Reversed(SigningAlgorithm):\n    pass\n\n\ndef test_hmac():\n    assert sign(HMACAlgorithm(), b\"v\")\n\n\ndef test_none():\n    assert sign(NoneAlgorithm(), b\"v\")\n\n\ndef test_keyed():\n    assert sign(KeyedAlgorithm(), b\"v\")\n\n\ndef test_reversed():\n    assert sign(Reversed(), b\"v\") == b\"\"\n",
        ),
    ]);
    // `NoneAlgorithm` and `HMACAlgorithm` override it and never call it; `KeyedAlgorithm` calls
    // it through `super()`, `Reversed` inherits it.
    repo.replace("pkg/signer.py", "return b\"\"\n", "return b\"base\"\n");
    assert_eq!(
        pytest(&repo),
        [
            "tests/test_signer.py::test_keyed",
            "tests/test_signer.py::test_reversed"
        ]
    );
}
