import CCairo

/// A trail name laid out by Pango in one font and size, with the box its glyphs fill.
final class LabelText {
    let layout: OpaquePointer
    /// The union of the ink and logical rectangles, in layout pixels.
    let x: Double, y: Double, width: Double, height: Double

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
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(layout)) }

    /// Draws the text centred on (cx, cy), turned by `angle` radians, with a halo.
    func draw(on canvas: CairoCanvas, cx: Double, cy: Double, angle: Double, style: TrailStyle) {
        let cr = canvas.cr
        cairo_save(cr)
        cairo_translate(cr, cx, cy)
        cairo_rotate(cr, angle)
        cairo_move_to(cr, -x - width / 2, -y - height / 2)
        pango_cairo_update_layout(cr, layout)
        pango_cairo_layout_path(cr, layout)
        if style.haloWidth > 0 {
            canvas.setSource(style.haloColor)
            cairo_set_line_width(cr, style.haloWidth * 2)
            cairo_stroke_preserve(cr)
        }
        canvas.setSource(style.labelColor)
        cairo_fill(cr)
        cairo_restore(cr)
    }
}
