# syntax=docker/dockerfile:1
# campaignd, with adctl beside it (for `adctl keygen` and admin calls from inside the container).
#
#   docker build -f deploy/docker/campaignd.Dockerfile -t launchad/campaignd .      (from the repository root)
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
RUN swift build -c release --static-swift-stdlib --product campaignd \
    && swift build -c release --static-swift-stdlib --product adctl \
    && mkdir -p /staging \
    && cp "$(swift build -c release --show-bin-path)/campaignd" "$(swift build -c release --show-bin-path)/adctl" /staging/
COPY deploy/docker/healthz.sh /staging/launchad-healthz

# ---- runtime: Debian slim, libzmq and SQLite, no toolchain ----
FROM ${RUNTIME_IMAGE}
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends libzmq5 libsqlite3-0 tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 launchad \
    && useradd --system --uid 10001 --gid launchad --home-dir /var/lib/campaignd --shell /usr/sbin/nologin launchad \
    && install -d -o launchad -g launchad -m 0750 /var/lib/campaignd
COPY --from=build /staging/campaignd /staging/adctl /staging/launchad-healthz /usr/local/bin/

# Inside a container the sockets bind every interface; a non-loopback bind needs CURVE keys
# (CAMPAIGND_KEYS_DIR) or an explicit CAMPAIGND_INSECURE=1, else campaignd refuses to start.
ENV CAMPAIGND_DATA_DIR=/var/lib/campaignd \
    CAMPAIGND_ADMIN_ENDPOINT=tcp://0.0.0.0:7100 \
    CAMPAIGND_SYNC_ENDPOINT=tcp://0.0.0.0:7101 \
    CAMPAIGND_UPDATES_ENDPOINT=tcp://0.0.0.0:7102 \
    CAMPAIGND_HTTP_ADDRESS=0.0.0.0:8100 \
    CAMPAIGND_LOG_FORMAT=json

USER launchad:launchad
VOLUME ["/var/lib/campaignd"]
# admin ROUTER, sync ROUTER, updates PUB, HTTP (/metrics, /healthz)
EXPOSE 7100 7101 7102 8100
# The slim image has no curl or wget: the check speaks HTTP through bash's /dev/tcp (deploy/docker/healthz.sh).
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 CMD ["/usr/local/bin/launchad-healthz"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/campaignd"]
