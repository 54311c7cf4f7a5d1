//! The on-disk cache: a warm start re-parses nothing, a changed file is re-parsed, and a corrupt
//! cache is discarded without changing the answer.

use codegraph::world::{CacheLocation, World, WorldConfig};

use crate::support;

fn copy_fixture(name: &str) -> tempfile::TempDir {
    let directory = tempfile::tempdir().unwrap();
    copy_tree(&support::fixture(name), directory.path());
    directory
}

/// Copies a fixture's tree, but for a cache in it (`.codegraph/index.bin` and the `.gitignore`
/// beside it, and the directory when nothing else is there; a rules file there is the
/// fixture's): the README's quick start runs `codegraph` on `fixtures/python`, which writes a
/// cache there, and a copy of it would be read (or refused) as the copy's own.
pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    let written_by_cache = |name: &std::ffi::OsStr| name == "index.bin" || name == ".gitignore";
    let in_cache = from.file_name().is_some_and(|name| name == ".codegraph");
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if in_cache && written_by_cache(&entry.file_name()) {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            let only_a_cache = entry.file_name() == ".codegraph"
                && std::fs::read_dir(entry.path())
                    .unwrap()
                    .all(|inner| written_by_cache(&inner.unwrap().file_name()));
            if !only_a_cache {
                copy_tree(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn open(root: &std::path::Path) -> World {
    World::open(
        root,
        WorldConfig {
            cache: CacheLocation::InWorkspace,
            ..WorldConfig::default()
        },
    )
    .unwrap()
}

#[test]
fn warm_start_reuses_the_cache_and_sees_changes() {
    let repo = copy_fixture("python");
    let first = open(repo.path()).index(false, &|_, _| {});
    assert_eq!(first.from_cache, 0);
    assert_eq!(first.parsed, first.files);
    let cold = open(repo.path());
    cold.index(false, &|_, _| {});
    let cold_dump = cold.snapshot().dump();

    let warm = open(repo.path());
    let report = warm.index(false, &|_, _| {});
    assert_eq!(report.parsed, 0, "nothing changed, nothing re-parsed");
    assert_eq!(report.from_cache, first.files);
    assert_eq!(warm.snapshot().dump(), cold_dump);

    std::fs::write(
        repo.path().join("shop/util/math.py"),
        "def factorial(n):\n    return n\n",
    )
    .unwrap();
    let changed = open(repo.path()).index(false, &|_, _| {});
    assert_eq!(changed.parsed, 1);
    assert_eq!(changed.from_cache, first.files - 1);
}

/// A warm start reads no file whose stamp (identity, length, modification and change times)
/// is the settled one the cache recorded; a file written less than three seconds before it was
/// read is never taken on its stamp, and a rewrite that keeps the length and the modification
/// time is still seen (its change time moved).
#[test]
fn a_warm_start_reads_only_the_files_whose_stamp_changed() {
    let repo = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| std::fs::write(repo.path().join(path), text).unwrap();
    write("a.py", "def alpha():\n    beta()\n");
    write("b.py", "def beta():\n    pass\n");
    let counts =
        |report: &codegraph::world::IndexReport| (report.parsed, report.from_cache, report.unread);

    // Just written: the stamps do not vouch for the content, every start reads both files.
    assert_eq!(
        counts(&open(repo.path()).index(false, &|_, _| {})),
        (2, 0, 0)
    );
    assert_eq!(
        counts(&open(repo.path()).index(false, &|_, _| {})),
        (0, 2, 0)
    );

    std::thread::sleep(std::time::Duration::from_millis(3200));
    // Settled now: this start reads them once more and records their stamps ...
    assert_eq!(
        counts(&open(repo.path()).index(false, &|_, _| {})),
        (0, 2, 0)
    );
    // ... and the next reads neither.
    let warm = open(repo.path());
    assert_eq!(counts(&warm.index(false, &|_, _| {})), (0, 2, 2));
    let cold = World::open(
        repo.path(),
        WorldConfig {
            cache: CacheLocation::Disabled,
            ..WorldConfig::default()
        },
    )
    .unwrap();
    cold.index(false, &|_, _| {});
    assert_eq!(warm.snapshot().dump(), cold.snapshot().dump());

    // The same length and modification time, other content (as `rsync -t` or an archive
    // extraction leaves a file): the change time tells.
    let modified = std::fs::metadata(repo.path().join("b.py"))
        .unwrap()
        .modified()
        .unwrap();
    write("b.py", "def zeta():\n    pass\n");
    std::fs::File::options()
        .write(true)
        .open(repo.path().join("b.py"))
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let changed = open(repo.path());
    assert_eq!(counts(&changed.index(false, &|_, _| {})), (1, 1, 1));
    let graph = changed.snapshot();
    let names: Vec<String> = graph
        .file("b.py")
        .unwrap()
        .summary
        .defs
        .iter()
        .map(|def| def.name.to_string())
        .collect();
    assert_eq!(names, ["zeta"]);
}

#[test]
fn a_corrupt_cache_is_discarded_and_the_graph_is_right() {
    let repo = copy_fixture("python");
    let world = open(repo.path());
    world.index(false, &|_, _| {});
    let expected = world.snapshot().dump();
    let cache = repo.path().join(".codegraph/index.bin");
    let bytes = std::fs::read(&cache).unwrap();
    std::fs::write(&cache, &bytes[..bytes.len() / 3]).unwrap();
    let again = open(repo.path());
    let report = again.index(false, &|_, _| {});
    assert_eq!(report.from_cache, 0);
    assert_eq!(again.snapshot().dump(), expected);
    assert!(
        std::fs::read_to_string(repo.path().join(".codegraph/.gitignore"))
            .unwrap()
            .contains('*')
    );
}

#[test]
fn a_warm_start_with_changed_added_and_deleted_files_equals_a_cold_index() {
    let repo = copy_fixture("python");
    open(repo.path()).index(false, &|_, _| {});
    // Change a definition others call, delete a file others import, add a new caller.
    std::fs::write(
        repo.path().join("shop/util/math.py"),
        "def factorial_v2(n):\n    return n\n",
    )
    .unwrap();
    std::fs::remove_file(repo.path().join("shop/auth/tokens.py")).unwrap();
    std::fs::write(
        repo.path().join("shop/extra.py"),
        "from shop.util.format import format_name\n\ndef shout():\n    return format_name('a', 'b')\n",
    )
    .unwrap();
    let warm = open(repo.path());
    let report = warm.index(false, &|_, _| {});
    assert_eq!(report.parsed, 2, "the changed and the added file");
    assert_eq!(report.removed, 1);
    let (_cold_world, cold) = support::index(repo.path());
    assert_eq!(warm.snapshot().dump(), cold.dump());
    assert_eq!(warm.snapshot().index_problems(), Vec::<String>::new());
    let callers: Vec<String> =
        codegraph::graph::query::callers(&warm.snapshot(), "shop/util/format.py::format_name")
            .into_iter()
            .map(|call| call.entity.id.to_string())
            .collect();
    assert_eq!(callers, ["shop/app/main.py::main", "shop/extra.py::shout"]);
}

/// An editor opens its documents before the first index ends. A document as it is on disk:
/// the start is warm all the same (nothing parsed, the cache left as it was) and the graph is
/// a cold index's. A document with unsaved edits: they are in the graph, and the cache keeps
/// the disk's text and resolutions (the next start without the editor is a cold index).
#[test]
fn a_warm_start_with_open_documents_stays_warm_and_keeps_the_cache() {
    let repo = copy_fixture("python");
    open(repo.path()).index(false, &|_, _| {});
    let cache = repo.path().join(".codegraph/index.bin");
    let written = std::fs::read(&cache).unwrap();
    let (_cold_world, cold) = support::index(repo.path());
    let path = "shop/util/format.py";
    let text = std::fs::read_to_string(repo.path().join(path)).unwrap();

    let as_on_disk = open(repo.path());
    assert!(as_on_disk.open_buffer(path, 1, text.clone()));
    let report = as_on_disk.index(false, &|_, _| {});
    assert_eq!(report.parsed, 0, "a warm start parses nothing");
    assert_eq!(as_on_disk.snapshot().dump(), cold.dump());
    assert!(
        std::fs::read(&cache).unwrap() == written,
        "the cache was written again"
    );

    let unsaved = open(repo.path());
    let edited = format!("{text}\n\ndef shout_name():\n    return format_name('a', 'b')\n");
    assert!(unsaved.open_buffer(path, 1, edited));
    unsaved.index(false, &|_, _| {});
    let callers: Vec<String> =
        codegraph::graph::query::callers(&unsaved.snapshot(), "shop/util/format.py::format_name")
            .into_iter()
            .map(|call| call.entity.id.to_string())
            .collect();
    assert_eq!(
        callers,
        ["shop/app/main.py::main", "shop/util/format.py::shout_name"]
    );
    assert!(
        std::fs::read(&cache).unwrap() == written,
        "the cache was written again"
    );
    assert_eq!(dump_of_fresh_index(repo.path()), cold.dump());
}

fn dump_of_fresh_index(root: &std::path::Path) -> String {
    let world = open(root);
    world.index(false, &|_, _| {});
    world.snapshot().dump()
}

/// `.codegraph` planted as a symlink to a directory outside the repository: the cache is neither
/// written there nor read from there; codegraph runs without it.
#[test]
fn a_cache_directory_that_is_a_symlink_is_refused() {
    let repo = copy_fixture("python");
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), repo.path().join(".codegraph")).unwrap();
    let expected = dump_of_fresh_index(repo.path());
    let listing: Vec<_> = std::fs::read_dir(elsewhere.path()).unwrap().collect();
    assert!(
        listing.is_empty(),
        "written through the symlink: {listing:?}"
    );
    let again = open(repo.path());
    let report = again.index(false, &|_, _| {});
    assert_eq!(report.from_cache, 0);
    assert_eq!(again.snapshot().dump(), expected);
}

/// A cache directory owned by another user is neither read nor written.
#[test]
fn a_cache_directory_owned_by_another_user_is_refused() {
    let repo = copy_fixture("python");
    let directory = tempfile::tempdir().unwrap();
    let cache = directory.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    let user = nix::unistd::geteuid().as_raw();
    // As root, give the directory away; as anyone else, `/` is somebody else's already.
    let foreign = if user == 0 {
        std::os::unix::fs::chown(&cache, Some(65534), Some(65534)).unwrap();
        cache.clone()
    } else {
        std::path::PathBuf::from("/")
    };
    let world = |root: &std::path::Path| {
        World::open(
            root,
            WorldConfig {
                cache: CacheLocation::Directory(foreign.clone()),
                ..WorldConfig::default()
            },
        )
        .unwrap()
    };
    let first = world(repo.path()).index(false, &|_, _| {});
    assert!(first.files > 0);
    let written: Vec<_> = std::fs::read_dir(&foreign)
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name())
        .filter(|name| name == "index.bin" || name == ".gitignore")
        .collect();
    assert!(written.is_empty(), "{written:?}");
    let again = world(repo.path()).index(false, &|_, _| {});
    assert_eq!(again.from_cache, 0);
}

