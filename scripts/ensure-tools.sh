#!/usr/bin/env bash
# Make sure the Debian packages the test suite and the benchmark drive are installed:
# chromium (the page tests drive it headless through Playwright), wrk (the benchmark's
# load generator, also run by its tests), podman and debootstrap (tests/test_image.py builds
# the container image on a Debian base made by debootstrap), node and npm (tests/test_ts_client.py
# builds and tests the TypeScript client). Installs what is missing with apt-get; exits 1 with
# a clear message if it cannot. Never runs `playwright install` (that downloads browsers from
# the internet). `ensure-tools.sh wrk` checks wrk only.
set -euo pipefail

log() { printf 'ensure-tools: %s\n' "$*" >&2; }
die() { printf 'ensure-tools: ERROR: %s\n' "$*" >&2; exit 1; }

wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=(chromium wrk podman debootstrap node npm)
# The Debian package of each command, where its name differs.
package_of() { case "$1" in node) echo nodejs ;; *) echo "$1" ;; esac; }
missing=()
packages=()
for tool in "${wanted[@]}"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        missing+=("$tool")
        packages+=("$(package_of "$tool")")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 \
        || die "missing ${missing[*]}; not root and sudo not available (apt-get install ${packages[*]})"
    SUDO=sudo
fi

log "installing ${packages[*]} (apt-get)"
$SUDO apt-get update -qq || die "apt-get update failed (needed to install ${packages[*]})"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" \
    || die "apt-get install ${packages[*]} failed; the tests need them (chromium: the page tests; wrk: the benchmark's tests; podman, debootstrap: the image test; nodejs, npm: the TypeScript client's tests)"
for tool in "${missing[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool still not on PATH after apt-get install"
    log "$tool installed: $(command -v "$tool")"
done
