#!/usr/bin/env bash
# Installs what building and running the system needs on Debian, if it is missing: libzmq (with CURVE), the
# tools the scripts use, and PostgreSQL's server (the tests start clusters of their own with it). Swift itself is
# expected on PATH.
set -euo pipefail
missing=()
dpkg -s libzmq3-dev >/dev/null 2>&1 || missing+=(libzmq3-dev)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null 2>&1 || { echo "swift is not on PATH: install the Swift 6 toolchain first" >&2; exit 1; }
