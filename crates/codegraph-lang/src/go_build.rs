//! Go build variants: which files belong to the build codegraph resolves for.
//!
//! A Go package may define the same function in `fd_unix.go` and `fd_windows.go`, selected by
//! file-name suffixes (`_GOOS`, `_GOARCH`, `_GOOS_GOARCH`) or by a `//go:build` line. Such files
//! are variants of each other, not rivals: resolution prefers the variant of the chosen platform
//! (the host's, or `GOOS`/`GOARCH` from the environment, as the go tool does), and the queries
//! give an inactive variant the callers of its active twin. `_test.go` files belong to their
//! package's test build only.

use std::sync::OnceLock;

const KNOWN_OS: &[&str] = &[
    "aix",
    "android",
    "darwin",
    "dragonfly",
    "freebsd",
    "hurd",
    "illumos",
    "ios",
    "js",
    "linux",
    "nacl",
    "netbsd",
    "openbsd",
    "plan9",
    "solaris",
    "wasip1",
    "windows",
    "zos",
];

const KNOWN_ARCH: &[&str] = &[
    "386",
    "amd64",
    "amd64p32",
    "arm",
    "armbe",
    "arm64",
    "arm64be",
    "loong64",
    "mips",
    "mipsle",
    "mips64",
    "mips64le",
    "mips64p32",
    "mips64p32le",
    "ppc",
    "ppc64",
    "ppc64le",
    "riscv",
    "riscv64",
    "s390",
    "s390x",
    "sparc",
    "sparc64",
    "wasm",
];

const UNIX_OS: &[&str] = &[
    "aix",
    "android",
    "darwin",
    "dragonfly",
    "freebsd",
    "hurd",
    "illumos",
    "ios",
    "linux",
    "netbsd",
    "openbsd",
    "solaris",
];

/// The platform resolution builds for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Platform {
    pub os: String,
    pub arch: String,
}

impl Platform {
    /// `GOOS`/`GOARCH` from the environment, else the host's.
    pub fn chosen() -> &'static Platform {
        static CHOSEN: OnceLock<Platform> = OnceLock::new();
        CHOSEN.get_or_init(|| {
            let host_arch = match std::env::consts::ARCH {
                "x86_64" => "amd64",
                "aarch64" => "arm64",
                "x86" => "386",
                "powerpc64" => "ppc64",
                other => other,
            };
            Platform {
                os: setting("GOOS").unwrap_or_else(|| host_os().to_string()),
                arch: setting("GOARCH").unwrap_or_else(|| host_arch.to_string()),
            }
        })
    }

    /// The platform a file is built for: the chosen one when the file is in its build, else
    /// the first platform (operating systems in `KNOWN_OS` order, the chosen architecture
    /// first) whose build includes it: `fd_windows.go` is built for windows, `net_fake.go`
    /// (`//go:build js || wasip1`) for js. `None` when no platform builds the file
    /// (`//go:build ignore`).
    pub fn of_file(path: &str, constraint: Option<&str>) -> Option<Platform> {
        let chosen = Platform::chosen();
        if in_build(path, constraint, chosen) {
            return Some(chosen.clone());
        }
        let architectures = std::iter::once(chosen.arch.as_str()).chain(KNOWN_ARCH.iter().copied());
        architectures
            .flat_map(|arch| {
                KNOWN_OS.iter().map(move |os| Platform {
                    os: (*os).to_string(),
                    arch: arch.to_string(),
                })
            })
            .find(|platform| in_build(path, constraint, platform))
    }

    fn has_tag(&self, tag: &str) -> bool {
        tag == self.os
            || tag == self.arch
            || (tag == "unix" && UNIX_OS.contains(&self.os.as_str()))
            || tag == "gc"
            || tag == "cgo"
            || tag.starts_with("go1.")
    }
}

/// The host's operating system as Go and the C platform rules name it (`darwin` for macOS).
pub(crate) fn host_os() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    }
}

/// A platform setting from the environment (`GOOS`, `ARCH`), when set and not blank.
pub(crate) fn setting(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|value| value.trim().to_string())
        .filter(|value| !value.is_empty())
}

