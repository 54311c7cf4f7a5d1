#!/usr/bin/env bash
# Neovim 0.10 for the end-to-end test of editors/nvim (tests/codegraph/e2e_nvim.rs runs this
# once, then DIR/bin/nvim): Debian trixie's build (PyPI has only 0.11, and this machine's Debian,
# bookworm, has 0.7). It needs trixie's C library (2.38+), so the packages are unpacked into
# DIR, not installed, and DIR/bin/nvim starts it with trixie's own dynamic loader and libraries;
# the programs Neovim starts (the codegraph server) run as usual.
#
# Usage: debian-0.10.sh DIR. Needs apt-get and dpkg-deb (a Debian or Ubuntu machine) and Debian's
# package archive; the system's apt sources and state are left alone (apt uses its own under DIR).
set -euo pipefail

# The Neovim release this test pins: trixie's package of it must be this upstream version.
NEOVIM=0.10.4
# Neovim and what it links (libc6 and libgcc-s1: trixie's, which the others need).
PACKAGES=(neovim neovim-runtime libc6 libgcc-s1 libluajit-5.1-2 libluajit-5.1-common libmsgpack-c2
    libtree-sitter0.22 libunibilium4 libuv1t64 libvterm0 lua-lpeg lua-luv)

directory=${1:?usage: debian-0.10.sh DIR}
if [ -x "$directory/bin/nvim" ] && [ -e "$directory/.complete" ]; then
    exit 0
fi
for tool in apt-get dpkg-deb; do
    if ! command -v "$tool" >/dev/null; then
        echo "debian-0.10.sh: $tool is needed (Neovim 0.10 comes from Debian's archive)" >&2
        exit 1
    fi
done
rm -rf "$directory"
mkdir -p "$directory"/apt/lists/partial "$directory"/apt/cache/archives/partial "$directory"/debs "$directory"/root "$directory"/bin
directory=$(cd "$directory" && pwd)
echo "deb http://deb.debian.org/debian trixie main" >"$directory/apt/sources.list"
apt_options=(-o "Dir::Etc::SourceList=$directory/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$directory/apt/lists" -o "Dir::Cache=$directory/apt/cache"
    -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
apt-get "${apt_options[@]}" update -q
version=$(apt-cache "${apt_options[@]}" show --no-all-versions neovim | sed -n 's/^Version: //p')
case "$version" in
    "$NEOVIM"-*) ;;
    *)
        echo "debian-0.10.sh: trixie's neovim is $version now, not $NEOVIM: update the pin" >&2
        exit 1
        ;;
esac
(cd "$directory/debs" && apt-get "${apt_options[@]}" download "${PACKAGES[@]}")
for package in "$directory"/debs/*.deb; do
    dpkg-deb -x "$package" "$directory/root"
done
root=$directory/root
cat >"$directory/bin/nvim" <<EOF
#!/bin/sh
# Debian trixie's Neovim $version with trixie's own loader and libraries (see debian-0.10.sh).
export VIMRUNTIME='$root/usr/share/nvim/runtime'
export LUA_CPATH='$root/usr/lib/x86_64-linux-gnu/lua/5.1/?.so;;'
exec '$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2' --library-path '$root/usr/lib/x86_64-linux-gnu' '$root/usr/bin/nvim' "\$@"
EOF
chmod +x "$directory/bin/nvim"
"$directory/bin/nvim" --version | head -n 1
touch "$directory/.complete"
