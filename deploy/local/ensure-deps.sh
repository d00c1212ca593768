#!/usr/bin/env bash
# Installs what building and running the system needs on Debian, if it is missing: libzmq (with CURVE), the
# tools the scripts use, PostgreSQL's server (the tests start clusters of their own with it), SQLite's shell (a test
# shapes a database as an older campaignd left it), the tz database (apps' time zones are checked against it), and Chromium with
# chromedriver and Selenium (the console's browser tests). Swift itself is expected on PATH.
set -euo pipefail
missing=()
dpkg -s libzmq3-dev >/dev/null 2>&1 || missing+=(libzmq3-dev)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3)
[ -f /usr/share/zoneinfo/Asia/Shanghai ] || missing+=(tzdata)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
if ((${#missing[@]})); then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Selenium drives Debian's chromedriver (named by path: it never downloads a driver). Debian's own Python wants
# --break-system-packages for a package from PyPI.
if ! python3 -c 'import selenium' >/dev/null 2>&1; then
  python3 -m pip install -q 'selenium>=4.20,<5' >/dev/null 2>&1 \
    || python3 -m pip install -q --break-system-packages 'selenium>=4.20,<5' >/dev/null
fi
command -v swift >/dev/null 2>&1 || { echo "swift is not on PATH: install the Swift 6 toolchain first" >&2; exit 1; }
