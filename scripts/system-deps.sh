#!/usr/bin/env bash
# Debian packages the test suite uses: Chromium (the report renders in a real
# browser; a call's page in the same), espeak-ng (the speech the call test's fake
# microphone plays), python3 (runs the report's independent recipe), poppler-utils
# (pdftotext reads the printed report's page footers), redis-server (the
# tasks plugin's queue, socket.io fan-out), tmux (drives the chat TUI end to
# end), postgresql (the second storage backend; tests start their own
# cluster with initdb/pg_ctl, see test/helpers/postgres.ts), and curl and jq
# (the curl session of docs/protocol.md runs as written), and R with its survey and jsonlite
# package (docs/recipes/recalc.R, the public-tools check of recalc, runs against
# recalc's own figures). Installed when
# missing and we are root with apt-get (CI, these machines); otherwise says
# what to do.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v espeak-ng >/dev/null 2>&1 || need+=(espeak-ng)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v pdftotext >/dev/null 2>&1 || need+=(poppler-utils)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v jq >/dev/null 2>&1 || need+=(jq)
Rscript -e 'library(survey); library(jsonlite)' >/dev/null 2>&1 || need+=(r-base-core r-cran-survey r-cran-jsonlite)
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || need+=(postgresql)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "setup: installing Debian packages: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
  echo "setup: the test suite also needs: ${need[*]} (e.g. sudo apt-get install ${need[*]}); tests that need them will fail without" >&2
fi
