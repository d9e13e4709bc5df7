#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA device (the `device` tool runs it; under 5 minutes):
#   1. builds the gpu module and what it needs,
#   2. runs its tests (the GPU engine against the reachability contract: brute force, hence the CPU),
#   3. times the CPU chain cover against the GPU at 10k, 100k and 1M vertices, failing on any difference.
# Without a device it runs to the point where it says "no device" (and why), and exits 0.
# Maven needs its dependencies: online, or a populated ~/.m2. Where neither is available (a device machine
# that reaches nothing), prepare the classpath here first and carry it:
#   mvn -q -B -DskipTests -pl gpu -am package dependency:copy-dependencies -DincludeScope=runtime \
#     -DexcludeArtifactIds=rocksdbjni,kafka-clients,zstd-jni,lz4-java,snappy-java -DoutputDirectory=target/device-check-lib
# then run this script with gpu/target carried: it skips Maven and runs step 3 only.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes="${*:-10000 100000 1000000}"
lib=gpu/target/device-check-lib
if [ -d "$lib" ] && [ -f gpu/target/gpu-0.1.0-SNAPSHOT.jar ]; then
  echo "device-check: using the prepared classpath in $lib (no Maven)"
else
  echo "device-check: building (mvn -pl gpu -am) and running the gpu module's tests"
  mvn -B -ntp -pl gpu -am test -Dtest='CudaReachability*,ChainCoverReachabilityTest' -Dsurefire.failIfNoSpecifiedTests=false \
    | grep -E "Tests run:|FAIL" || true
  mvn -q -B -ntp -pl gpu -am package dependency:copy-dependencies -DskipTests -DincludeScope=runtime \
    -DexcludeArtifactIds=rocksdbjni,kafka-clients,zstd-jni,lz4-java,snappy-java -DoutputDirectory=target/device-check-lib
fi
cp="gpu/target/gpu-0.1.0-SNAPSHOT.jar:$(ls "$lib"/*.jar | tr '\n' ':')"
timeout 240 java -Xmx8g -cp "$cp" org.cobraverify.gpu.DeviceCheck $sizes
