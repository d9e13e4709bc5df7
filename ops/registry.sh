#!/usr/bin/env bash
# A real schema registry, started the project's way: Apicurio Registry 3.3.3's pre-built server from Maven
# Central (io.apicurio:apicurio-registry-app:3.3.3:tar.gz:all), on loopback, in-memory storage, with Java 21 or later.
# Its Confluent-compatible API is at http://127.0.0.1:PORT/apis/ccompat/v7.
#
#   ops/registry.sh fetch          # only fetch and extract the server (docker-compose.yml mounts it); prints where
#   ops/registry.sh start [PORT]   # default 18081; prints the URL once /health/ready answers
#   ops/registry.sh stop
#   ops/registry.sh status
#
# COBRA_REGISTRY_DIR (default ops/target/registry) holds the extracted server (server/); COBRA_REGISTRY_RUN (default the
# same) its log, pid and port files, so that several registries (tests) can share one extracted server;
# COBRA_REGISTRY_JAVA names a java of version 21 or later (default: the first found); COBRA_REGISTRY_READY_SECONDS how long
# start waits for the server to be ready (default 120: a loaded two-core machine needs more than a minute at times).
#
# Exit codes of start: 0 ready (its URL printed); 2 none can be had here (no Java 21, the server cannot be fetched);
# 3 it was started but stopped or was not ready in time (a port taken, a slow machine): the process is killed, and
# another port may well work.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${COBRA_REGISTRY_DIR:-$HERE/target/registry}
RUN=${COBRA_REGISTRY_RUN:-$DIR}
VERSION=3.3.3
mkdir -p "$DIR" "$RUN"

java21() {
  local c
  for c in ${COBRA_REGISTRY_JAVA:-} "${JAVA_HOME:-/nonexistent}/bin/java" /usr/lib/jvm/*/bin/java "$(command -v java 2>/dev/null || true)"; do
    [ -x "$c" ] || continue
    local v; v=$("$c" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')
    [ "${v%%.*}" -ge 21 ] 2>/dev/null && { echo "$c"; return 0; }
  done
  return 1
}

fetch() {
  [ -f "$DIR/server/quarkus-run.jar" ] && return 0
  echo "registry: fetching apicurio-registry-app $VERSION through Maven" >&2
  (cd "$HERE/.." && mvn -q -B -ntp dependency:copy -Dartifact="io.apicurio:apicurio-registry-app:$VERSION:tar.gz:all" -DoutputDirectory="$DIR" >&2) \
    || { echo "registry: cannot fetch the server from Maven Central" >&2; return 2; }
  mkdir -p "$DIR/server" # the tarball holds a Quarkus app's layout (quarkus-run.jar, app/, lib/, quarkus/) at its root
  tar -xzf "$DIR/apicurio-registry-app-$VERSION-all.tar.gz" -C "$DIR/server"
  rm -f "$DIR/apicurio-registry-app-$VERSION-all.tar.gz"
  [ -f "$DIR/server/quarkus-run.jar" ] || { echo "registry: the tarball holds no quarkus-run.jar" >&2; return 2; }
}

case "${1:-}" in
  fetch)
    fetch || exit 2; echo "$DIR/server" ;;
  start)
    PORT=${2:-18081}; MGMT=$((PORT + 1))
    if [ -f "$RUN/pid" ] && kill -0 "$(cat "$RUN/pid")" 2>/dev/null; then echo "registry: already running (pid $(cat "$RUN/pid"))"; exit 0; fi
    JAVA=$(java21) || { echo "registry: no Java 21 or later found (set COBRA_REGISTRY_JAVA)" >&2; exit 2; }
    fetch || exit 2
    "$JAVA" -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$PORT" -Dquarkus.management.host=127.0.0.1 -Dquarkus.management.port="$MGMT" \
      -jar "$DIR/server/quarkus-run.jar" >"$RUN/registry.log" 2>&1 &
    echo $! >"$RUN/pid"; echo "$PORT" >"$RUN/port"
    READY=${COBRA_REGISTRY_READY_SECONDS:-120}
    for _ in $(seq 1 $((READY * 2))); do
      if curl -fs "http://127.0.0.1:$MGMT/health/ready" >/dev/null 2>&1; then
        echo "http://127.0.0.1:$PORT/apis/ccompat/v7"; exit 0
      fi
      kill -0 "$(cat "$RUN/pid")" 2>/dev/null || { echo "registry: it stopped on port $PORT; see $RUN/registry.log" >&2; tail -5 "$RUN/registry.log" >&2; rm -f "$RUN/pid"; exit 3; }
      sleep 0.5
    done
    echo "registry: not ready after $READY s on port $PORT; see $RUN/registry.log" >&2; tail -5 "$RUN/registry.log" >&2
    kill "$(cat "$RUN/pid")" 2>/dev/null || true; rm -f "$RUN/pid"; exit 3 ;;
  stop)
    if [ -f "$RUN/pid" ]; then kill "$(cat "$RUN/pid")" 2>/dev/null || true; rm -f "$RUN/pid"; echo "registry: stopped"; else echo "registry: not running"; fi ;;
  status)
    if [ -f "$RUN/pid" ] && kill -0 "$(cat "$RUN/pid")" 2>/dev/null; then echo "registry: running (pid $(cat "$RUN/pid")) at http://127.0.0.1:$(cat "$RUN/port")/apis/ccompat/v7"
    else echo "registry: not running"; exit 1; fi ;;
  *) echo "usage: ops/registry.sh fetch | start [PORT] | stop | status" >&2; exit 2 ;;
esac