/// The build constraint of a file, as a `//go:build` expression: its `//go:build` line before
/// the `package` clause, else its older `// +build` lines, translated (`// +build linux darwin`
/// is `linux || darwin`, `// +build !js,!windows` is `!js && !windows`, and several lines must
/// all hold).
pub fn constraint_line(text: &str) -> Option<String> {
    let mut plus_build = Vec::new();
    for line in text.lines().take(200) {
        let line = line.trim();
        if let Some(expression) = line.strip_prefix("//go:build ") {
            return Some(expression.trim().to_string());
        }
        if let Some(options) = line.strip_prefix("// +build ") {
            plus_build.push(plus_build_expression(options));
        }
        if line.starts_with("package ") {
            break;
        }
    }
    (!plus_build.is_empty()).then(|| plus_build.join(" && "))
}

/// One `// +build` line as a `//go:build` expression: space-separated options are alternatives,
/// comma-separated terms of an option must all hold.
fn plus_build_expression(options: &str) -> String {
    let alternatives: Vec<String> = options
        .split_whitespace()
        .map(|option| format!("({})", option.split(',').collect::<Vec<_>>().join(" && ")))
        .collect();
    format!("({})", alternatives.join(" || "))
}

/// Whether a Go file is part of the build for `platform` (test files count as part of it).
pub fn in_build(path: &str, constraint: Option<&str>, platform: &Platform) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.strip_suffix(".go").unwrap_or(name);
    let stem = stem.strip_suffix("_test").unwrap_or(stem);
    let parts: Vec<&str> = stem.split('_').collect();
    // `name_GOOS_GOARCH`, `name_GOOS`, `name_GOARCH` (a file named just `linux.go` is not one).
    if parts.len() >= 3 {
        let (os, arch) = (parts[parts.len() - 2], parts[parts.len() - 1]);
        if KNOWN_OS.contains(&os) && KNOWN_ARCH.contains(&arch) {
            if os != platform.os || arch != platform.arch {
                return false;
            }
        } else if !suffix_matches(parts[parts.len() - 1], platform) {
            return false;
        }
    } else if parts.len() == 2 && !suffix_matches(parts[1], platform) {
        return false;
    }
    match constraint {
        Some(expression) => evaluate(expression, platform).unwrap_or(true),
        None => true,
    }
}

fn suffix_matches(suffix: &str, platform: &Platform) -> bool {
    if KNOWN_OS.contains(&suffix) {
        return suffix == platform.os;
    }
    if KNOWN_ARCH.contains(&suffix) {
        return suffix == platform.arch;
    }
    true
}

/// Evaluates a `//go:build` expression (`linux && (amd64 || arm64)`, `!windows`); `None` when
/// it does not parse.
pub fn evaluate(expression: &str, platform: &Platform) -> Option<bool> {
    let tokens = tokenize(expression)?;
    let mut position = 0;
    let value = parse_or(&tokens, &mut position, platform)?;
    (position == tokens.len()).then_some(value)
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Tag(String),
    Not,
    And,
    Or,
    Open,
    Close,
}

fn tokenize(text: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    let mut characters = text.chars().peekable();
    while let Some(character) = characters.next() {
        match character {
            ' ' | '\t' => {}
            '!' => tokens.push(Token::Not),
            '(' => tokens.push(Token::Open),
            ')' => tokens.push(Token::Close),
            '&' if characters.next_if_eq(&'&').is_some() => tokens.push(Token::And),
            '|' if characters.next_if_eq(&'|').is_some() => tokens.push(Token::Or),
            character if character.is_alphanumeric() || character == '_' || character == '.' => {
                let mut tag = String::from(character);
                while let Some(next) = characters
                    .next_if(|next| next.is_alphanumeric() || *next == '_' || *next == '.')
                {
                    tag.push(next);
                }
                tokens.push(Token::Tag(tag));
            }
            _ => return None,
        }
    }
    Some(tokens)
}

fn parse_or(tokens: &[Token], position: &mut usize, platform: &Platform) -> Option<bool> {
    let mut value = parse_and(tokens, position, platform)?;
    while tokens.get(*position) == Some(&Token::Or) {
        *position += 1;
        let right = parse_and(tokens, position, platform)?;
        value = value || right;
    }
    Some(value)
}

