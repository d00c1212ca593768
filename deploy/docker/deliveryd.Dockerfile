# syntax=docker/dockerfile:1
# deliveryd, the edge delivery service.
#
#   docker build -f deploy/docker/deliveryd.Dockerfile -t launchad/deliveryd .      (from the repository root)
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
RUN swift build -c release --static-swift-stdlib --product deliveryd \
    && mkdir -p /staging \
    && cp "$(swift build -c release --show-bin-path)/deliveryd" /staging/
COPY deploy/docker/healthz.sh /staging/launchad-healthz

# ---- runtime: Debian slim, libzmq and SQLite (the edge's store shares campaignd's code), no toolchain ----
FROM ${RUNTIME_IMAGE}
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends libzmq5 libsqlite3-0 tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 launchad \
    && useradd --system --uid 10001 --gid launchad --home-dir /var/cache/deliveryd --shell /usr/sbin/nologin launchad \
    && install -d -o launchad -g launchad -m 0750 /var/cache/deliveryd
COPY --from=build /staging/deliveryd /staging/launchad-healthz /usr/local/bin/

# Connecting to campaignd beyond loopback needs CURVE keys (DELIVERYD_KEYS_DIR: edge.key, campaignd.pub) or an
# explicit DELIVERYD_INSECURE=1. Give each edge its own DELIVERYD_EDGE_ID (or --edge-id).
ENV DELIVERYD_CACHE_DIR=/var/cache/deliveryd \
    DELIVERYD_CLIENT_ENDPOINT=tcp://0.0.0.0:7200 \
    DELIVERYD_HTTP_ADDRESS=0.0.0.0:8200 \
    DELIVERYD_CAMPAIGN_SYNC=tcp://campaignd:7101 \
    DELIVERYD_CAMPAIGN_UPDATES=tcp://campaignd:7102 \
    DELIVERYD_LOG_FORMAT=json

USER launchad:launchad
VOLUME ["/var/cache/deliveryd"]
# client ROUTER, HTTP (/creatives/{sha256}, /metrics, /healthz)
EXPOSE 7200 8200
# The slim image has no curl or wget: the check speaks HTTP through bash's /dev/tcp (deploy/docker/healthz.sh).
# /healthz answers 503 until the edge holds a state (saved, or from campaignd).
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 CMD ["/usr/local/bin/launchad-healthz"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/deliveryd"]
