#!/usr/bin/env bash
# Make sure Debian's chromium is installed (the page test drives it headless through
# Playwright). Installs it with apt-get when missing; exits 1 with a clear message if it
# cannot. Never runs `playwright install` (that downloads browsers from the internet).
set -euo pipefail

log() { printf 'ensure-browser: %s\n' "$*" >&2; }
die() { printf 'ensure-browser: ERROR: %s\n' "$*" >&2; exit 1; }

if command -v chromium >/dev/null 2>&1; then
    exit 0
fi

SUDO=
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "chromium is missing; not root and sudo not available (apt-get install chromium)"
    SUDO=sudo
fi

log "installing chromium (apt-get)"
$SUDO apt-get update -qq || die "apt-get update failed (needed to install chromium)"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
    || die "apt-get install chromium failed; the page test (tests/test_page.py) needs /usr/bin/chromium"
command -v chromium >/dev/null 2>&1 || die "chromium still not on PATH after apt-get install"
log "chromium installed: $(command -v chromium)"
