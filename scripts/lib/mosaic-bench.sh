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

# Publishes $WORK/products.json over $WORK/tiles into $WORK/catalog.sqlite, makes a sandbox store
# and serves them with $TRAILMAP on a free port until the benchmark exits; sets `server` (its PID)
# and `url`.
serve_store() {
  "$TRAILMAP" catalog publish --products "$WORK/products.json" --tiles "$WORK/tiles" --catalog "$WORK/catalog.sqlite" --quiet
  "$TRAILMAP" store sandbox init "$WORK/sandbox" >/dev/null
  "$TRAILMAP" serve --tiles "$WORK/tiles" --catalog "$WORK/catalog.sqlite" --store-sandbox "$WORK/sandbox" --port 0 \
    --log-level error >"$WORK/serve.out" 2>&1 &
  server=$!
  trap 'kill $server 2>/dev/null; [ -z "${WORK_OWNED:-}" ] || rm -rf "$WORK"' EXIT
  for _ in $(seq 50); do grep -q http "$WORK/serve.out" && break; sleep 0.1; done
  url=$(grep -oE 'http://[0-9.:]+' "$WORK/serve.out" | head -1)
}
