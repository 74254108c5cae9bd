#!/usr/bin/env bash
# Makes the reference PyTorch 2 environment once: a Debian 13 ("trixie") root
# file system with PyTorch 2.6 (Inductor included) and torchvision, beside the
# Debian 12 host, without touching the host's packages. Idempotent: when the
# root exists and imports torch >= 2.4 it only checks it.
#
#   bash scripts/setup-pt2.sh          # make or check the root
#   eval "$(bash scripts/setup-pt2.sh --print-env)"   # export FUSEBOX_PYTHON
#
# The root lives outside build/, in ${XDG_CACHE_HOME:-$HOME/.cache}/fusebox/pt2-root
# (FUSEBOX_PT2_ROOT overrides it), so clean builds keep it. Running it needs
# root (chroot); the mirror is the one the host's apt sources already name.
set -euo pipefail

root="${FUSEBOX_PT2_ROOT:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fusebox/pt2-root}"
print_env=0
[ "${1:-}" = "--print-env" ] && print_env=1

say() { if [ $print_env -eq 0 ]; then echo "setup-pt2: $*"; else echo "setup-pt2: $*" >&2; fi; }

# The two lines every chroot start prints on these machines, harmless.
filter() { grep -v -e 'failed to get boot id' -e 'Error in cpuinfo' >&2 || true; }

check_root() {
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

if [ "$(id -u)" -ne 0 ]; then
    say "needs root (chroot into $root); run it as root or set FUSEBOX_PYTHON to a Python with torch >= 2.4"
    exit 1
fi

if [ -f "$root/.fusebox-pt2-ready" ]; then
    if version="$(check_root)"; then
        say "PyTorch $version ready in $root"
    else
        say "the root at $root is broken; remove it and run this script again"
        exit 1
    fi
else
    # The mirror the host's apt sources name (deb822 `URIs:` or one-line `deb URL suite`),
    # the main archive rather than the security one.
    mirror="$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {print $2}' | grep -v security | grep -i debian | head -n1 || true)"
    if [ -z "$mirror" ]; then
        mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '$1 == "deb" {for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; break}}' | grep -v security | grep -i debian | head -n1 || true)"
    fi
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
    say "making a Debian 13 root with PyTorch 2 in $root from $mirror (about a minute, 1.4 GB)"
    start=$(date +%s)
    mkdir -p "$(dirname "$root")"
    # Built beside its final place and moved there whole, so that an
    # interrupted run leaves nothing half-made behind.
    partial="$root.partial"
    rm -rf "$partial"
    mmdebstrap --quiet --variant=apt --include=python3-torch,python3-numpy,python3-torchvision \
        trixie "$partial" "$mirror" >&2
    rm -rf "$root"
    mv "$partial" "$root"
    if ! version="$(check_root)"; then
        say "the new root cannot import torch >= 2.4 with Inductor"
        exit 1
    fi
    touch "$root/.fusebox-pt2-ready"
    say "PyTorch $version ready in $root ($(( $(date +%s) - start )) s)"
fi

if [ $print_env -eq 1 ]; then
    echo "export FUSEBOX_PYTHON='chroot $root python3'"
else
    echo "setup-pt2: FUSEBOX_PYTHON='chroot $root python3' (Fusebox uses this root by default when FUSEBOX_PYTHON is unset)"
fi