/// Names inside `.codegraph` planted by the repository: a symlink at the temporary file name
/// the old writer used, and a dangling `.gitignore` symlink. Neither target is written.
#[test]
fn planted_symlinks_in_the_cache_directory_are_not_written_through() {
    let repo = copy_fixture("python");
    let outside = tempfile::tempdir().unwrap();
    let cache = repo.path().join(".codegraph");
    std::fs::create_dir(&cache).unwrap();
    std::fs::write(outside.path().join("victim"), "precious\n").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("victim"),
        cache.join(format!("index.bin.{}.tmp", std::process::id())),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path().join("created"), cache.join(".gitignore")).unwrap();
    let first = open(repo.path()).index(false, &|_, _| {});
    assert_eq!(
        std::fs::read_to_string(outside.path().join("victim")).unwrap(),
        "precious\n"
    );
    assert!(!outside.path().join("created").exists());
    // The cache itself was written beside them and is used.
    let again = open(repo.path()).index(false, &|_, _| {});
    assert_eq!(again.from_cache, first.files);
}

/// `index.bin` as a FIFO (which would block a reader forever) or as a symlink to `/dev/zero`
/// (which would be read until memory runs out): start-up goes on without the cache, at once.
#[test]
fn an_index_bin_that_is_not_a_regular_file_is_not_read() {
    for plant in ["fifo", "dev-zero"] {
        let repo = copy_fixture("python");
        let cache = repo.path().join(".codegraph");
        std::fs::create_dir(&cache).unwrap();
        let index = cache.join("index.bin");
        match plant {
            "fifo" => nix::unistd::mkfifo(&index, nix::sys::stat::Mode::S_IRWXU).unwrap(),
            _ => std::os::unix::fs::symlink("/dev/zero", &index).unwrap(),
        }
        let root = repo.path().to_path_buf();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let report = open(&root).index(false, &|_, _| {});
            let _ = sender.send(report);
        });
        let report = receiver
            .recv_timeout(std::time::Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("{plant}: start-up blocked on index.bin"));
        assert_eq!(report.from_cache, 0, "{plant}");
        assert!(report.files > 0, "{plant}");
    }
}

