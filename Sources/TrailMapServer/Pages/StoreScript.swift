/// The store page's script (`StorePage`), served as `/viewer/trailmap-store.js`: the page's
/// Content-Security-Policy allows scripts from this server only, no inline script. A preview whose
/// tiles fail for another reason than a missing tile (its tileset removed while the page is open)
/// is taken off the map with a message in its note, never a blank preview or a loop of requests.
/// An owned region's preview renews its tile token as the viewer does (`TokenRenewalScript`,
/// included here).
enum StoreScript {
    static let source = """
        \(TokenRenewalScript.source)
        const api = '/api/v1';
        let token = sessionStorage.getItem('token'), catalog = null, filter = '', map = null, layers = [];
        // The area tool: its center (a Leaflet LatLng), what is drawn for it, and the last quote.
        let area = null, areaLayers = [], quote = null;
        const esc = s => String(s).replace(/[&<>"']/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]));
        // Sizes as the CLI prints them: 1 KB = 1024 bytes, one decimal (`ByteSize.format`); the API gives bytes.
        const size = n => { const u = ['B', 'KB', 'MB', 'GB', 'TB']; let v = n, i = 0;
          while (v >= 1024 && i < u.length - 1) { v /= 1024; i += 1; } return i === 0 ? n + ' B' : v.toFixed(1) + ' ' + u[i]; };
        const price = p => p.amount === '0' ? 'Free' : p.amount + ' ' + p.currency;
        async function call(method, path, body) {
          const h = {'Content-Type': 'application/json'}; if (token) h.Authorization = 'Bearer ' + token;
          const r = await fetch(api + path, {method, headers: h, body: body ? JSON.stringify(body) : undefined});
          const j = r.status === 204 ? {} : await r.json();
          if (!r.ok) { const e = new Error(j.error ? j.error.message : r.statusText); e.status = r.status; throw e; }
          return j;
        }
        // A token the server does not know (the session ended elsewhere or expired, or it was never one)
        // is forgotten with a message, and the page goes on as anyone's.
        function sessionEnded(e) {
          token = null; sessionStorage.removeItem('token'); accountBox();
          say('Your session has ended (' + e.message + '): log in again to see what you own.');
        }
        async function checkSession() {
          if (!token) return;
          try { await call('GET', '/entitlements'); } catch (e) { if (e.status === 401 && token) { sessionEnded(e); await load(); } }
        }
        function accountBox() {
          const el = document.getElementById('account');
          if (token) { el.innerHTML = '<p>Logged in. <button id="out">Log out</button></p>';
            document.getElementById('out').onclick = async () => { say(''); try { await call('DELETE', '/sessions'); } catch (e) {}
              token = null; sessionStorage.removeItem('token'); accountBox(); load(); }; return; }
          el.innerHTML = '<input id="email" placeholder="email"><input id="pw" type="password" placeholder="password">' +
            '<button id="in">Log in</button><button id="reg">Register</button>';
          const creds = () => ({email: document.getElementById('email').value, password: document.getElementById('pw').value});
          document.getElementById('in').onclick = () => login(creds());
          document.getElementById('reg').onclick = async () => {
            say('');
            try { await call('POST', '/accounts', creds()); await login(creds()); } catch (e) { say(e.message); }
          };
        }
        async function login(c) { say(''); try { const s = await call('POST', '/sessions', c); token = s.token;
          sessionStorage.setItem('token', token); accountBox(); load(); } catch (e) { say(e.message); } }
        // The message box (at the top of the product column, always in view): stays until the next action (log in or
        // out, register, a category, a product, a search, a quote, a buy) replaces or clears it; the page's own work
        // (its map, previews, re-rendered list) never clears it.
        function say(m, info) {
          const el = document.getElementById('msg');
          el.textContent = m || ''; el.hidden = !m; el.className = info ? 'info' : '';
        }
        function tree(nodes) { return nodes.map(n => '<li><a data-path="' + esc(n.path) + '">' + esc(n.name) + '</a>' +
          (n.children.length ? '<ul>' + tree(n.children) + '</ul>' : '') + '</li>').join(''); }
        function render() {
          // The area tool is offered only when an area product is for sale.
          document.getElementById('areas').hidden = !catalog.products.some(p => p.kind === 'area_product');
          document.getElementById('tree').innerHTML = '<li><a data-path="">All regions</a></li>' + tree(catalog.categories);
          document.querySelectorAll('#tree a').forEach(a => a.onclick = () => { say(''); filter = a.dataset.path; render(); });
          document.getElementById('heading').textContent = filter || 'All regions';
          const items = catalog.products.filter(p => !filter || p.category === filter || p.category.startsWith(filter + '/'));
          document.getElementById('list').innerHTML = items.map(p => '<div class="card" data-id="' + esc(p.productId) + '">' +
            '<span class="status ' + esc(p.status) + '">' + esc(p.status.replace('_', ' ')) + '</span>' +
            (p.kind === 'area' ? '<span class="status area">your area</span>' : '') + '<b>' + esc(p.title) + '</b><br>' +
            esc(p.category) + ' · ' + (p.kind === 'area_product' ? offerTerms(p) : price(p.price) + ' · ' + size(p.size) +
            ' · zoom ' + p.minzoom + '–' + p.maxzoom) + '</div>').join('') || '<p>No regions here.</p>';
          document.querySelectorAll('.card').forEach(c => c.onclick = () => show(c.dataset.id));
        }
        // The levels of detail in a buyer's words (text from the bundle: escaped).
        const levels = p => p.levelsSummary ? '<p class="levels"><b>Levels of detail:</b> ' + esc(p.levelsSummary) + '</p>' : '';
        // A region's trails: how many, by difficulty, the longest.
        const km = v => v.toFixed(v < 10 ? 1 : 0) + ' km';
        const trailCount = p => !p.trails ? '' : '<p class="trails"><b>' + p.trails.count + ' trails</b> (' +
          ['easy', 'moderate', 'hard', 'expert', 'unknown'].filter(d => p.trails.byDifficulty[d])
            .map(d => p.trails.byDifficulty[d] + ' ' + d).join(', ') +
          '; ' + km(p.trails.totalLengthKm) + ')' +
          (p.trails.longest.length ? ': ' + p.trails.longest.map(t => '<a class="trail-profile" data-id="' + esc(t.id) +
            '" title="elevation profile">' + esc(t.name) + '</a> ' + km(t.lengthKm)).join(', ') : '') + '</p>';
        // A trail's elevation profile in the product's page (asked once per click; errors said there).
        const profile = (id, name) =>
          TrailProfile.load(document.getElementById('profile'), id, name, token ? {Authorization: 'Bearer ' + token} : {});
        const trailColour = {easy: '#15803d', moderate: '#1d4ed8', hard: '#b91c1c', expert: '#111111', unknown: '#6b7280'};
        // Trail search: a page of results in the list, drawn on the map.
        async function searchTrails(query) {
          say(''); closeArea();
          let r;
          try { r = await call('GET', '/trails?' + query); } catch (e) { say(e.message); return; }
          document.getElementById('heading').textContent =
            r.total + ' trail' + (r.total === 1 ? '' : 's') + (r.place ? ' near ' + r.place.name : '');
          document.getElementById('list').innerHTML = r.trails.map(t => '<div class="card trail" data-id="' + esc(t.id) + '">' +
            '<span class="status">' + esc(t.products.map(p => p.title).join(', ')) + '</span><b>' +
            esc(t.name || t.ref || 'unnamed trail') +
            '</b><br><span class="' + esc(t.difficulty) + '">' + esc(t.difficulty) + '</span> · ' + km(t.lengthKm) +
            (t.distanceKm != null ? ' · ' + km(t.distanceKm) + ' away' : '') +
            (t.allowedUses.length ? ' · ' + esc(t.allowedUses.join(', ')) : '') +
            '</div>').join('') || '<p>No trails match.</p>';
          document.querySelectorAll('.card.trail').forEach(c => c.onclick = () => {
            const t = r.trails.find(x => x.id === c.dataset.id);
            if (t && t.products[0]) show(t.products[0].productId)
              .then(() => profile(t.id, t.name || t.ref || 'unnamed trail')).catch(e => say(e.message));
          });
          ensureMap();
          layers.forEach(l => map.removeLayer(l)); layers = [];
          for (const t of r.trails) {
            const colour = trailColour[t.difficulty] || '#6b7280', b = t.bbox;
            if (t.products.some(p => p.owned)) {
              try {
                const d = await call('GET', '/trails/' + t.id);
                if (d.geometry) {
                  layers.push(L.geoJSON(d.geometry, {style: {color: colour, weight: 4}}).bindTooltip(esc(t.name || '')).addTo(map));
                  continue;
                }
              } catch (e) {}
            }
            layers.push(L.rectangle([[b[1], b[0]], [b[3], b[2]]], {color: colour, weight: 1, fillOpacity: 0.1})
              .bindTooltip(esc(t.name || '')).addTo(map));
          }
          if (layers.length) map.fitBounds(L.featureGroup(layers).getBounds(), {padding: [20, 20], maxZoom: 13});
        }
        function trailQuery() {
          const q = new URLSearchParams(), v = id => document.getElementById(id).value.trim();
          if (v('tq')) q.set('q', v('tq'));
          if (v('tnear')) { q.set('near', v('tnear')); q.set('radiusKm', v('tradius') || '25'); }
          if (v('tdiff')) q.set('difficulty', v('tdiff'));
          const no = [
            document.getElementById('tnohorse').checked && 'horse', document.getElementById('tnobike').checked && 'bicycle'
          ].filter(Boolean);
          if (no.length) q.set('excludeUses', no.join(','));
          return q.toString();
        }
        // An area product is sold per area, up to its cap.
        const offerTerms = p => price(p.price) + ' per area · up to ' + size(p.area ? p.area.maxBytes : p.size);
        function ensureMap() {
          if (map) return;
          map = L.map('map', {maxZoom: 18}).setView([39, -105.5], 5);
          L.control.scale().addTo(map);
          // The server's free base map (`GET /tiles`' base), within its bounds and zooms.
          fetch('/tiles').then(r => r.ok ? r.json() : null).then(list => list && list.base ?
            fetch('/tiles/' + encodeURIComponent(list.base) + '.json').then(r => r.ok ? r.json() : null) : null).then(tj => {
            // A 512-px tileset is shown one zoom up, as in the viewer.
            const big = tj && tj.tileSize === 512 ? 1 : 0;
            if (tj) L.tileLayer(tj.tiles[0], {
              maxZoom: 18, minZoom: tj.minzoom + big, minNativeZoom: tj.minzoom + big, maxNativeZoom: tj.maxzoom + big,
              bounds: [[tj.bounds[1], tj.bounds[0]], [tj.bounds[3], tj.bounds[2]]], tileSize: big ? 512 : 256, zoomOffset: -big, zIndex: 1
            }).addTo(map);
          }).catch(() => {});
          map.on('click', e => { if (area) pickCenter(e.latlng); });
        }
        // `keep`: the message of the action that led here (a purchase) stays.
        async function show(id, keep) {
          if (!keep) say('');
          const p = await call('GET', '/catalog/' + encodeURIComponent(id));
          if (p.kind === 'area_product') { openArea(p.productId, p); return; }
          closeArea();
          const canBuy = p.status === 'for_sale' && token;
          document.getElementById('detail').innerHTML = '<h1>' + esc(p.title) + '</h1><p>' + esc(p.description) + '</p><p>' +
            price(p.price) + ' · ' + size(p.size) + ' · zoom ' + p.minzoom + '–' + p.maxzoom + ' · version ' + p.version +
            '</p>' + levels(p) + trailCount(p) +
            '<p>Status: <span class="status ' + esc(p.status) + '">' + esc(p.status.replace('_', ' ')) + '</span></p>' +
            (p.kind === 'area' ? '<p>Your area (bought as ' + esc(p.areaOf || '') + '). Install it with: <code>trailmap regions install ' +
              esc(p.productId) + '</code></p>' : '') +
            (canBuy ? '<button id="buy">Buy ' + price(p.price) + '</button>' : '') +
            '<p class="preview note" id="previewNote">Loading the preview…</p>' +
            '<div id="profile" hidden></div>';
          document.querySelectorAll('#detail a.trail-profile').forEach(a => a.onclick = () => profile(a.dataset.id, a.textContent));
          if (canBuy) document.getElementById('buy').onclick = () => buy(p.productId);
          ensureMap();
          layers.forEach(l => map.removeLayer(l)); layers = [L.geoJSON(p.coverage, {style: {fill: false, weight: 2}}).addTo(map)];
          map.fitBounds(layers[0].getBounds(), {padding: [20, 20]});
          await drawPreview(p);
        }
        // The product's tiles on the base map: a free or owned region at every zoom (an owned paid one
        // through a tile token), a paid one (or an area product's source) at its preview zooms only
        // (`GET /tiles`' previewMaxzoom), terrain data never (its colours are heights, not a picture).
        let preview = null, previewTurn = 0;
        async function drawPreview(p) {
          const turn = ++previewTurn, note = t => {
            const n = document.getElementById('previewNote');
            if (n && turn === previewTurn) n.textContent = t;
          };
          if (preview) { map.removeLayer(preview); preview = null; }
          const id = decodeURIComponent(new URL(p.tileJSONURL, location.href).pathname.split('/').pop().replace(/[.]json$/, ''));
          let s, tj;
          try {
            const list = await (await fetch('/tiles')).json();
            s = list.tilesets.find(t => t.id === id);
            if (!s || s.status !== 'ok') { note('No preview: the tiles of this region are not served here.'); return; }
            if (s.layer === 'terrain') { note('Elevation data: its tiles are heights, not a picture (coverage outlined).'); return; }
            const r = await fetch(p.tileJSONURL); tj = await r.json();
            if (!r.ok) { note('No preview: ' + (tj.error ? tj.error.message : r.status)); return; }
          } catch (e) { note('No preview: ' + e.message); return; }
          let top = tj.maxzoom, url = tj.tiles[0], grant = null;
          if (s.paid) {
            top = s.previewMaxzoom;
            if (token && s.productId && p.status !== 'for_sale') {
              try {
                grant = await call('POST', '/tile-tokens', {productId: s.productId});
                url = grant.tilesURL; top = tj.maxzoom;
              } catch (e) {}
            }
          }
          if (turn !== previewTurn) return;
          if (top == null) { note('No preview of this region: its tiles come with the purchase.'); return; }
          const big = tj.tileSize === 512 ? 1 : 0;
          preview = L.tileLayer(url, {minZoom: tj.minzoom + big, minNativeZoom: tj.minzoom + big, maxNativeZoom: top + big, maxZoom: 18,
            bounds: [[tj.bounds[1], tj.bounds[0]], [tj.bounds[3], tj.bounds[2]]], tileSize: big ? 512 : 256, zoomOffset: -big, zIndex: 5,
            opacity: s.layer === 'hillshade' ? 0.6 : 1, className: 'store-preview'}).addTo(map);
          const layer = preview, renewal = grant && tileTokenRenewal(layer, {
            shown: () => preview === layer,
            signedIn: () => !!token,
            ask: () => call('POST', '/tile-tokens', {productId: s.productId}),
            renewed: () => {},
            // A renewal the server refuses takes the preview off with its reason; a session that has ended signs the page out.
            failed: async e => {
              dropPreview(layer, note, e.message);
              if (e.status === 401 && token) { sessionEnded(e); await load(); }
            }
          });
          watchPreview(layer, note, renewal);
          if (renewal) renewal.ahead(grant);
          note(top < tj.maxzoom
            ? 'Preview on the map: zooms ' + tj.minzoom + '–' + top + ' of ' + tj.minzoom + '–' + tj.maxzoom +
              ' (the rest with the purchase).'
            : 'On the map: the region at every zoom (' + tj.minzoom + '–' + tj.maxzoom + ').');
        }
        // Takes a failed preview off the map with the reason in its note: no more of its tiles are asked for.
        function dropPreview(layer, note, why) {
          if (preview !== layer) return;
          map.removeLayer(layer); preview = null;
          note('No preview: ' + why + '. The coverage stays outlined.');
        }
        // What a failed preview tile says: a missing tile (404 tile_not_found) is normal; an owned region's
        // refused tile token is renewed as `tileTokenRenewal` says (`renewal`: null for a region not owned).
        // Anything else (the tileset removed from the server's folder, a new token refused, no server) takes
        // the preview off the map with a message in its note. One check at a time.
        function watchPreview(layer, note, renewal) {
          let checking = false;
          layer.on('tileerror', async e => {
            if (checking || preview !== layer) return;
            checking = true;
            let why;
            try {
              const r = await fetch(e.tile.src), j = await r.json().catch(() => ({}));
              if (r.ok || (j.error && j.error.code === 'tile_not_found')) return;
              if (renewal && r.status === 401) {
                try {
                  if (await renewal.refused()) return;
                } catch (err) {
                  if (err.status === 401 && token) { dropPreview(layer, note, err.message); sessionEnded(err); await load(); return; }
                }
              }
              why = j.error ? j.error.message : r.status + ' ' + r.statusText;
            } catch (err) { why = 'the server cannot be reached (' + err.message + ')'; }
            finally { checking = false; }
            dropPreview(layer, note, why);
          });
        }
        // The area tool: pick a center on the map, a radius, optionally an area product; quote; buy.
        function openArea(productId, offer) {
          const offers = catalog ? catalog.products.filter(p => p.kind === 'area_product') : [];
          area = {productId: productId || '', center: area ? area.center : null};
          quote = null;
          document.getElementById('detail').innerHTML = '<h1>' + (offer ? esc(offer.title) : 'Buy an area') + '</h1>' +
            (offer ? '<p>' + esc(offer.description) + '</p><p>' + offerTerms(offer) + '</p>' : '') +
            '<p>Click the map to choose the center, set the radius, then get a quote: the exact size of the area, its zooms and price. ' +
            'One purchase buys one area.</p>' +
            '<label>Radius (km) <input id="radius" type="number" min="0.1" max="200" step="0.1" value="10"></label>' +
            '<label>Area product <select id="offer"><option value="">Best for the place</option>' +
            offers.map(o => '<option value="' + esc(o.productId) + '">' + esc(o.title) + ' (' + offerTerms(o) + ')</option>').join('') +
            '</select></label><p id="center">No center yet: click the map.</p>' +
            '<button id="quoteButton">Get a quote</button><div id="quoteBox"></div>';
          document.getElementById('offer').value = area.productId;
          document.getElementById('offer').onchange = e => { area.productId = e.target.value; };
          document.getElementById('radius').oninput = drawArea;
          document.getElementById('quoteButton').onclick = askQuote;
          ensureMap();
          // What an area of the offer looks like: its source's preview zooms on the map.
          if (offer && offer.tileJSONURL) {
            document.getElementById('detail')
              .insertAdjacentHTML('beforeend', '<p class="preview note" id="previewNote">Loading the preview…</p>');
            drawPreview(offer);
          } else if (preview) { map.removeLayer(preview); preview = null; }
          document.getElementById('map').classList.add('picking');
          layers.forEach(l => map.removeLayer(l)); layers = [];
          const b = offer ? offer.bounds : null;
          if (b && b.length === 4) map.fitBounds([[b[1], b[0]], [b[3], b[2]]], {padding: [20, 20]});
          drawArea();
        }
        function closeArea() {
          area = null; quote = null;
          areaLayers.forEach(l => map && map.removeLayer(l)); areaLayers = [];
          const m = document.getElementById('map'); if (m) m.classList.remove('picking');
        }
        function radiusKm() { return parseFloat(document.getElementById('radius').value); }
        function pickCenter(latlng) {
          area.center = latlng.wrap(); quote = null; document.getElementById('quoteBox').innerHTML = ''; drawArea();
        }
        function drawArea() {
          if (!area || !map) return;
          areaLayers.forEach(l => map.removeLayer(l)); areaLayers = [];
          const c = area.center, r = radiusKm();
          if (!c) return;
          document.getElementById('center').textContent = 'Center: ' + c.lat.toFixed(4) + ', ' + c.lng.toFixed(4) +
            (r > 0 ? ' · radius ' + r + ' km' : '');
          areaLayers.push(L.circleMarker(c, {radius: 4}).addTo(map));
          if (r > 0) areaLayers.push(L.circle(c, {radius: r * 1000, weight: 2, fill: false}).addTo(map));
          if (quote) { const b = quote.bounds;
            areaLayers.push(L.rectangle([[b[1], b[0]], [b[3], b[2]]], {weight: 1, color: '#4338ca'}).addTo(map)); }
        }
        async function askQuote() {
          say('');
          if (!token) { say('Log in to get a quote.'); return; }
          if (!area.center) { say('Click the map to choose the center first.'); return; }
          const r = radiusKm();
          if (!(r > 0 && r <= 200)) { say('The radius must be more than 0 and at most 200 km.'); return; }
          const body = {center: [area.center.lng, area.center.lat], radiusKm: r};
          if (area.productId) body.productId = area.productId;
          const box = document.getElementById('quoteBox');
          box.textContent = 'Asking for a quote…';
          try { quote = await call('POST', '/areas/quotes', body); } catch (e) { box.innerHTML = ''; say(e.message); return; }
          showQuote(quote);
        }
        function showQuote(q) {
          const lowered = q.requestedMaxzoom > q.maxzoom ? ' (lowered from ' + q.requestedMaxzoom + ' to fit the cap)' : '';
          const expires = new Date(q.expiresAt);
          document.getElementById('quoteBox').innerHTML = '<div class="quote" id="quote" data-quote="' + esc(q.quoteId) + '">' +
            '<p><b>' + esc(q.title) + '</b><br>' + esc(q.productId) + ' · ' + price(q.price) + '</p>' +
            '<p>Size: <span id="quoteSize">' + size(q.size) + '</span> (' + q.size + ' bytes, ' + q.tiles + ' tiles) of up to ' +
            size(q.maxBytes) + '<br>Zooms: <span id="quoteZooms">' + q.minzoom + '–' + q.maxzoom + '</span>' + esc(lowered) + '<br>' +
            'Buy before ' + esc(expires.toLocaleTimeString()) + ' (' + esc(q.expiresAt) + ')</p>' +
            (q.message ? '<p class="note" id="quoteMessage">' + esc(q.message) + '</p>' : '') +
            '<button id="buyArea">Buy this area for ' + price(q.price) + '</button></div>';
          document.getElementById('buyArea').onclick = () => buyArea(q);
          drawArea();
        }
        async function buyArea(q) {
          say('');
          try { const t = await call('POST', '/sandbox/transactions', {productId: q.productId});
            const r = await call('POST', '/areas', {quoteId: q.quoteId, signedTransaction: t.signedTransaction});
            document.getElementById('quoteBox').innerHTML = '<div class="quote" id="bought" data-area="' + esc(r.areaId) + '">' +
              '<p><b>Bought area ' + esc(r.areaId) + '</b>' + (r.alreadyRecorded ? ' (this purchase had bought it already)' : '') +
              '<br>' + esc(r.title) + ' · ' + size(r.size) + ' · zooms ' + r.minzoom + '–' + r.maxzoom + '</p>' +
              '<p>Install it with: <code>trailmap regions install ' + esc(r.areaId) + '</code></p></div>';
            quote = null; await load(); } catch (e) { say(e.message); }
        }
        async function buy(id) {
          say('Buying…', true);
          try {
            const t = await call('POST', '/sandbox/transactions', {productId: id});
            const r = await call('POST', '/purchases', {signedTransaction: t.signedTransaction});
            say(r.alreadyOwned ? r.message : 'Purchased. Install it with: trailmap regions install ' + id, true);
            await load(); await show(id, true);
          } catch (e) {
            if (e.status === 401 && token) { sessionEnded(e); await load(); await show(id, true); } else say(e.message);
          }
        }
        async function load() {
          try { catalog = await call('GET', '/catalog'); render(); }
          catch (e) { if (e.status === 401 && token) { sessionEnded(e); return load(); } say(e.message); }
        }
        // /store#PRODUCT_ID opens that product; /store#area the area tool, /store#area=LAT,LON,RADIUS_KM with a center and radius.
        function fromHash() {
          const h = decodeURIComponent(location.hash.slice(1));
          if (h.startsWith('trails=')) { searchTrails(h.slice(7)); return; }
          if (h === 'area' || h.startsWith('area=')) {
            const [lat, lon, r] = h.slice(5).split(',').map(Number);
            openArea('', null);
            if (h.startsWith('area=') && Math.abs(lat) <= 90 && Math.abs(lon) <= 180) {
              if (r > 0) document.getElementById('radius').value = r;
              pickCenter(L.latLng(lat, lon)); map.setView(area.center, 8);
            }
          } else if (h) show(h).catch(e => say(e.message));
        }
        window.addEventListener('hashchange', fromHash);
        document.getElementById('areaLink').onclick = () => { say(''); openArea('', null); };
        document.getElementById('trailForm').onsubmit = e => { e.preventDefault(); location.hash = 'trails=' + trailQuery(); };
        accountBox(); load().then(fromHash).then(checkSession);
        """
}
