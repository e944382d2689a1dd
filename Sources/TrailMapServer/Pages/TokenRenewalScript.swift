/// The tile-token renewal of a paid layer shown to its buyer, one copy for the viewer
/// (`ViewerScript`) and the store page's preview (`StoreScript`): both scripts include it. The
/// token is renewed before it expires, for as long as the layer is shown (tiles not yet asked for
/// use the new one, those shown stay), and at once when a tile is refused (the token expired while
/// the page slept). A renewed token gets one chance: refused before any tile loaded with it, it is
/// not renewed again and the page says why its tiles fail, instead of asking for tokens in a loop.
/// What a refused renewal does to the page (a message, the layer removed, signing out) is the
/// page's own.
enum TokenRenewalScript {
    static let source = """
        // A paid layer's tile token, kept alive (the same in the viewer and the store page). `page` says
        // shown(): whether the layer is still on the map; signedIn(): whether the page has a session;
        // ask(): a new token (POST /tile-tokens); renewed(grant): the layer took that token;
        // failed(err): a renewal before the expiry was refused.
        // ahead(grant): renews the token before it expires, then the next one, while the layer is shown.
        // refused(): a tile was refused (401): renews the token, unless the layer holds a renewed token
        // no tile loaded with (true when renewed, false when not: the page says why its tiles fail);
        // a refused renewal throws its error.
        function tileTokenRenewal(layer, page) {
          // `current`: the URL this renewal last gave the layer (nobody else changes it).
          let renewedFrom = null, worked = false, current = null;
          const holdsRenewed = () => renewedFrom !== null && current === renewedFrom;
          layer.on('tileload', () => { if (holdsRenewed()) worked = true; });
          function ahead(grant) {
            const left = Date.parse(grant.expiresAt) - Date.now();
            if (!(left > 0)) return;
            setTimeout(async () => {
              if (!page.shown() || !page.signedIn()) return;
              let next;
              try { next = await page.ask(); } catch (err) { page.failed(err); return; }
              if (!page.shown()) return;
              layer.setUrl(next.tilesURL, true);
              current = next.tilesURL;
              page.renewed(next);
              ahead(next);
            }, Math.max(500, left - Math.min(60000, left / 4)));
          }
          async function refused() {
            if (!page.signedIn() || (holdsRenewed() && !worked)) return false;
            const grant = await page.ask();
            renewedFrom = grant.tilesURL;
            worked = false;
            if (page.shown()) {
              layer.setUrl(grant.tilesURL);
              current = grant.tilesURL;
              page.renewed(grant);
            }
            return true;
          }
          return { ahead, refused };
        }
        """
}
