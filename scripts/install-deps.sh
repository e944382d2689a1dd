#!/usr/bin/env bash
# Installs the Debian packages TrailMap needs to build and test (idempotent), or with arguments
# just those packages (scripts that need more, e.g. benchmarks, call it with their own list).
# postgresql: the PostgreSQL catalog tests start a throwaway cluster with its initdb and pg_ctl
# (scripts/postgres.sh); no system service is started. zip: tests pack map sheets into archives.
# libcairo2-dev, libpango1.0-dev, fonts-dejavu-core: trails are drawn with Cairo and labelled with Pango.
# python3-xxhash: the reference XXH64 the tile validators (ETags) are checked against.
# slurmctld, slurmd, slurm-client, munge: the Slurm tests start a one-node cluster of their own
# (scripts/slurm/local-cluster.sh); no system service is used.
set -euo pipefail
packages=(libpng-dev zlib1g-dev libsqlite3-dev sqlite3 libgdal-dev libwebp-dev libturbojpeg0-dev libcairo2-dev libpango1.0-dev fonts-dejavu-core gdal-bin osmium-tool libjs-leaflet chromium postgresql zip python3-xxhash slurmctld slurmd slurm-client munge)
(($#)) && packages=("$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
