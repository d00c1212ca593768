#!/usr/bin/env bash
# Writes the CURVE key pairs that the compose files' secrets name, with `adctl keygen`: campaignd, adctl (the
# operator on the host), one per relay (compose.relays.yaml) and one per edge. Existing keys are kept.
#
#   deploy/compose/keys.sh
#
# Environment: KEYS_DIR (default deploy/compose/keys), EDGES (default "edge-1 edge-2"), RELAYS (default
# "relay-east relay-west"), ADCTL (an adctl to run;
# default: this checkout's debug build, built if needed).
set -euo pipefail
cd "$(dirname "$0")"
KEYS_DIR=${KEYS_DIR:-keys}
EDGES=${EDGES:-edge-1 edge-2}
RELAYS=${RELAYS:-relay-east relay-west}
if [ -z "${ADCTL:-}" ]; then
  (cd ../.. && swift build --product adctl >/dev/null)
  ADCTL="$(cd ../.. && swift build --show-bin-path)/adctl"
fi
mkdir -p "$KEYS_DIR"
for name in campaignd adctl $RELAYS $EDGES; do
  if [ -e "$KEYS_DIR/$name.key" ]; then
    echo "$KEYS_DIR/$name.key exists; kept"
    continue
  fi
  "$ADCTL" keygen --name "$name" --out "$KEYS_DIR"
done
# Compose mounts file secrets with their owner and mode on the host, and the containers run as uid 10001:
# the services' secret keys go to that uid; adctl.key stays the operator's.
chmod 0644 "$KEYS_DIR"/*.pub
service_keys=("$KEYS_DIR/campaignd.key")
for name in $RELAYS $EDGES; do service_keys+=("$KEYS_DIR/$name.key"); done
if [ "$(id -u)" -eq 0 ]; then
  chown 10001:10001 "${service_keys[@]}"
else
  echo "now run: sudo chown 10001:10001 ${service_keys[*]}"
fi
