#!/usr/bin/env bash
# Debian/Ubuntu packages the app needs beyond Node.js: bubblewrap and socat for the agents'
# shell sandbox (Claude Code's sandbox on Linux). Runs apt-get only when something is missing;
# needs root (or sudo).
set -euo pipefail
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v socat >/dev/null 2>&1 || missing+=(socat)
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "Installing ${missing[*]} (the agents' shell sandbox)"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
