# Shared set-up of the benchmarks over the UTM mosaic (big-build.sh, delta.sh); sourced, with
# ROOT set. Sets WORK (a scratch folder, removed at exit unless given), makes DATA's inputs with
# make-utm-mosaic.sh when missing, builds TRAILMAP (release, .build-bench) unless given, and
# copies the 8 sheets to $WORK/sheets (the benchmarks change them; DATA's stay as made).
DATA=${DATA:-/tmp/tm-bench}
if [ -z "${WORK:-}" ]; then WORK=$(mktemp -d) WORK_OWNED=1; trap 'rm -rf "$WORK"' EXIT; fi
mkdir -p "$WORK/sheets"
if [ ! -d "$DATA/mosaic/sheets" ]; then CASES=mosaic "$ROOT/scripts/bench/make-utm-mosaic.sh" "$DATA"; fi
if [ -z "${TRAILMAP:-}" ]; then
  (cd "$ROOT" && swift build -c release --scratch-path .build-bench --product trailmap >/dev/null)
  TRAILMAP=$ROOT/.build-bench/release/trailmap
fi
cp "$DATA"/mosaic/sheets/*.tif "$WORK/sheets/"
