# Caldera's image: the job server with jobctl, the task supervisor, the web terminal and Jupyter
# (the jupyter companion), on Debian bookworm. Two stages: one builds with the -dev packages, the
# other runs with their libraries.
#   docker build -t caldera .
#   docker build --build-arg BASE_IMAGE=caldera-base:bookworm --network host -t caldera .   # offline:
#       a base image imported from debootstrap (tests/e2e/test_compose makes one)
ARG BASE_IMAGE=debian:bookworm

FROM ${BASE_IMAGE} AS build
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update -q \
 && apt-get install -y -q --no-install-recommends gcc libc6-dev make pkg-config musl-tools \
      libmicrohttpd-dev libjansson-dev libcurl4-openssl-dev libssl-dev libsqlite3-dev libwebsockets-dev libyaml-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# The packages above are all the release programs need; tools/ensure-deps would add the test
# suite's too (clang, llvm, promtool), so it is stubbed out here. Without npm the web terminal's
# page is its line console (xterm.js is fetched by npm when there is one).
RUN printf '#!/bin/sh\nexit 0\n' > tools/ensure-deps \
 && make -j"$(nproc)" bin/jobserver bin/jobctl bin/caldera-shim bin/caldera-terminal

FROM ${BASE_IMAGE}
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update -q \
 && apt-get install -y -q --no-install-recommends ca-certificates curl procps \
      libmicrohttpd12 libjansson4 libcurl4 libssl3 libsqlite3-0 libwebsockets17 libyaml-0-2 \
      jupyter-notebook python3-jupyter-server \
 && rm -rf /var/lib/apt/lists/*
# bin/ and web/ side by side: the server finds caldera-shim, caldera-terminal and the UI from its own path.
COPY --from=build /src/bin/jobserver /src/bin/jobctl /src/bin/caldera-shim /src/bin/caldera-terminal /opt/caldera/bin/
COPY --from=build /src/web/ /opt/caldera/web/
ENV PATH=/opt/caldera/bin:$PATH
VOLUME /var/lib/caldera
# 8080: the API, the UI and the companions' proxy; 8081: the WebSocket stream of events.
EXPOSE 8080 8081
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8080/healthz >/dev/null || exit 1
# Arguments given to `docker run IMAGE ...` follow these; a later --listen wins over this one.
ENTRYPOINT ["/opt/caldera/bin/jobserver", "--listen", "0.0.0.0:8080", "--data", "/var/lib/caldera"]
