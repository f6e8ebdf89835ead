#!/usr/bin/env bash
# Makes sure the servers the replica tests start are installed: Debian's redis-server (the
# shared workshop rooms) and haproxy (sticky sessions in front of two app replicas).
# The tests run their own copies on free ports of 127.0.0.1. If the package starts a system
# Redis or HAProxy (on machines with systemd), nothing here uses or needs it.
set -euo pipefail
find_binary() {
  command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]
}
if find_binary redis-server && find_binary haproxy; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's redis-server and haproxy for the replica tests..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server haproxy >/dev/null
  exit 0
fi
echo "No redis-server or haproxy found and cannot install them here (needs root and apt-get)."
echo "Install them with: sudo apt-get install -y redis-server haproxy   (the replica tests will skip)."
