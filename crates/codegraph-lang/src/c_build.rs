//! C and C++ platform variants, told by their paths: the Linux kernel's `arch/<arch>/` trees
//! (every architecture defines `arch_cpu_idle`, `setup_arch`, ...), and files named for an
//! operating system (`fd_win32.c` beside `fd_unix.c`). Like Go's build variants
//! (`go_build.rs`), such files are variants of each other, not rivals: resolution prefers the
//! variant of the chosen platform, so a call of `setup_arch()` from `init/main.c` is an edge to
//! `arch/x86/kernel/setup.c`'s rather than an ambiguity among twenty, and the queries give an
//! inactive variant the callers of its active twin.
//!
//! The platform is the host's, or the kernel's own `ARCH` variable (`ARCH=arm64`, as `make`
//! takes it; `uname -m` names such as `aarch64` are understood too) and `CODEGRAPH_OS`. Only
//! names that say a platform unmistakably count: `arch/` followed by an architecture's
//! directory, and file-name suffixes (`_win32`, `_darwin`); a directory called `windows` in a
//! desktop application is not taken for a platform.

use std::sync::OnceLock;

use super::go_build::{host_os, setting};

/// The kernel's architecture directories (`arch/<name>/`).
const KERNEL_ARCHES: &[&str] = &[
    "alpha",
    "arc",
    "arm",
    "arm64",
    "csky",
    "hexagon",
    "ia64",
    "loongarch",
    "m68k",
    "microblaze",
    "mips",
    "nios2",
    "openrisc",
    "parisc",
    "powerpc",
    "riscv",
    "s390",
    "sh",
    "sparc",
    "um",
    "x86",
    "xtensa",
];

/// File-name suffixes (before the extension) that name an operating system, and its family.
const OS_SUFFIXES: &[(&str, &str)] = &[
    ("_win32", "windows"),
    ("_win64", "windows"),
    ("_windows", "windows"),
    ("_darwin", "darwin"),
    ("_macos", "darwin"),
    ("_osx", "darwin"),
    ("_linux", "linux"),
    ("_freebsd", "freebsd"),
    ("_openbsd", "openbsd"),
    ("_netbsd", "netbsd"),
    ("_solaris", "solaris"),
    ("_unix", "unix"),
    ("_posix", "unix"),
];

/// The platform resolution builds C and C++ for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Platform {
    /// `linux`, `windows`, `darwin`, `freebsd`, ...
    pub os: String,
    /// A kernel architecture directory name (`x86`, `arm64`).
    pub arch: String,
}

impl Platform {
    /// `ARCH` and `CODEGRAPH_OS` from the environment, else the host's.
    pub fn chosen() -> &'static Platform {
        static CHOSEN: OnceLock<Platform> = OnceLock::new();
        CHOSEN.get_or_init(|| {
            let from_env = |name: &str| setting(name).map(|value| value.to_ascii_lowercase());
            Platform {
                os: from_env("CODEGRAPH_OS").unwrap_or_else(|| host_os().to_string()),
                arch: kernel_arch(
                    &from_env("ARCH").unwrap_or_else(|| std::env::consts::ARCH.to_string()),
                ),
            }
        })
    }

    fn is_unix(&self) -> bool {
        self.os != "windows"
    }
}

/// The kernel's directory name for an architecture named the kernel's way or `uname -m`'s.
pub fn kernel_arch(name: &str) -> String {
    match name {
        "x86_64" | "i386" | "i486" | "i586" | "i686" | "x86" | "amd64" => "x86",
        "aarch64" | "arm64" => "arm64",
        "riscv64" | "riscv32" | "riscv" => "riscv",
        "powerpc64" | "powerpc64le" | "ppc64" | "ppc64le" | "ppc" | "powerpc" => "powerpc",
        "s390x" | "s390" => "s390",
        "loongarch64" | "loongarch" => "loongarch",
        "mips64" | "mips64el" | "mipsel" | "mips" => "mips",
        "sparc64" | "sparc" => "sparc",
        other if other.starts_with("arm") => "arm",
        other => other,
    }
    .to_string()
}

/// The platform a path names, if any: the architecture of an `arch/<arch>/` tree it lies in,
/// and the operating system family its file name ends with (`_win32` → `windows`).
fn named_platform(path: &str) -> (Option<&'static str>, Option<&'static str>) {
    let components: Vec<&str> = path.split('/').collect();
    let arch = components.windows(2).find_map(|pair| {
        (pair[0] == "arch")
            .then(|| KERNEL_ARCHES.iter().find(|arch| **arch == pair[1]))
            .flatten()
            .copied()
    });
    let name = components.last().copied().unwrap_or(path);
    let stem = name.split_once('.').map_or(name, |(stem, _)| stem);
    let stem = stem.to_ascii_lowercase();
    let os = OS_SUFFIXES
        .iter()
        .find(|(suffix, _)| stem.ends_with(suffix) && stem.len() > suffix.len())
        .map(|(_, os)| *os);
    (arch, os)
}

/// Whether a C or C++ file is part of the build for `platform`, by its path.
pub fn in_build(path: &str, platform: &Platform) -> bool {
    let (arch, os) = named_platform(path);
    arch.is_none_or(|arch| arch == platform.arch)
        && os.is_none_or(|os| match os {
            "unix" => platform.is_unix(),
            os => os == platform.os,
        })
}

/// Whether a file is a platform variant at all (under `arch/<arch>/` or named for an
/// operating system): where a definition's twins may be.
pub fn is_variant(path: &str) -> bool {
    named_platform(path) != (None, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_are_told_by_arch_trees_and_os_suffixes() {
        let linux_x86 = Platform {
            os: "linux".into(),
            arch: "x86".into(),
        };
        let windows_arm64 = Platform {
            os: "windows".into(),
            arch: "arm64".into(),
        };
        let cases: &[(&str, bool, bool)] = &[
            // path, in the Linux x86 build, in the Windows arm64 build
            ("arch/x86/kernel/setup.c", true, false),
            ("arch/arm64/kernel/setup.c", false, true),
            ("init/main.c", true, true),
            ("src/fd_win32.c", false, true),
            ("src/fd_unix.c", true, false),
            ("src/fd_posix.cpp", true, false),
            ("src/io_linux.h", true, false),
            ("src/io_darwin.c", false, false),
            // Not platforms: a directory named arch elsewhere, a window manager's `windows/`.
            ("docs/arch/overview.c", true, true),
            ("src/windows/main_window.cpp", true, true),
            ("src/unix.c", true, true),
        ];
        for (path, linux, windows) in cases {
            assert_eq!(in_build(path, &linux_x86), *linux, "{path} on linux/x86");
            assert_eq!(
                in_build(path, &windows_arm64),
                *windows,
                "{path} on windows/arm64"
            );
        }
        assert!(is_variant("arch/arm/mm/init.c"));
        assert!(is_variant("src/fd_win32.c"));
        assert!(!is_variant("src/unix.c"));
        assert_eq!(kernel_arch("aarch64"), "arm64");
        assert_eq!(kernel_arch("x86_64"), "x86");
        assert_eq!(kernel_arch("armv7l"), "arm");
    }
}
