import CCairo

/// A trail name laid out by Pango in one font and size, with the box its glyphs fill.
final class LabelText {
    /// One glyph of the laid-out text: its font, Pango's glyph record, where its advance
    /// starts (layout pixels) and how wide it is.
    struct Glyph {
        let font: UnsafeMutablePointer<PangoFont>
        let info: PangoGlyphInfo
        let x: Double
        let advance: Double
    }

    let layout: OpaquePointer
    /// The union of the ink and logical rectangles, in layout pixels.
    let x: Double, y: Double, width: Double, height: Double
    /// The glyphs in visual order, and the baseline's offset from the box's middle.
    let glyphs: [Glyph]
    let baselineFromMiddle: Double

    /// Lays `text` out for drawing on `cr`; unhinted metrics, so the size does not depend on
    /// where or at what angle the text is drawn.
    init(text: String, font: String, pixelSize: Double, on cr: OpaquePointer) {
        let layout = pango_cairo_create_layout(cr)!
        self.layout = layout
        let options = cairo_font_options_create()
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        pango_cairo_context_set_font_options(pango_layout_get_context(layout), options)
        cairo_font_options_destroy(options)
        pango_layout_context_changed(layout)
        let description = pango_font_description_from_string(font)
        pango_font_description_set_absolute_size(description, max(1, pixelSize) * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, description)
        pango_font_description_free(description)
        pango_layout_set_single_paragraph_mode(layout, 1)
        text.withCString { pango_layout_set_text(layout, $0, -1) }
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_extents(layout, &ink, &logical)
        let scale = Double(PANGO_SCALE)
        let x0 = Double(min(ink.x, logical.x)) / scale, y0 = Double(min(ink.y, logical.y)) / scale
        let x1 = Double(max(ink.x + ink.width, logical.x + logical.width)) / scale
        let y1 = Double(max(ink.y + ink.height, logical.y + logical.height)) / scale
        x = x0; y = y0; width = x1 - x0; height = y1 - y0
        baselineFromMiddle = Double(pango_layout_get_baseline(layout)) / scale - (y0 + (y1 - y0) / 2)
        var list = [Glyph]()
        if let iter = pango_layout_get_iter(layout) {
            repeat {
                if let run = pango_layout_iter_get_run_readonly(iter), let item = run.pointee.item,
                    let string = run.pointee.glyphs, let font = item.pointee.analysis.font
                {
                    var runBox = PangoRectangle()
                    pango_layout_iter_get_run_extents(iter, nil, &runBox)
                    var gx = Double(runBox.x) / scale
                    for k in 0..<Int(string.pointee.num_glyphs) {
                        let info = string.pointee.glyphs[k]
                        let advance = Double(info.geometry.width) / scale
                        list.append(Glyph(font: font, info: info, x: gx, advance: advance))
                        gx += advance
                    }
                }
            } while pango_layout_iter_next_run(iter) != 0
            pango_layout_iter_free(iter)
        }
        glyphs = list
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(layout)) }

    /// Draws each glyph centred on its place along the line (window pixels), turned to the
    /// line there, with a halo.
    func draw(on canvas: CairoCanvas, glyphs places: [LabelGlyph], originX: Double, originY: Double, style: TrailStyle) {
        let cr = canvas.cr
        cairo_new_path(cr)
        for (g, place) in zip(glyphs, places) {
            cairo_save(cr)
            cairo_translate(cr, place.x - originX, place.y - originY)
            cairo_rotate(cr, place.angle)
            cairo_move_to(cr, -g.advance / 2, baselineFromMiddle)
            var info = g.info
            var cluster: Int32 = 0
            withUnsafeMutablePointer(to: &info) { ip in
                withUnsafeMutablePointer(to: &cluster) { cp in
                    var one = PangoGlyphString(num_glyphs: 1, glyphs: ip, log_clusters: cp, space: 1)
                    pango_cairo_glyph_string_path(cr, g.font, &one)
                }
            }
            cairo_restore(cr)
        }
        if style.haloWidth > 0 {
            canvas.setSource(style.haloColor)
            cairo_set_line_width(cr, style.haloWidth * 2)
            cairo_stroke_preserve(cr)
        }
        canvas.setSource(style.labelColor)
        cairo_fill(cr)
    }
}
