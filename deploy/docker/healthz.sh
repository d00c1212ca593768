#!/bin/bash
# Exits 0 when a service's /healthz answers 200, 1 otherwise: the containers' HEALTHCHECK. The slim runtime
# image has neither curl nor wget, so this speaks HTTP/1.0 through bash's /dev/tcp.
#
#   healthz.sh [HOST:PORT]
#
# Without an argument it checks the port of CAMPAIGND_HTTP_ADDRESS, DELIVERYD_HTTP_ADDRESS or RELAYD_HTTP_ADDRESS on
# 127.0.0.1.
set -u
address=${1:-${CAMPAIGND_HTTP_ADDRESS:-${DELIVERYD_HTTP_ADDRESS:-${RELAYD_HTTP_ADDRESS:-}}}}
if [ -z "$address" ] || [[ "$address" != *:* ]]; then
  echo "usage: healthz.sh HOST:PORT (or set CAMPAIGND_HTTP_ADDRESS / DELIVERYD_HTTP_ADDRESS / RELAYD_HTTP_ADDRESS)" >&2
  exit 2
fi
port=${address##*:}
host=${address%:*}
host=${host#[}
host=${host%]}
# A wildcard bind is reached on loopback.
case "$host" in "" | "0.0.0.0" | "*" | "::") host=127.0.0.1 ;; esac
if ! [[ "$port" =~ ^[0-9]+$ ]] || ((port < 1 || port > 65535)); then
  echo "healthz: bad port in $address" >&2
  exit 2
fi
if ! exec 3<>"/dev/tcp/$host/$port"; then
  echo "healthz: cannot connect to $host:$port" >&2
  exit 1
fi
printf 'GET /healthz HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n\r\n' "$host" >&3
if ! IFS= read -r -t 3 status <&3; then
  echo "healthz: no answer from $host:$port" >&2
  exit 1
fi
status=${status%$'\r'}
case "$status" in
  "HTTP/1."?" 200"*) exit 0 ;;
esac
echo "healthz: $status" >&2
exit 1