/// A cache whose body still decodes after a flipped byte (a name changed by one letter) is
/// refused by its checksum, instead of answering with the wrong name.
#[test]
fn a_cache_with_a_flipped_byte_fails_its_checksum() {
    let repo = copy_fixture("python");
    let expected = dump_of_fresh_index(repo.path());
    let path = repo.path().join(".codegraph/index.bin");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes
        .windows(b"factorial".len())
        .position(|window| window == b"factorial")
        .expect("the name is in the cache");
    bytes[at] = b'g';
    std::fs::write(&path, &bytes).unwrap();
    let again = open(repo.path());
    let report = again.index(false, &|_, _| {});
    assert_eq!(report.from_cache, 0);
    assert_eq!(again.snapshot().dump(), expected);
    assert!(!again.snapshot().dump().contains("gactorial"));
}

/// The bytes this process has read so far (`rchar` of `/proc/self/io`: every `read`, from
/// files, pipes and sockets alike).
fn bytes_read_by_this_process() -> u64 {
    std::fs::read_to_string("/proc/self/io")
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix("rchar: "))
        .and_then(|count| count.trim().parse().ok())
        .expect("rchar in /proc/self/io")
}

/// A 1 GiB sparse `index.bin` (at the size cap, so not refused by its size alone) behind a
/// header that is not a cache's, or a cache's header whose announced size is not the file's:
/// the warm start rebuilds, having read the header and not the gigabyte behind it.
#[test]
fn a_huge_index_bin_is_judged_by_its_header_not_read_whole() {
    let repo = copy_fixture("python");
    let expected = dump_of_fresh_index(repo.path());
    let path = repo.path().join(".codegraph/index.bin");
    let cache = std::fs::read(&path).unwrap();
    let truncated_cache = cache[..cache.len().min(64)].to_vec();
    for (header, what) in [
        (b"not a codegraph cache".to_vec(), "a foreign header"),
        (
            truncated_cache,
            "a cache's header on a file of another size",
        ),
    ] {
        let file = std::fs::File::create(&path).unwrap();
        std::io::Write::write_all(&mut &file, &header).unwrap();
        file.set_len(1 << 30).unwrap();
        drop(file);
        let before = bytes_read_by_this_process();
        let again = open(repo.path());
        let report = again.index(false, &|_, _| {});
        let read = bytes_read_by_this_process() - before;
        assert_eq!(report.from_cache, 0, "{what}");
        assert_eq!(again.snapshot().dump(), expected, "{what}");
        // The workspace's files, and whatever the tests beside this one read meanwhile, are
        // far below the gigabyte.
        assert!(read < 256 << 20, "{what}: {read} bytes read");
    }
}
