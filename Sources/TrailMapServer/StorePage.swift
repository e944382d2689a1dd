/// The store page at `/store`: categories, a product list and a product page with its coverage
/// on a map, price, size, levels of detail and the caller's status; log in, buy (sandbox store)
/// and see entitlements. `/store#PRODUCT_ID` opens a product's page.
/// Everything comes from `/api/v1/`; Leaflet is served by this server.
enum StorePage {
    static let html = """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><title>TrailMap store</title>
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <link rel="stylesheet" href="/viewer/leaflet.css">
    <style>
    body{margin:0;font:15px system-ui,sans-serif;display:grid;grid-template-columns:240px 1fr 420px;height:100vh}
    nav,main,aside{overflow:auto;padding:12px}nav{background:#f4f4f2;border-right:1px solid #ddd}
    aside{border-left:1px solid #ddd}h1{font-size:18px;margin:0 0 8px}ul{list-style:none;padding-left:12px;margin:0}
    li a{cursor:pointer;color:#24528a}.card{border:1px solid #ddd;border-radius:8px;padding:10px;margin:0 0 10px;cursor:pointer}
    .card:hover{background:#f8fbff}.status{float:right;font-size:12px;padding:2px 8px;border-radius:10px;background:#eee}
    .for_sale{background:#dbeafe}.installed{background:#dcfce7}.purchased{background:#fef3c7}.revoked{background:#fee2e2}
    .update_available{background:#fde68a}#map{height:260px;margin:8px 0}button{padding:6px 12px;margin:4px 4px 0 0}
    input{width:100%;box-sizing:border-box;margin:2px 0;padding:4px}#msg{color:#a33;min-height:1.2em}
    </style></head><body>
    <nav><h1>TrailMap store</h1><div id="account"></div><h1>Categories</h1><ul id="tree"></ul></nav>
    <main><h1 id="heading">All regions</h1><div id="list"></div></main>
    <aside><div id="detail">Pick a region.</div><div id="map"></div><div id="msg"></div></aside>
    <script src="/viewer/leaflet.js"></script>
    <script>
    const api = '/api/v1';
    let token = sessionStorage.getItem('token'), catalog = null, filter = '', map = null, layers = [];
    const esc = s => String(s).replace(/[&<>"']/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]));
    const size = n => n > 1e6 ? (n / 1e6).toFixed(1) + ' MB' : (n / 1e3).toFixed(0) + ' kB';
    const price = p => p.amount === '0' ? 'Free' : p.amount + ' ' + p.currency;
    async function call(method, path, body) {
      const h = {'Content-Type': 'application/json'}; if (token) h.Authorization = 'Bearer ' + token;
      const r = await fetch(api + path, {method, headers: h, body: body ? JSON.stringify(body) : undefined});
      const j = r.status === 204 ? {} : await r.json();
      if (!r.ok) throw new Error(j.error ? j.error.message : r.statusText);
      return j;
    }
    function accountBox() {
      const el = document.getElementById('account');
      if (token) { el.innerHTML = '<p>Logged in. <button id="out">Log out</button></p>';
        document.getElementById('out').onclick = async () => { try { await call('DELETE', '/sessions'); } catch (e) {}
          token = null; sessionStorage.removeItem('token'); accountBox(); load(); }; return; }
      el.innerHTML = '<input id="email" placeholder="email"><input id="pw" type="password" placeholder="password">' +
        '<button id="in">Log in</button><button id="reg">Register</button>';
      const creds = () => ({email: document.getElementById('email').value, password: document.getElementById('pw').value});
      document.getElementById('in').onclick = () => login(creds());
      document.getElementById('reg').onclick = async () => { try { await call('POST', '/accounts', creds()); await login(creds()); }
        catch (e) { say(e.message); } };
    }
    async function login(c) { try { const s = await call('POST', '/sessions', c); token = s.token;
      sessionStorage.setItem('token', token); accountBox(); load(); } catch (e) { say(e.message); } }
    function say(m) { document.getElementById('msg').textContent = m; }
    function tree(nodes) { return nodes.map(n => '<li><a data-path="' + esc(n.path) + '">' + esc(n.name) + '</a>' +
      (n.children.length ? '<ul>' + tree(n.children) + '</ul>' : '') + '</li>').join(''); }
    function render() {
      document.getElementById('tree').innerHTML = '<li><a data-path="">All regions</a></li>' + tree(catalog.categories);
      document.querySelectorAll('#tree a').forEach(a => a.onclick = () => { filter = a.dataset.path; render(); });
      document.getElementById('heading').textContent = filter || 'All regions';
      const items = catalog.products.filter(p => !filter || p.category === filter || p.category.startsWith(filter + '/'));
      document.getElementById('list').innerHTML = items.map(p => '<div class="card" data-id="' + esc(p.productId) + '">' +
        '<span class="status ' + p.status + '">' + p.status.replace('_', ' ') + '</span><b>' + esc(p.title) + '</b><br>' +
        esc(p.category) + ' · ' + price(p.price) + ' · ' + size(p.size) + ' · zoom ' + p.minzoom + '–' + p.maxzoom + '</div>').join('')
        || '<p>No regions here.</p>';
      document.querySelectorAll('.card').forEach(c => c.onclick = () => show(c.dataset.id));
    }
    // The levels of detail in a buyer's words (text from the bundle: escaped).
    const levels = p => p.levelsSummary ? '<p class="levels"><b>Levels of detail:</b> ' + esc(p.levelsSummary) + '</p>' : '';
    async function show(id) {
      say('');
      const p = await call('GET', '/catalog/' + encodeURIComponent(id));
      const canBuy = p.status === 'for_sale' && token;
      document.getElementById('detail').innerHTML = '<h1>' + esc(p.title) + '</h1><p>' + esc(p.description) + '</p><p>' +
        price(p.price) + ' · ' + size(p.size) + ' · zoom ' + p.minzoom + '–' + p.maxzoom + ' · version ' + p.version +
        '</p>' + levels(p) + '<p>Status: <span class="status ' + p.status + '">' + p.status.replace('_', ' ') + '</span></p>' +
        (canBuy ? '<button id="buy">Buy ' + price(p.price) + '</button>' : '') +
        '<p><img src="' + esc(p.previewTileURL) + '" alt="" width="128"></p>';
      const preview = document.querySelector('#detail img');
      if (preview) preview.onerror = () => preview.remove();
      if (canBuy) document.getElementById('buy').onclick = () => buy(p.productId);
      if (!map) {
        map = L.map('map');
        fetch('/tiles/world.json').then(r => r.ok ? r.json() : null).then(tj => {
          // A 512-px tileset is shown one zoom up, as in the viewer.
          const big = tj && tj.tileSize === 512 ? 1 : 0;
          if (tj) L.tileLayer(tj.tiles[0], {maxZoom: 8, minNativeZoom: tj.minzoom + big, maxNativeZoom: tj.maxzoom + big,
                                            tileSize: big ? 512 : 256, zoomOffset: -big}).addTo(map);
        }).catch(() => {});
      }
      layers.forEach(l => map.removeLayer(l)); layers = [L.geoJSON(p.coverage).addTo(map)];
      map.fitBounds(layers[0].getBounds(), {padding: [20, 20]});
    }
    async function buy(id) {
      try { const t = await call('POST', '/sandbox/transactions', {productId: id});
        const r = await call('POST', '/purchases', {signedTransaction: t.signedTransaction});
        say(r.alreadyOwned ? r.message : 'Purchased. Install it with: trailmap regions install ' + id);
        await load(); show(id); } catch (e) { say(e.message); }
    }
    async function load() { try { catalog = await call('GET', '/catalog'); render(); } catch (e) { say(e.message); } }
    // /store#PRODUCT_ID opens that product.
    function fromHash() { if (location.hash.length > 1) show(decodeURIComponent(location.hash.slice(1))).catch(e => say(e.message)); }
    window.addEventListener('hashchange', fromHash);
    accountBox(); load(); fromHash();
    </script></body></html>
    """
}
