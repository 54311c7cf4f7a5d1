# Sourced by the corpus scripts that fetch Debian source packages (benches/sweep/corpus.sh,
# benches/accuracy-corpus.sh). Needs a `log` function.

# ensure_deb_src: apt can fetch source packages; as root, writes deb-src twins of the machine's
# deb822 sources (but the security archive's) when there are none.
ensure_deb_src() {
    if apt-get source --download-only --print-uris hello >/dev/null 2>&1; then return 0; fi
    if [[ $(id -u) != 0 ]]; then
        log "no deb-src entry for apt, and not root: the Debian source packages will fail"
        return 0
    fi
    local sources=/etc/apt/sources.list.d/sweep-deb-src.sources
    log "writing $sources"
    python3 - "$sources" <<'PYTHON'
import glob, re, sys
# Every deb822 stanza of type deb, as deb-src, but the security archive's.
stanzas = []
for path in glob.glob("/etc/apt/sources.list.d/*.sources"):
    for stanza in open(path).read().split("\n\n"):
        if re.search(r"^Types:.*\bdeb\b", stanza, re.M) and "deb-src" not in stanza \
                and "security" not in stanza:
            stanzas.append(re.sub(r"^Types:.*$", "Types: deb-src", stanza.strip(), flags=re.M))
open(sys.argv[1], "w").write("\n\n".join(stanzas) + "\n")
PYTHON
    apt-get update -qq >&2
}
