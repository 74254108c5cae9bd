#!/usr/bin/env bash
# Makes the two reference PyTorch 2 environments once, beside the Debian 12
# host, without touching the host's packages:
#   - the Debian testing ("forky") root: the newest torch Debian ships (2.14.1
#     when this was written; testing moves, so the version is read, never
#     assumed). Fusebox's default reference: the IDE and fusebox-pass find it
#     first.
#   - the Debian 13 ("trixie") root: torch 2.6, the version Fusebox's first
#     Inductor profile follows.
# Idempotent: a root that exists and imports torch >= 2.4 is only checked.
#
# torch.compile on CPU (Measure Latency's compiled figures, bench/) needs what
# Inductor's C++ code generation compiles with inside a root: g++, Python's
# and torch's headers (python3-dev, libtorch-dev), SLEEF's (libsleef-dev) and
# setuptools (torch.utils.cpp_extension imports it). A root made before they
# were listed gets them added. Inductor reads the CPU's features from
# /proc/cpuinfo to choose its vector instructions (without it every kernel is
# scalar), so /proc is mounted inside each root; the mount lasts until the
# next reboot, and every run of this script makes sure it is there. OpenBLAS
# too: Debian's torch otherwise runs its matrix products on the reference
# BLAS (a recommendation-style model ran 3x slower, eager and compiled), not
# what users' PyTorch (MKL or OpenBLAS) measures.
#
#   bash scripts/setup-pt2.sh                 # make or check both roots
#   bash scripts/setup-pt2.sh --only testing  # or --only trixie: one root
#   eval "$(bash scripts/setup-pt2.sh --print-env)"   # export FUSEBOX_PYTHON (testing)
#
# The roots live outside build/, in ${XDG_CACHE_HOME:-$HOME/.cache}/fusebox/
# (pt2-root-testing and pt2-root; FUSEBOX_PT2_TESTING_ROOT and
# FUSEBOX_PT2_ROOT override them), so clean builds keep them. Running it needs
# root (chroot); the mirror is the one the host's apt sources already name.
set -euo pipefail

cache="${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fusebox"
testing_root="${FUSEBOX_PT2_TESTING_ROOT:-$cache/pt2-root-testing}"
trixie_root="${FUSEBOX_PT2_ROOT:-$cache/pt2-root}"
print_env=0
only=""
while [ $# -gt 0 ]; do
    case "$1" in
        --print-env) print_env=1 ;;
        --only) only="${2:-}"; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "setup-pt2: unknown argument '$1' (--print-env, --only testing|trixie, --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$only" in
    ""|testing|trixie) ;;
    *) echo "setup-pt2: --only takes testing or trixie, not '$only'" >&2; exit 2 ;;
esac

# What the root holds: PyTorch 2 itself, then what torch.compile's CPU backend
# compiles with and the BLAS latencies are measured on.
TORCH_PACKAGES=(python3-torch python3-numpy python3-torchvision)
COMPILE_PACKAGES=(g++ python3-dev libtorch-dev libsleef-dev python3-setuptools libopenblas0-pthread)

say() { if [ $print_env -eq 0 ]; then echo "setup-pt2: $*"; else echo "setup-pt2: $*" >&2; fi; }

# The two lines every chroot start prints on these machines, harmless.
filter() { grep -v -e 'failed to get boot id' -e 'Error in cpuinfo' >&2 || true; }

check_root() {
    local root="$1"
    # Some libraries print their start-up noise on stdout: keep the last line only.
    chroot "$root" python3 -c '
import sys, torch
v = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
if v < (2, 4):
    sys.exit("torch %s is older than 2.4" % torch.__version__)
import torch._inductor.fx_passes.pre_grad  # Inductor is there
print(torch.__version__)
' 2> >(filter) | grep -v -e 'failed to get boot id' -e 'Error in cpuinfo' | tail -n1
    return "${PIPESTATUS[0]}"
}

# Adds the compile packages to a root made without them (apt inside the root).
ensure_compile_packages() {
    local root="$1" missing=()
    for p in "${COMPILE_PACKAGES[@]}"; do
        chroot "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    say "adding torch.compile's C++ toolchain and OpenBLAS to the root: ${missing[*]}"
    local log
    if ! log="$(chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get update -qq 2>&1 \
                && chroot "$root" env DEBIAN_FRONTEND=noninteractive \
                       apt-get install -y -qq --no-install-recommends "${missing[@]}" 2>&1)"; then
        echo "$log" | tail -n 5 >&2
        say "cannot install ${missing[*]} in $root"
        exit 1
    fi
}

