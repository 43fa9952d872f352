#!/usr/bin/env bash
# Installs the Debian packages Lakeshore builds against, if any is missing. Runs `apt-get update`
# only when something has to be installed. Used by `make demo` and `make test`.
set -euo pipefail

PYTHON="${1:-python3}"

packages=(
  g++ make cmake ninja-build pkg-config
  libgtest-dev libgmock-dev          # C++ unit tests (ctest)
  libxxhash-dev                      # XXH64, RFC-37 metadata keys
  nettle-dev                         # MD5, SHA-256, HMAC (no OpenSSL: see src/common/digest.h)
  libcurl4-openssl-dev               # S3 conditional PUT (headers; libcurl is dlopen'ed)
  nlohmann-json3-dev                 # JSON instant files (timeline layout 1)
  libavro-dev                        # Avro C: layout-2 instant files, log blocks
)

# The interpreter needs its headers (to build the module) and venv/ensurepip (for .venv).
# A Debian python3 gets them from packages; another interpreter (pyenv, a build) has them.
if ! "$PYTHON" -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' 2>/dev/null; then
  packages+=(python3-dev)
fi
if ! "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null; then
  packages+=(python3-venv)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

echo "lakeshore: installing Debian packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
