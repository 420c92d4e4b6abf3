#!/usr/bin/env bash
# Install Debian's chromium for the browser tests of the web page (idempotent), plus a small
# CJK font (fonts-wqy-microhei, ~1.6 MB) when none is installed, so Chinese text renders in
# the test screenshots. Python playwright drives /usr/bin/chromium through `executable_path`;
# `playwright install` downloads a browser at run time and is not used.
set -euo pipefail

CHROMIUM=/usr/bin/chromium

packages=()
[ -x "$CHROMIUM" ] || packages+=(chromium)
if ! command -v fc-list >/dev/null 2>&1 || [ -z "$(fc-list :lang=zh 2>/dev/null)" ]; then
  packages+=(fonts-wqy-microhei)
fi

if [ "${#packages[@]}" -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      SUDO="sudo"
    else
      echo "[install-chromium] ERROR: not root and no sudo: cannot apt-get install ${packages[*]}" >&2
      exit 1
    fi
  fi
  echo "[install-chromium] installing with apt: ${packages[*]}" >&2
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
fi

if [ ! -x "$CHROMIUM" ]; then
  echo "[install-chromium] ERROR: $CHROMIUM is still missing after the install" >&2
  exit 1
fi
# The Debian launcher script prints a harmless shell warning on stderr on some machines.
"$CHROMIUM" --version 2>/dev/null