# /proc inside the root, for Inductor's CPU feature check (see the top).
ensure_proc() {
    local root="$1"
    if [ ! -r "$root/proc/cpuinfo" ]; then
        mount -t proc proc "$root/proc" 2>/dev/null \
            || say "warning: cannot mount /proc in $root: torch.compile's kernels will not be vectorised"
    fi
}

# Unmounts the root's /proc before the root is removed (rm -rf must not walk it).
release_proc() {
    if [ -d "$1/proc" ] && [ -r "$1/proc/cpuinfo" ]; then umount "$1/proc" 2>/dev/null || umount -l "$1/proc"; fi
}

if [ "$(id -u)" -ne 0 ]; then
    say "needs root (chroot into $testing_root and $trixie_root); run it as root or set FUSEBOX_PYTHON to a Python with torch >= 2.4"
    exit 1
fi

# The mirror the host's apt sources name (deb822 `URIs:` or one-line `deb URL suite`),
# the main archive rather than the security one.
find_mirror() {
    local mirror
    mirror="$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {print $2}' | grep -v security | grep -i debian | head -n1 || true)"
    if [ -z "$mirror" ]; then
        mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '$1 == "deb" {for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; break}}' | grep -v security | grep -i debian | head -n1 || true)"
    fi
    echo "$mirror"
}

# make_root SUITE DIR LABEL: makes (or checks) one root.
make_root() {
    local suite="$1" root="$2" label="$3" version
    if [ -f "$root/.fusebox-pt2-ready" ]; then
        if version="$(check_root "$root")"; then
            ensure_compile_packages "$root"
            ensure_proc "$root"
            say "PyTorch $version ready in $root ($label)"
            return 0
        fi
        say "the root at $root is broken; remove it and run this script again"
        exit 1
    fi
    local mirror
    mirror="$(find_mirror)"
    if [ -z "$mirror" ]; then
        say "no Debian mirror found in /etc/apt/sources.list{,.d}"
        exit 1
    fi
    if ! command -v mmdebstrap >/dev/null; then
        say "installing mmdebstrap"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
    fi
    say "making a $label root with PyTorch 2 in $root from $mirror (a few minutes, 2 GB)"
    local start partial packages
    start=$(date +%s)
    mkdir -p "$(dirname "$root")"
    # Built beside its final place and moved there whole, so that an
    # interrupted run leaves nothing half-made behind.
    partial="$root.partial"
    release_proc "$partial"
    rm -rf "$partial"
    packages="$(IFS=,; echo "${TORCH_PACKAGES[*]},${COMPILE_PACKAGES[*]}")"
    # Testing's Release file on the mirror has been seen expired: its dates
    # are not checked (the archive's signature still is).
    if ! mmdebstrap --quiet --variant=apt --aptopt='Acquire::Check-Valid-Until "false"' \
            --include="$packages" "$suite" "$partial" "$mirror" >&2; then
        release_proc "$partial"
        rm -rf "$partial"
        say "cannot make the $label root from $mirror (see above); nothing was changed"
        exit 1
    fi
    release_proc "$root"
    rm -rf "$root"
    mv "$partial" "$root"
    if ! version="$(check_root "$root")"; then
        say "the new $label root cannot import torch >= 2.4 with Inductor"
        exit 1
    fi
    ensure_proc "$root"
    touch "$root/.fusebox-pt2-ready"
    say "PyTorch $version ready in $root ($label, $(( $(date +%s) - start )) s)"
}

[ "$only" != "trixie" ] && make_root forky "$testing_root" "Debian testing"
[ "$only" != "testing" ] && make_root trixie "$trixie_root" "Debian 13"

if [ $print_env -eq 1 ]; then
    echo "export FUSEBOX_PYTHON='chroot $testing_root python3'"
else
    echo "setup-pt2: Fusebox uses chroot $testing_root python3 (then $trixie_root) by default when FUSEBOX_PYTHON is unset"
fi
