#!/usr/bin/env bash
# Makes sure a Chromium for the real-browser tests is installed: Debian's package, driven
# by Playwright (Playwright's own browser download does not work on offline machines).
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's chromium for the browser tests..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "No chromium found and cannot install it here (needs root and apt-get)."
echo "Install it with: sudo apt-get install -y chromium   (the browser test will skip)."
