/// The viewer's script, served as `/viewer/trailmap-viewer.js` (the page's CSP allows scripts
/// from this server only). The view is set on the chosen tileset's bounds at a zoom it has before
/// any layer is added, and every tile layer carries its tileset's zooms and bounds, so no tile
/// outside them is ever asked for. A paid layer's tile token is renewed before it expires, and
/// once more when a tile is refused (`TokenRenewalScript`, included here). Failures (a bad session, a new tile token refused too, a
/// tileset removed while the page is open) end in a message in the page and the layer's
/// removal, never a loop of failing requests.
enum ViewerScript {
    static let source = #"""
        'use strict';
        \#(TokenRenewalScript.source)
        const api = '/api/v1';
        const $ = id => document.getElementById(id);
        // Bundle metadata and catalog text are text, never markup (Leaflet renders attributions as HTML).
        const esc = s => String(s).replace(/[&<>"']/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'})[c]);
        const select = $('tileset'), status = $('status'), tilejson = $('tilejson');
        const map = L.map('map', { worldCopyJump: true, maxZoom: 22 });
        L.control.scale().addTo(map);
        const switcher = L.control.layers({}, {}, { collapsed: false }).addTo(map);
        // The tab's session (shared with the store page), the tilesets, the base map's id, one layer group per tileset.
        let session = sessionStorage.getItem('token'), hasStore = false, baseId = null, current = null;
        // Why the page was signed out, said again before a paid region's prompt until the next sign-in.
        let ended = '';
        const summaries = {}, groups = {}, documents = {};
        // The message box: stays until the next action replaces it.
        function say(text, info) { const m = $('msg'); m.textContent = text || ''; m.hidden = !text; m.className = info ? 'info' : ''; }
        async function call(method, path, body) {
          const h = { 'Content-Type': 'application/json' }; if (session) h.Authorization = 'Bearer ' + session;
          const r = await fetch(api + path, { method, headers: h, body: body ? JSON.stringify(body) : undefined });
          const j = r.status === 204 ? {} : await r.json().catch(() => ({}));
          if (!r.ok) {
            const e = new Error(j.error ? j.error.message : r.statusText);
            e.status = r.status; e.code = j.error && j.error.code; throw e;
          }
          return j;
        }
        async function documentOf(id) {
          if (documents[id]) return documents[id];
          const r = await fetch('/tiles/' + encodeURIComponent(id) + '.json');
          const j = await r.json().catch(() => ({}));
          if (!r.ok) throw new Error(j.error ? j.error.message : 'tileset ' + id + ' cannot be read (' + r.status + ')');
          return (documents[id] = j);
        }
        // Map zooms of a tileset: a 512-px tile covers the z/x/y extent of a 256-px one, shown one zoom up.
        const shift = tj => (tj.tileSize || 256) === 512 ? 1 : 0;
        const boundsOf = b => L.latLngBounds([[b[1], b[0]], [b[3], b[2]]]);
        // How each class of tileset (`GET /tiles`' `layer`) is stacked: the base map at the bottom, regions,
        // drawn relief over both with an opacity, overlays and trails on top. Terrain tiles are elevations
        // encoded in colours: never drawn as a picture (their coverage is outlined instead).
        const stack = { base: 1, region: 10, hillshade: 15, overlay: 20, trails: 25 };
        const classNames = { region: 'Region', overlay: 'Overlay', hillshade: 'Hillshade', trails: 'Trails', terrain: 'Terrain' };
        const layerOf = id => id === baseId ? 'base' : (summaries[id] && summaries[id].layer) || 'region';
        let shade = 0.5;
        // A tile layer that asks only for tiles within the tileset's bounds and zooms (`top`: its highest zoom to ask).
        function tileLayer(tj, url, top, id) {
          const big = shift(tj), cls = layerOf(id);
          return L.tileLayer(url, { minZoom: tj.minzoom + big, maxZoom: 22, minNativeZoom: tj.minzoom + big, maxNativeZoom: top + big,
            bounds: boundsOf(tj.bounds), attribution: esc(tj.attribution || ''), tileSize: big ? 512 : 256, zoomOffset: -big,
            zIndex: stack[cls] || 10, opacity: cls === 'hillshade' ? shade : 1, className: 'layer-' + cls });
        }
        // Fills a tileset's group: the whole tileset when free or owned (tile token), the preview and a prompt otherwise.
        const fills = {};
        async function fill(id) {
          const group = groups[id], s = summaries[id], turn = fills[id] = (fills[id] || 0) + 1;
          group.clearLayers();
          let tj;
          try { tj = await documentOf(id); } catch (e) { say(e.message); map.removeLayer(group); return; }
          if (fills[id] !== turn) return 'superseded';
          if (layerOf(id) === 'terrain') {
            group.addLayer(
              L.rectangle(boundsOf(tj.bounds), { color: '#92400e', weight: 2, fill: false, dashArray: '6 4', interactive: false }));
            say(tj.name + ' is elevation data (' + (tj.encoding || 'terrain') + ' tiles: heights encoded in colours), not a picture: ' +
              'its coverage is outlined, and it answers elevations and trail profiles.', true);
            return 'terrain';
          }
          if (!s.paid) { group.addLayer(watch(tileLayer(tj, tj.tiles[0], tj.maxzoom, id), id, null)); return 'free'; }
          if (!s.productId) { say(tj.name + ' is not sold on its own: buy the region or area that holds it.'); return 'closed'; }
          if (session) {
            try {
              const grant = await call('POST', '/tile-tokens', { productId: s.productId });
              if (fills[id] !== turn) return 'superseded';
              const layer = tileLayer(tj, grant.tilesURL, tj.maxzoom, id);
              const renewal = tileTokenRenewal(layer, {
                shown: () => groups[id].hasLayer(layer),
                signedIn: () => !!session,
                ask: () => call('POST', '/tile-tokens', { productId: s.productId }),
                renewed: next => { if (current === id) archiveLink(id, next.token); },
                // A session that has ended signs the page out; another refusal takes the layer off with a message.
                failed: err => {
                  if (err.status === 401) signedOut('Your session has ended: sign in again to see the regions you own.');
                  else if (err.status) { groups[id].removeLayer(layer); say(cannotShow(id, err.message)); }
                }
              });
              group.addLayer(watch(layer, id, renewal));
              if (current === id) archiveLink(id, grant.token);
              renewal.ahead(grant);
              return 'owned';
            } catch (e) {
              if (e.status === 401) { signedOut('Your session has ended (' + e.message + '): sign in again to see the regions you own.'); }
              else if (e.status !== 403 && e.status !== 404) { say(e.message); }
            }
          }
          const buy = ' Buy it in the store (/store#' + s.productId + ')' + (session ? '.' : ', or sign in if you own it.');
          if (s.previewMaxzoom != null) {
            group.addLayer(watch(tileLayer(tj, tj.tiles[0], s.previewMaxzoom, id), id, null));
            say((ended ? ended + ' ' : '') + tj.name + ' is a paid region: this is its preview (zoom ' +
              tj.minzoom + '–' + s.previewMaxzoom + ').' + buy, true);
            return 'preview';
          }
          say((ended ? ended + ' ' : '') + tj.name + ' is a paid region without a preview.' + buy, true);
          return 'paid';
        }
        const cannotShow = (id, why) => 'The tiles of ' + (summaries[id].name || id) + ' cannot be shown: ' + why;
        // What a failed tile says: a missing tile (404 tile_not_found) is normal; a refused tile token is
        // renewed as `tileTokenRenewal` says (`renewal`: null for a layer without a token); anything else
        // (the tileset removed, a new token refused too) ends in a message and the layer's removal. At most
        // one check runs at a time, and at most a few that find a fault per layer (missing tiles do not count).
        function watch(layer, id, renewal) {
          let checking = false, faults = 0;
          layer.on('tileerror', async e => {
            if (checking || faults >= 5 || !map.hasLayer(layer)) return;
            checking = true;
            try {
              const r = await fetch(e.tile.src);
              const j = await r.json().catch(() => ({}));
              const code = j.error ? j.error.code : '';
              if (r.ok || code === 'tile_not_found') return;
              if (renewal && r.status === 401) {
                try {
                  if (await renewal.refused()) return;
                } catch (err) {
                  if (err.status === 401) {
                    signedOut('Your session has ended: sign in again to see the regions you own.');
                    groups[id].removeLayer(layer);
                    return;
                  }
                }
              }
              faults += 1;
              groups[id].removeLayer(layer);
              say(cannotShow(id, j.error ? j.error.message : r.status + ' ' + r.statusText));
            } catch (err) {
              say('The server cannot be reached: ' + err.message);
            } finally { checking = false; }
          });
          return layer;
        }
        // The archive link, when the tileset is served from a .pmtiles file (clients read it by HTTP
        // range). A paid archive opens only with a tile token: the link carries the buyer's, and is
        // hidden while the page has none (anonymous, or not bought).
        function archiveLink(id, token) {
          const s = summaries[id];
          const archive = s && s.pmtiles && (!s.paid || token) ? '/tiles/' + encodeURIComponent(id) + '.pmtiles' +
            (s.paid ? '?token=' + encodeURIComponent(token) : '') : null;
          $('pmtiles').hidden = !archive; $('nopmtiles').hidden = !!archive;
          $('nopmtiles').textContent = s && s.pmtiles ? 'PMTiles archive: for its buyers' : 'no PMTiles archive';
          if (archive) { $('pmtiles').href = archive; $('pmtiles').title = new URL(archive, location.href).href; }
          else $('pmtiles').removeAttribute('href');
        }
        // Opens a tileset: the view on its bounds at a zoom it has, then its layer.
        async function show(id) {
          say('');
          current = id;
          const url = '/tiles/' + encodeURIComponent(id) + '.json';
          tilejson.href = url; tilejson.title = new URL(url, location.href).href;
          archiveLink(id, null);
          $('wmts').title = new URL('/wmts/1.0.0/WMTSCapabilities.xml', location.href).href + ' (layer ' + id + ')';
          $('wmts').dataset.layer = id;
          let tj;
          try { tj = await documentOf(id); } catch (e) { status.textContent = ''; say(e.message); return; }
          const big = shift(tj), b = boundsOf(tj.bounds);
          const zoom = Math.min(Math.max(map.getBoundsZoom(b), tj.minzoom + big), tj.maxzoom + big);
          map.setView(b.getCenter(), zoom);
          status.textContent = tj.name + ' · zoom ' + tj.minzoom + '–' + tj.maxzoom;
          history.replaceState(null, '', '?tileset=' + encodeURIComponent(id));
          // A group in the switcher is filled on its overlayadd; terrain data has no entry there.
          if (!map.hasLayer(groups[id])) { groups[id].addTo(map); if (layerOf(id) === 'terrain') await fill(id); } else await fill(id);
        }
        map.on('overlayadd baselayerchange', e => { for (const id in groups) if (groups[id] === e.layer) fill(id); });
        select.onchange = () => show(select.value);
        // The account box (with a store): sign in here or on the store page, the session is the tab's.
        function signedOut(message) {
          session = null; sessionStorage.removeItem('token'); accountBox(); if (current) archiveLink(current, null);
          if (message) { ended = message; say(message); }
        }
        function accountBox() {
          const el = $('account');
          el.hidden = !hasStore;
          if (!hasStore) return;
          if (session) {
            el.innerHTML = 'Signed in. <a href="/store">Store</a> <button id="out">Sign out</button>';
            $('out').onclick = async () => { try { await call('DELETE', '/sessions'); } catch (e) {} signedOut(''); refill(); };
            return;
          }
          el.innerHTML = '<input id="email" placeholder="email"> <input id="pw" type="password" placeholder="password"> ' +
            '<button id="in">Sign in</button>';
          $('in').onclick = async () => {
            say('');
            try { const s = await call('POST', '/sessions', { email: $('email').value, password: $('pw').value });
              session = s.token; ended = ''; sessionStorage.setItem('token', session); accountBox(); refill(); }
            catch (e) { say(e.message); }
          };
        }
        // Redraws the paid tilesets shown (after signing in or out).
        function refill() { for (const id in groups) if (summaries[id].paid && map.hasLayer(groups[id])) fill(id); }
        // Trails (with a store): a page of results listed and drawn, lines where the caller may read them.
        const colours = { easy: '#15803d', moderate: '#1d4ed8', hard: '#b91c1c', expert: '#111111', unknown: '#6b7280' };
        let drawn = [];
        async function findTrails(query) {
          const found = $('found');
          const r = await fetch('/api/v1/trails?' + query, { headers: session ? { Authorization: 'Bearer ' + session } : {} });
          const j = await r.json();
          drawn.forEach(l => map.removeLayer(l)); drawn = [];
          if (!r.ok) { found.textContent = j.error ? j.error.message : r.statusText; return; }
          found.innerHTML = j.trails.map(t => '<div>' + esc(t.name || t.ref || 'unnamed') + ' · ' + esc(t.difficulty) + ' · ' +
            t.lengthKm.toFixed(1) + ' km · ' + esc(t.products.map(p => p.title).join(', ')) +
            '<button type="button" class="prof" data-id="' + esc(t.id) + '">Profile</button></div>').join('') || 'no trails here';
          // A result's button (or its drawn line) opens its elevation profile, asked once per click.
          const profileOf = t => TrailProfile.load($('profile'), t.id, t.name || t.ref || 'unnamed trail',
            session ? { Authorization: 'Bearer ' + session } : {});
          found.querySelectorAll('.prof').forEach(b => {
            b.onclick = () => { const t = j.trails.find(x => x.id === b.dataset.id); if (t) profileOf(t); };
          });
          for (const t of j.trails) {
            const colour = colours[t.difficulty] || '#6b7280', b = t.bbox;
            if (t.products.some(p => p.owned)) {
              const d = await (await fetch('/api/v1/trails/' + t.id,
                { headers: session ? { Authorization: 'Bearer ' + session } : {} })).json();
              if (d.geometry) {
                drawn.push(L.geoJSON(d.geometry, { style: { color: colour, weight: 4 } }).bindTooltip(esc(t.name || ''))
                  .on('click', () => profileOf(t)).addTo(map));
                continue;
              }
            }
            drawn.push(L.rectangle([[b[1], b[0]], [b[3], b[2]]], { color: colour, weight: 1, fillOpacity: 0.1 })
              .bindTooltip(esc(t.name || '')).addTo(map));
          }
          if (drawn.length) map.fitBounds(L.featureGroup(drawn).getBounds(), { maxZoom: 14 });
        }
        $('trails').onsubmit = e => {
          e.preventDefault();
          const q = new URLSearchParams(), name = $('tq').value.trim(), b = map.getBounds();
          if (name) q.set('q', name);
          q.set('bbox', [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()]
            .map(v => Math.max(-180, Math.min(180, v)).toFixed(5)).join(','));
          findTrails(q.toString()).catch(e => { $('found').textContent = 'error: ' + e; });
        };
        // Whether the server has a store (its trail search answers): asked again, a second apart, while
        // the server or the network fails; a 4xx means no store. A search in the address runs once found.
        async function probeStore(tries) {
          try {
            const r = await fetch('/api/v1/trails?limit=1');
            if (r.status >= 500) throw new Error(r.status + ' ' + r.statusText);
            if (!r.ok) return;
          } catch (e) {
            if (tries > 1) setTimeout(() => probeStore(tries - 1), 1000);
            return;
          }
          hasStore = true; accountBox();
          // A session the server does not know (ended elsewhere, expired, never one) is forgotten with a message.
          if (session) call('GET', '/entitlements').catch(e => {
            if (e.status === 401 && session) {
              signedOut('Your session has ended (' + e.message + '): sign in again to see the regions you own.');
              refill();
            }
          });
          $('trails').hidden = false;
          const asked = new URLSearchParams(location.search).get('trails');
          if (asked) findTrails(asked).catch(e => { $('found').textContent = 'error: ' + e; });
        }
        probeStore(5);
        // The absolute WMTS URL, to copy into another client (QGIS: Add WMS/WMTS Layer).
        $('wmts').title = new URL('/wmts/1.0.0/WMTSCapabilities.xml', location.href).href;
        fetch('/tiles').then(r => r.json()).then(async list => {
          const ok = list.tilesets.filter(t => t.status === 'ok');
          baseId = list.base || null;
          // The switcher: the base map as a base layer; regions, hillshade, overlays and trails as overlays,
          // each labelled with its class; terrain data is not a picture and has no entry (the tileset box has it).
          const order = ['region', 'hillshade', 'overlay', 'trails', 'terrain'];
          for (const t of ok) summaries[t.id] = t;
          const sorted = ok.slice().sort((a, b) => order.indexOf(layerOf(a.id)) - order.indexOf(layerOf(b.id)));
          for (const t of sorted) {
            groups[t.id] = L.layerGroup();
            const cls = layerOf(t.id), label = esc(t.name) + (t.paid ? ' (paid)' : '');
            if (cls === 'base') switcher.addBaseLayer(groups[t.id], '<span data-layer="base">Base map: ' + label + '</span>');
            else if (cls !== 'terrain') switcher.addOverlay(groups[t.id],
              '<span data-layer="' + cls + '">' + (cls === 'region' ? '' : classNames[cls] + ': ') + label + '</span>');
            const o = document.createElement('option'); o.value = t.id;
            o.textContent = t.name + (t.paid ? ' (paid)' : '') + (cls === 'terrain' ? ' (elevation data)'
              : cls === 'region' || cls === 'base' ? '' : ' (' + classNames[cls].toLowerCase() + ')');
            select.appendChild(o);
          }
          // The hillshade's opacity, when there is one.
          if (ok.some(t => layerOf(t.id) === 'hillshade')) {
            $('shadebox').hidden = false;
            $('shade').oninput = e => { shade = Number(e.target.value);
              for (const id in groups) if (layerOf(id) === 'hillshade') groups[id].eachLayer(l => l.setOpacity && l.setOpacity(shade)); };
          }
          const wanted = new URLSearchParams(location.search).get('tileset');
          const pick = ok.find(t => t.id === wanted) || ok.find(t => !t.paid && layerOf(t.id) === 'region') ||
            ok.find(t => !t.paid && t.id !== baseId) || ok.find(t => !t.paid) || ok[0];
          if (!pick) { status.textContent = 'no tilesets'; return; }
          select.value = pick.id;
          await show(pick.id);
          // The base map goes underneath once the view is set, so it asks only for the view's tiles.
          if (baseId && baseId !== pick.id) { groups[baseId].addTo(map); }
        }).catch(e => { status.textContent = ''; say('The tileset list cannot be read: ' + e.message); });
        """#
}
