# Sourced by scripts/setup.sh: `with_progress LABEL DONE COMMAND…` runs a slow
# step and says so on stderr. On a terminal: a spinner with the elapsed
# seconds while it runs (its output kept in a temporary file, shown only when
# it fails), then "setup: DONE in N s". Elsewhere (CI, a pipe): one plain line
# "setup: LABEL…", the command's own output as it comes, then the same last
# line. A failure prints the command's output and returns its exit code.
with_progress() {
  local label="$1" done="$2" start=$SECONDS code=0
  shift 2
  if [ -t 2 ]; then
    local out i=0 pid frames=(⠋ ⠙ ⠹ ⠸ ⠼ ⠴ ⠦ ⠧ ⠇ ⠏)
    out="$(mktemp)"
    "$@" >"$out" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
      printf '\r\033[2K%s setup: %s… %d s' "${frames[i++ % 10]}" "$label" $((SECONDS - start)) >&2
      sleep 0.2
    done
    wait "$pid" || code=$?
    printf '\r\033[2K' >&2
    if [ "$code" -ne 0 ]; then cat "$out" >&2; fi
    rm -f "$out"
  else
    echo "setup: $label…" >&2
    "$@" || code=$?
  fi
  if [ "$code" -ne 0 ]; then
    echo "setup: failed (exit $code): $label" >&2
    return "$code"
  fi
  echo "setup: $done in $((SECONDS - start)) s" >&2
}
