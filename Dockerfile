# Purse in a container: a release build in the Swift image, run from a slim Debian image as a
# non-root user. The container has no PostgreSQL of its own: set DATABASE_URL (and
# PURSE_MASTER_KEY, 64 hex characters, so secrets survive a new container).

FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libpq-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY sql ./sql
COPY Tests ./Tests
RUN swift build -c release --product purse --static-swift-stdlib \
    && install -m 0755 "$(swift build -c release --show-bin-path)/purse" /usr/local/bin/purse

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends libpq5 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --create-home --home-dir /var/lib/purse purse
COPY --from=build /usr/local/bin/purse /usr/local/bin/purse
USER purse
WORKDIR /var/lib/purse
ENV PURSE_DATA_DIR=/var/lib/purse
EXPOSE 4242
ENTRYPOINT ["purse", "serve", "--host", "0.0.0.0"]
