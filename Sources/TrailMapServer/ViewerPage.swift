/// The map viewer served at `/`: Leaflet (from Debian's libjs-leaflet, served by this server)
/// showing any tileset, picked from `GET /tiles`; `?tileset=ID` selects one. The bar links the
/// shown tileset's TileJSON and the WMTS capabilities (for QGIS and other desktop GIS). With a
/// store, a trail search (a name, within the map's view) lists and draws the published regions'
/// trails; `?trails=QUERY` opens one (`QUERY` as `GET /api/v1/trails` takes it).
enum ViewerPage {
    static let html = """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>TrailMap viewer</title>
    <link rel="stylesheet" href="/viewer/leaflet.css">
    <style>
      html, body { margin: 0; height: 100%; font-family: system-ui, sans-serif; }
      #bar { position: absolute; top: 10px; right: 10px; z-index: 1000; background: #fff; padding: 6px 10px;
             border-radius: 4px; box-shadow: 0 1px 4px rgba(0,0,0,.3); }
      #map { position: absolute; inset: 0; background: #dde; }
      #status, #links { font-size: 12px; color: #555; }
      #trails { margin-top: 6px; } #trails input { width: 150px; } #found { font-size: 12px; max-height: 220px; overflow: auto; }
    </style>
    </head>
    <body>
    <div id="map"></div>
    <div id="bar"><label>Tileset <select id="tileset"></select></label><div id="status">loading…</div>
    <div id="links"><a id="tilejson" href="/tiles">TileJSON</a> · <a id="wmts" href="/wmts/1.0.0/WMTSCapabilities.xml">WMTS capabilities</a></div>
    <form id="trails" hidden><input id="tq" placeholder="trail name"> <button>Find trails here</button><div id="found"></div></form></div>
    <script src="/viewer/leaflet.js"></script>
    <script>
    const map = L.map('map', { worldCopyJump: true }).setView([20, 0], 2);
    const select = document.getElementById('tileset');
    const status = document.getElementById('status');
    let layer = null;
    const paid = new Set();
    // Bundle metadata is text, never markup (Leaflet renders attributions as HTML).
    const esc = s => String(s).replace(/[&<>"']/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'})[c]);
    const tilejson = document.getElementById('tilejson');
    // Absolute URLs, to copy into another client (QGIS: Add WMS/WMTS Layer).
    document.getElementById('wmts').title = new URL('/wmts/1.0.0/WMTSCapabilities.xml', location.href).href;
    async function show(id) {
      const url = '/tiles/' + encodeURIComponent(id) + '.json';
      tilejson.href = url;
      tilejson.title = new URL(url, location.href).href;
      const tj = await (await fetch(url)).json();
      if (layer) map.removeLayer(layer);
      // A 512-px tile covers the z/x/y extent of a 256-px one: Leaflet shows it one zoom up.
      const big = (tj.tileSize || 256) === 512 ? 1 : 0;
      layer = L.tileLayer(tj.tiles[0], { minZoom: 0, maxZoom: 22, minNativeZoom: tj.minzoom + big,
        maxNativeZoom: tj.maxzoom + big, attribution: esc(tj.attribution || ''), tileSize: big ? 512 : 256,
        zoomOffset: -big }).addTo(map);
      const b = tj.bounds;
      map.fitBounds([[b[1], b[0]], [b[3], b[2]]]);
      status.textContent = tj.name + ' · zoom ' + tj.minzoom + '–' + tj.maxzoom +
        (paid.has(id) ? ' · paid region: tiles need a purchase (see /store)' : '');
      history.replaceState(null, '', '?tileset=' + encodeURIComponent(id));
    }
    select.onchange = () => show(select.value);
    // Trails (with a store): a page of results listed and drawn, lines where the caller may read them.
    const colours = {easy: '#15803d', moderate: '#1d4ed8', hard: '#b91c1c', expert: '#111111', unknown: '#6b7280'};
    let drawn = [];
    async function findTrails(query) {
      const found = document.getElementById('found');
      const r = await fetch('/api/v1/trails?' + query);
      const j = await r.json();
      drawn.forEach(l => map.removeLayer(l)); drawn = [];
      if (!r.ok) { found.textContent = j.error ? j.error.message : r.statusText; return; }
      found.innerHTML = j.trails.map(t => '<div>' + esc(t.name || t.ref || 'unnamed') + ' · ' + esc(t.difficulty) + ' · ' +
        t.lengthKm.toFixed(1) + ' km · ' + esc(t.products.map(p => p.title).join(', ')) + '</div>').join('') || 'no trails here';
      for (const t of j.trails) {
        const colour = colours[t.difficulty] || '#6b7280', b = t.bbox;
        if (t.products.some(p => p.owned)) {
          const d = await (await fetch('/api/v1/trails/' + t.id)).json();
          if (d.geometry) { drawn.push(L.geoJSON(d.geometry, {style: {color: colour, weight: 4}}).bindTooltip(t.name || '').addTo(map)); continue; }
        }
        drawn.push(L.rectangle([[b[1], b[0]], [b[3], b[2]]], {color: colour, weight: 1, fillOpacity: 0.1}).bindTooltip(t.name || '').addTo(map));
      }
      if (drawn.length) map.fitBounds(L.featureGroup(drawn).getBounds(), {maxZoom: 14});
    }
    document.getElementById('trails').onsubmit = e => {
      e.preventDefault();
      const q = new URLSearchParams(), name = document.getElementById('tq').value.trim(), b = map.getBounds();
      if (name) q.set('q', name);
      q.set('bbox', [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].map(v => Math.max(-180, Math.min(180, v)).toFixed(5)).join(','));
      findTrails(q.toString()).catch(e => { document.getElementById('found').textContent = 'error: ' + e; });
    };
    fetch('/api/v1/trails?limit=1').then(r => {
      if (!r.ok) return;
      document.getElementById('trails').hidden = false;
      const asked = new URLSearchParams(location.search).get('trails');
      if (asked) findTrails(asked).catch(() => {});
    }).catch(() => {});
    fetch('/tiles').then(r => r.json()).then(list => {
      const ok = list.tilesets.filter(t => t.status === 'ok');
      for (const t of ok) {
        if (t.paid) paid.add(t.id);
        const o = document.createElement('option'); o.value = t.id; o.textContent = t.name + (t.paid ? ' (paid)' : ''); select.appendChild(o);
      }
      const wanted = new URLSearchParams(location.search).get('tileset');
      const pick = ok.find(t => t.id === wanted) || ok.find(t => !t.paid) || ok[0];
      if (pick) { select.value = pick.id; show(pick.id); } else { status.textContent = 'no tilesets'; }
    }).catch(e => { status.textContent = 'error: ' + e; });
    </script>
    </body>
    </html>
    """
}