fn parse_and(tokens: &[Token], position: &mut usize, platform: &Platform) -> Option<bool> {
    let mut value = parse_not(tokens, position, platform)?;
    while tokens.get(*position) == Some(&Token::And) {
        *position += 1;
        let right = parse_not(tokens, position, platform)?;
        value = value && right;
    }
    Some(value)
}

fn parse_not(tokens: &[Token], position: &mut usize, platform: &Platform) -> Option<bool> {
    let _step = codegraph_model::walk::enter()?;
    match tokens.get(*position)? {
        Token::Not => {
            *position += 1;
            Some(!parse_not(tokens, position, platform)?)
        }
        Token::Open => {
            *position += 1;
            let value = parse_or(tokens, position, platform)?;
            if tokens.get(*position) != Some(&Token::Close) {
                return None;
            }
            *position += 1;
            Some(value)
        }
        Token::Tag(tag) => {
            *position += 1;
            Some(platform.has_tag(tag))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linux() -> Platform {
        Platform {
            os: "linux".to_string(),
            arch: "amd64".to_string(),
        }
    }

    #[test]
    fn file_names_and_build_lines_select_variants() {
        let platform = linux();
        assert!(in_build("net/fd_unix.go", None, &platform));
        assert!(in_build("net/fd_linux.go", None, &platform));
        assert!(!in_build("net/fd_windows.go", None, &platform));
        assert!(!in_build("net/fd_linux_arm64.go", None, &platform));
        assert!(in_build("net/fd_linux_amd64_test.go", None, &platform));
        assert!(in_build("net/linux.go", None, &platform));
        assert!(in_build(
            "net/fd_posix.go",
            Some("unix || windows"),
            &platform
        ));
        assert!(!in_build("net/fd_plan9.go", None, &platform));
        assert!(!in_build("x/sys.go", Some("!linux && !darwin"), &platform));
        assert!(in_build(
            "x/sys.go",
            Some("linux && (amd64 || arm64)"),
            &platform
        ));
        assert!(!in_build("x/gen.go", Some("ignore"), &platform));
        assert!(in_build("x/odd.go", Some("linux &&"), &platform));
    }

    #[test]
    fn a_variant_is_built_for_the_first_platform_that_includes_it() {
        let of = |path, constraint| Platform::of_file(path, constraint).map(|p| p.os);
        assert_eq!(of("net/fd_windows.go", None).as_deref(), Some("windows"));
        assert_eq!(of("net/fd_wasip1.go", None).as_deref(), Some("wasip1"));
        assert_eq!(
            of("net/net_fake.go", Some("js || wasip1")).as_deref(),
            Some("js")
        );
        let arm = Platform::of_file("net/fd_linux_arm64.go", None).expect("a platform");
        assert_eq!((arm.os.as_str(), arm.arch.as_str()), ("linux", "arm64"));
        assert_eq!(of("x/gen.go", Some("ignore")), None);
        assert_eq!(
            Platform::of_file("net/fd_posix.go", Some("unix || windows")).as_ref(),
            Some(Platform::chosen())
        );
    }

    #[test]
    fn the_build_line_comes_before_the_package_clause() {
        assert_eq!(
            constraint_line("// Copyright\n\n//go:build !windows\n\npackage x\n"),
            Some("!windows".to_string())
        );
        let unix = constraint_line("// +build linux aix zos\n// +build !js\n\npackage logrus\n");
        assert_eq!(
            unix.as_deref(),
            Some("((linux) || (aix) || (zos)) && ((!js))")
        );
        let linux = linux();
        assert!(in_build("terminal_check_unix.go", unix.as_deref(), &linux));
        let bsd = constraint_line("// +build darwin dragonfly freebsd\n// +build !js\npackage x\n");
        assert!(!in_build("terminal_check_bsd.go", bsd.as_deref(), &linux));
        let not_appengine = constraint_line("// +build !appengine,!js,!windows\npackage x\n");
        assert!(in_build("check.go", not_appengine.as_deref(), &linux));
        let windows = constraint_line("// +build !appengine,!js,windows\npackage x\n");
        assert!(!in_build("check.go", windows.as_deref(), &linux));
        assert_eq!(constraint_line("package x\n//go:build linux\n"), None);
    }
}
