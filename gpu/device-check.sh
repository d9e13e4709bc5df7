#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA device (the `device` tool runs it; under 5 minutes):
#   1. builds the gpu module and what it needs,
#   2. runs its tests (the GPU engine against the reachability contract: brute force, hence the CPU),
#   3. times the CPU chain cover against the GPU at 10k, 100k and 1M vertices, failing on any difference.
# Without a device it runs to the point where it says "no device" (and why), and exits 0.
# Maven needs its dependencies: online, or a populated ~/.m2. Where neither is available (a device machine that
# reaches nothing and has no Java), run gpu/device-prepare.sh here first and carry gpu/target: this script then uses
# the Java runtime, classpath and JUnit console launcher prepared there, and needs no Maven.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes="${*:-10000 100000 1000000}"
lib=gpu/target/device-check-lib
if [ -x gpu/target/device-jre/bin/java ]; then export PATH="$PWD/gpu/target/device-jre/bin:$PATH"; fi
if [ -d "$lib" ] && [ -f gpu/target/gpu-0.1.0-SNAPSHOT.jar ]; then
  echo "device-check: using the prepared classpath in $lib (no Maven)"
  tests=gpu/target/device-test-lib
  if [ -d "$tests" ] && [ -d gpu/target/test-classes ]; then
    echo "device-check: the gpu module's tests and the reachability contract, from the JUnit console launcher"
    t="$PWD/gpu/target"
    tcp="$t/test-classes:$t/classes:$(ls "$t"/device-check-lib/*.jar | tr '\n' ':')$(ls "$t"/device-test-lib/round-verifier-*-tests.jar)"
    # from the module's directory: the PTX freshness test finds closure.cu there
    out=$(mktemp) status=0
    (cd gpu && timeout 200 java -jar "$(ls "$t"/device-test-lib/junit-platform-console-standalone-*.jar)" execute --class-path "$tcp" \
      --select-class org.cobraverify.gpu.CudaReachabilityTest --select-class org.cobraverify.gpu.CudaReachabilityPtxTest \
      --select-class org.cobraverify.checker.ChainCoverReachabilityTest --details=tree --disable-banner --disable-ansi-colors) \
      > "$out" 2>&1 || status=$?
    grep -E "✔|✘|■|tests (successful|failed|aborted)" "$out" || true
    if [ "$status" -ne 0 ]; then cat "$out"; echo "device-check: the tests failed (exit $status)"; exit 1; fi
  fi
else
  echo "device-check: building (mvn -pl gpu -am) and running the gpu module's tests"
  mvn -B -ntp -pl gpu -am test -Dtest='CudaReachability*,ChainCoverReachabilityTest' -Dsurefire.failIfNoSpecifiedTests=false \
    | grep -E "Tests run:|FAIL" || true
  mvn -q -B -ntp -pl gpu -am package dependency:copy-dependencies -DskipTests -DincludeScope=runtime \
    -DexcludeArtifactIds=rocksdbjni,kafka-clients,zstd-jni,lz4-java,snappy-java -DoutputDirectory=target/device-check-lib
fi
cp="gpu/target/gpu-0.1.0-SNAPSHOT.jar:$(ls "$lib"/*.jar | tr '\n' ':')"
timeout 240 java -Xmx8g -cp "$cp" org.cobraverify.gpu.DeviceCheck $sizes
