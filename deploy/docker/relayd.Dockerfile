# syntax=docker/dockerfile:1
# relayd, the regional relay between campaignd and the edges.
#
#   docker build -f deploy/docker/relayd.Dockerfile -t launchad/relayd .      (from the repository root)
#
# See deploy/README.md for its flags, environment, ports, volumes and keys.

ARG SWIFT_IMAGE=swift:6.2-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

# ---- build: the Swift toolchain and the C libraries' headers ----
FROM ${SWIFT_IMAGE} AS build
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends libzmq3-dev libsqlite3-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The manifest first: dependencies are fetched again only when it changes.
COPY Package.swift ./
RUN swift package resolve
# Every target the manifest declares must exist for it to load: benchmarks, the fuzz target and tests included
# (Tests/DeployTests lays out what these lines copy and loads the manifest there).
COPY Sources ./Sources
COPY bench/QueryMicrobench ./bench/QueryMicrobench
COPY bench/RPCBenchServer ./bench/RPCBenchServer
COPY fuzz/CodecFuzz ./fuzz/CodecFuzz
COPY Tests ./Tests
RUN swift build -c release --static-swift-stdlib --product relayd \
    && mkdir -p /staging \
    && cp "$(swift build -c release --show-bin-path)/relayd" /staging/
COPY deploy/docker/healthz.sh /staging/launchad-healthz

# ---- runtime: Debian slim, libzmq and SQLite , no toolchain ----
FROM ${RUNTIME_IMAGE}
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends libzmq5 libsqlite3-0 tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 launchad \
    && useradd --system --uid 10001 --gid launchad --home-dir /var/cache/relayd --shell /usr/sbin/nologin launchad \
    && install -d -o launchad -g launchad -m 0750 /var/cache/relayd
COPY --from=build /staging/relayd /staging/launchad-healthz /usr/local/bin/

# Connecting beyond loopback needs CURVE keys (RELAYD_KEYS_DIR: relay.key, campaignd.pub, edges/*.pub, relays/*.pub)
# or an explicit RELAYD_INSECURE=1. Give each relay its own RELAYD_RELAY_ID (or --relay-id) and RELAYD_REGION.
ENV RELAYD_CACHE_DIR=/var/cache/relayd \
    RELAYD_SYNC_ENDPOINT=tcp://0.0.0.0:7301 \
    RELAYD_UPDATES_ENDPOINT=tcp://0.0.0.0:7302 \
    RELAYD_HTTP_ADDRESS=0.0.0.0:8300 \
    RELAYD_UPSTREAM_SYNC=tcp://campaignd:7101 \
    RELAYD_UPSTREAM_UPDATES=tcp://campaignd:7102 \
    RELAYD_LOG_FORMAT=json

USER launchad:launchad
VOLUME ["/var/cache/relayd"]
# sync ROUTER and updates PUB for the edges below, HTTP (/metrics, /healthz)
EXPOSE 7301 7302 8300
# The slim image has no curl or wget: the check speaks HTTP through bash's /dev/tcp (deploy/docker/healthz.sh).
# /healthz answers 503 until the relay holds a state (saved, or from upstream).
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 CMD ["/usr/local/bin/launchad-healthz"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/relayd"]
