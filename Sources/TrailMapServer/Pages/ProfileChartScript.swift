/// The trail profile chart shared by the viewer and the store page, served as
/// `/viewer/trailmap-profile.js`: `TrailProfile.load(box, trailId, headers)` asks
/// `GET /api/v1/trails/{id}/profile` once and draws the answer in `box` as an inline SVG chart
/// (elevation against distance, axis labels) with its totals (ascent, descent, steepest grade);
/// a failure (no terrain there, a trail the caller may not read) is a message in `box`. Every
/// text goes in as text (`textContent`), never as markup.
enum ProfileChartScript {
    static let source = #"""
        'use strict';
        const TrailProfile = (() => {
          const ns = 'http://www.w3.org/2000/svg';
          function el(name, attrs, text) {
            const e = document.createElementNS(ns, name);
            for (const k in attrs) e.setAttribute(k, attrs[k]);
            if (text != null) e.textContent = text;
            return e;
          }
          const metres = v => v == null ? '–' : Math.round(v) + ' m';
          const percent = v => v == null ? '–' : v.toFixed(1) + ' %';
          // The chart of a profile answer (`samples` with distanceM, elevationM; nulls are voids).
          function chart(p) {
            const W = 360, H = 150, L = 56, R = 8, T = 8, B = 30;
            const known = p.samples.filter(s => s.elevationM != null);
            const svg = el('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, class: 'profile-chart', role: 'img' });
            svg.appendChild(el('title', {}, 'Elevation against distance'));
            if (!known.length) return svg;
            let lo = Math.min(...known.map(s => s.elevationM)), hi = Math.max(...known.map(s => s.elevationM));
            if (hi - lo < 10) { const mid = (hi + lo) / 2; lo = mid - 5; hi = mid + 5; }
            const length = Math.max(p.lengthM, 1);
            const x = d => L + (W - L - R) * d / length, y = e => T + (H - T - B) * (1 - (e - lo) / (hi - lo));
            // The line, broken at voids; the area under it.
            let d = '', pen = false;
            for (const s of p.samples) {
              if (s.elevationM == null) { pen = false; continue; }
              d += (pen ? 'L' : 'M') + x(s.distanceM).toFixed(1) + ',' + y(s.elevationM).toFixed(1);
              pen = true;
            }
            svg.appendChild(el('rect', { x: L, y: T, width: W - L - R, height: H - T - B, fill: '#f7f7f4', stroke: '#bbb' }));
            svg.appendChild(el('path', { d, fill: 'none', stroke: '#b45309', 'stroke-width': 2, class: 'profile-line' }));
            // Axes: elevation at the bottom, middle and top; distance at the start, middle and end.
            for (const e of [lo, (lo + hi) / 2, hi]) {
              svg.appendChild(el('text', { x: L - 4, y: y(e) + 4, 'text-anchor': 'end', 'font-size': 10 }, Math.round(e) + ' m'));
            }
            for (const f of [0, 0.5, 1]) {
              svg.appendChild(el('text', {
                x: x(f * length), y: H - B + 12, 'text-anchor': f === 0 ? 'start' : f === 1 ? 'end' : 'middle', 'font-size': 10
              }, (f * p.lengthM / 1000).toFixed(p.lengthM < 10000 ? 2 : 1) + ' km'));
            }
            svg.appendChild(
              el('text', { x: L + (W - L - R) / 2, y: H - 2, 'text-anchor': 'middle', 'font-size': 10, fill: '#555' }, 'distance'));
            svg.appendChild(el('text', { x: 9, y: T + (H - T - B) / 2, 'text-anchor': 'middle', 'font-size': 10, fill: '#555',
              transform: 'rotate(-90 9 ' + (T + (H - T - B) / 2) + ')' }, 'elevation'));
            return svg;
          }
          // Draws `p` (a profile answer) for `name` in `box`.
          function draw(box, name, p) {
            box.textContent = '';
            box.hidden = false;
            const head = document.createElement('div');
            head.className = 'profile-name';
            head.textContent = 'Profile: ' + name;
            box.appendChild(head);
            box.appendChild(chart(p));
            const totals = document.createElement('div');
            totals.className = 'profile-totals';
            const figure = (cls, label, value, raw) => {
              const s = document.createElement('span');
              s.className = cls; s.dataset.value = raw == null ? '' : String(raw);
              s.textContent = label + ' ' + value;
              totals.appendChild(s); totals.appendChild(document.createTextNode(' · '));
            };
            figure('ascent', 'Ascent', metres(p.ascentM), p.ascentM);
            figure('descent', 'Descent', metres(p.descentM), p.descentM);
            figure('grade', 'Max grade', percent(p.maxGradePct), p.maxGradePct);
            figure('length', 'Length', (p.lengthM / 1000).toFixed(2) + ' km', p.lengthM);
            totals.lastChild.remove();
            box.appendChild(totals);
          }
          function fail(box, text) {
            box.textContent = '';
            box.hidden = false;
            const m = document.createElement('div');
            m.className = 'profile-error';
            m.textContent = text;
            box.appendChild(m);
          }
          // Asks for trail `id`'s profile once and draws it (or says why not) in `box`.
          async function load(box, id, name, headers) {
            box.hidden = false;
            box.textContent = 'Loading the profile of ' + name + '…';
            try {
              const r = await fetch('/api/v1/trails/' + encodeURIComponent(id) + '/profile', { headers: headers || {} });
              const j = await r.json().catch(() => ({}));
              if (!r.ok) {
                fail(box, 'No profile of ' + name + ': ' + (j.error ? j.error.message : r.status + ' ' + r.statusText));
                return null;
              }
              draw(box, name, j);
              return j;
            } catch (e) { fail(box, 'No profile of ' + name + ': the server cannot be reached (' + e.message + ')'); return null; }
          }
          return { load, draw, chart };
        })();
        """#
}
