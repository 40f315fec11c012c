#!/usr/bin/env bash
# Installs every Debian package the build and the tests need; idempotent:
# only what is missing is installed. Run as root (or with sudo available).
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config git ca-certificates curl
  libsimdjson-dev nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libcurl4-openssl-dev libssl-dev libpugixml-dev libsqlite3-dev
  libboost1.81-dev libtomlplusplus-dev
  libroaring-dev zlib1g-dev  # deletion vectors: Roaring bitmaps and their CRC-32
  ccache       # scripts/build.sh compiles through it when present
  lld          # the linker CMakeLists.txt uses when present (faster than GNU ld)
  awscli python3-yaml
  clang libclang-rt-14-dev  # preset fuzz: clang 14 and its libFuzzer/sanitizer runtimes
  gnuplot-nox  # docs/bench-commit-modes.png (bench/commit_modes_plot.gp)
  # The Python package (python/, preset ci builds it): pybind11, Debian's
  # python3 and what its tests and the wheel's build use.
  python3-dev pybind11-dev python3-pybind11 python3-setuptools python3-wheel
  python3-build python3-venv python3-pytest python3-hypothesis python3-pandas
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# npm fetches DuckDB, hyparquet (and the test servers' dynalite); Debian's npm only if
# the machine has none.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# DuckDB's C library (Parquet), pinned, into .deps/duckdb.
"$(dirname "$0")/fetch-duckdb.sh"
# hyparquet (pinned), the independent Parquet reader of the tests, into
# .deps/hyparquet.
"$(dirname "$0")/fetch-hyparquet.sh"
echo "setup: done"
