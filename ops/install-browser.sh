#!/usr/bin/env bash
# Installs what the browser tests need where it is missing: Debian's chromium and chromium-driver (headless
# Chromium and its WebDriver). Tests that need them skip, saying why, when they cannot be had.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
  echo "install-browser: chromium and chromedriver are already installed"; exit 0
fi
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
echo "install-browser: $(chromium --version 2>/dev/null), $(chromedriver --version 2>/dev/null | head -1)"
