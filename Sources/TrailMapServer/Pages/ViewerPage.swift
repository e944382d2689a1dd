/// The map viewer served at `/`: Leaflet (from Debian's libjs-leaflet, served by this server)
/// showing any tileset over the free base map (`GET /tiles`' `base`), picked from `GET /tiles`;
/// `?tileset=ID` selects one. A layer switcher turns the base, regions, hillshade (drawn with an
/// opacity over them), overlays and trails on and off, each by its class (`TilesetLayer`);
/// terrain tiles (elevations in colours) are never drawn as a picture: their coverage is outlined;
/// a scale bar; links to the shown tileset's TileJSON, the WMTS capabilities (its layer named in
/// the link's title) and, for a tileset served from a `.pmtiles` file, the archive. With a store:
/// sign-in (shared with the store page: one session per tab), a paid region's tiles for its
/// buyer through a tile token, its preview and a prompt for everyone else, and a trail search
/// whose results (and drawn lines) open the trail's elevation profile (`ProfileChartScript`).
/// The script is `ViewerScript` (`/viewer/trailmap-viewer.js`).
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
          #bar { position: absolute; top: 10px; left: 50px; z-index: 1000; background: #fff; padding: 6px 10px; max-width: 360px;
                 border-radius: 4px; box-shadow: 0 1px 4px rgba(0,0,0,.3); }
          #map { position: absolute; inset: 0; background: #dde; }
          #status, #links, #shadebox { font-size: 12px; color: #555; } #shade { vertical-align: middle; width: 110px; }
          #msg { font-size: 13px; color: #8a1f11; background: #fff4f2; border: 1px solid #f2c4bc; border-radius: 4px; padding: 4px 6px;
                 margin-top: 4px; }
          #msg.info { color: #1e3a5f; background: #eef5ff; border-color: #c3d7f2; }
          #account input { width: 120px; } #account { font-size: 12px; margin-top: 4px; }
          #profile { margin-top: 6px; font-size: 12px; } .profile-name { font-weight: 600; } .profile-error { color: #8a1f11; }
          #found button { font-size: 11px; padding: 0 4px; margin-left: 4px; }
          #trails { margin-top: 6px; } #trails input { width: 150px; } #found { font-size: 12px; max-height: 220px; overflow: auto; }
        </style>
        </head>
        <body>
        <div id="map"></div>
        <div id="bar"><label>Tileset <select id="tileset"></select></label><div id="status">loading…</div>
        <div id="links"><a id="tilejson" href="/tiles">TileJSON</a> ·
        <a id="wmts" href="/wmts/1.0.0/WMTSCapabilities.xml">WMTS capabilities</a> ·
        <a id="pmtiles" hidden>PMTiles archive</a><span id="nopmtiles">no PMTiles archive</span></div>
        <label id="shadebox" hidden>Hillshade opacity <input id="shade" type="range" min="0" max="1" step="0.1" value="0.5"></label>
        <div id="msg" hidden></div>
        <div id="account" hidden></div>
        <form id="trails" hidden><input id="tq" placeholder="trail name"> <button>Find trails here</button><div id="found"></div></form>
        <div id="profile" hidden></div></div>
        <script src="/viewer/leaflet.js"></script>
        <script src="/viewer/trailmap-profile.js"></script>
        <script src="/viewer/trailmap-viewer.js"></script>
        </body>
        </html>
        """
}
