/// The store page at `/store`: categories, a product list and a product page with its coverage
/// on a map, price, size, levels of detail and the caller's status; log in, buy (sandbox store)
/// and see entitlements. `/store#PRODUCT_ID` opens a product's page.
/// Areas: a click on the map picks a center; with a radius (and optionally an area product) the
/// page asks for a quote (`POST /areas/quotes`), shows its size, zooms, price, expiry and message,
/// and buys it (a sandbox Consumable, then `POST /areas`), showing the bought area's id.
/// `/store#area` opens the area tool, `/store#area=LAT,LON,RADIUS_KM` with a center and radius.
/// Trails: a search (name, place or LAT,LON and radius, difficulty, no horses or bikes) lists the
/// trails of every region with the regions holding them and draws them on the map (their lines
/// where the caller may read them, else their extent); a region's page counts its trails, and its
/// longest trails' names (or a search result) open a trail's elevation profile (`ProfileChartScript`).
/// `/store#trails=QUERY` opens a search (`QUERY` as `GET /api/v1/trails` takes it).
/// Everything comes from `/api/v1/`; Leaflet and the page's script (`StoreScript`) are served by this server.
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
        input,select{width:100%;box-sizing:border-box;margin:2px 0;padding:4px}
        #msg{position:sticky;top:0;z-index:1000;color:#8a1f11;background:#fff4f2;border:1px solid #f2c4bc;border-radius:6px;
        padding:6px 8px;margin:0 0 8px}
        #msg.info{color:#14532d;background:#f0fdf4;border-color:#bbf7d0}
        .area_product,.area{background:#e0e7ff}#map.picking{cursor:crosshair}.quote{border:1px solid #c7d2fe;border-radius:8px;padding:8px}
        .note{color:#555;font-size:13px}code{background:#f4f4f2;padding:1px 4px;border-radius:4px}
        .trail .status{background:#ecfccb}#profile{font-size:13px;margin:8px 0}.profile-name{font-weight:600}.profile-error{color:#a33}
        a.trail-profile{cursor:pointer;color:#24528a;text-decoration:underline}
        .easy{color:#15803d}.moderate{color:#1d4ed8}.hard{color:#b91c1c}.expert{color:#111}
        </style></head><body>
        <nav><h1>TrailMap store</h1><div id="account"></div><h1>Categories</h1><ul id="tree"></ul>
        <div id="areas" hidden><h1>Areas</h1><ul><li><a id="areaLink">Buy the area around a place</a></li></ul></div>
        <h1>Trails</h1><form id="trailForm"><input id="tq" placeholder="name, e.g. bear lake">
        <input id="tnear" placeholder="near: a place or LAT,LON"><input id="tradius" type="number" min="1" max="500" value="25"
        title="radius (km)">
        <select id="tdiff"><option value="">any difficulty</option><option>easy</option><option>moderate</option><option>hard</option>
        <option>expert</option></select>
        <label><input id="tnohorse" type="checkbox" style="width:auto"> no horses</label>
        <label><input id="tnobike" type="checkbox" style="width:auto"> no bikes</label>
        <button>Search trails</button></form></nav>
        <main><h1 id="heading">All regions</h1><div id="list"></div></main>
        <aside><div id="msg" role="status" hidden></div><div id="detail">Pick a region.</div><div id="map"></div></aside>
        <script src="/viewer/leaflet.js"></script>
        <script src="/viewer/trailmap-profile.js"></script>
        <script src="/viewer/trailmap-store.js"></script></body></html>
        """
}
