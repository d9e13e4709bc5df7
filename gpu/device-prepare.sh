#!/usr/bin/env bash
# Prepares, on a machine with Maven and a JDK (online or with a populated ~/.m2), everything gpu/device-check.sh needs on
# a device machine that has no Java and reaches nothing, all under gpu/target (carry that one path; about 55 MB):
#   device-check-lib/  the gpu module's runtime classpath;
#   device-test-lib/   the JUnit console launcher and round-verifier's test jar (the reachability contract), for step 2;
#   device-jre/        a Java runtime made by jlink from this JDK (stripped: it must travel).
# Then, on the device machine: bash gpu/device-check.sh (it finds all three and needs no Maven).
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -ntp -pl gpu -am package dependency:copy-dependencies -DskipTests -DincludeScope=runtime \
  -DexcludeArtifactIds=rocksdbjni,kafka-clients,zstd-jni,lz4-java,snappy-java -DoutputDirectory=target/device-check-lib
mvn -q -B -ntp -pl gpu test-compile
# the console launcher of the JUnit Platform that the build's junit-bom (5.x.y) goes with (1.x.y)
junit=$(sed -n 's:.*<junit.version>\(.*\)</junit.version>.*:\1:p' pom.xml)
platform="1.${junit#5.}"
rm -rf gpu/target/device-test-lib gpu/target/device-jre
mvn -q -B -ntp dependency:copy -Dartifact="org.junit.platform:junit-platform-console-standalone:$platform" \
  -DoutputDirectory=gpu/target/device-test-lib
cp round-verifier/target/round-verifier-*-tests.jar gpu/target/device-test-lib/
jlink --add-modules java.base,java.logging,java.management,jdk.unsupported,java.xml --strip-debug --no-header-files \
  --no-man-pages --compress=2 --output gpu/target/device-jre
strip --strip-unneeded gpu/target/device-jre/lib/server/libjvm.so 2>/dev/null || true
du -sh gpu/target | sed 's/^/device-prepare: carry gpu\/target: /'
