import CCairo
import Raster

/// A Cairo ARGB32 surface (premultiplied, native-endian) with its drawing context.
final class CairoCanvas {
    let width: Int
    let height: Int
    let surface: OpaquePointer
    let cr: OpaquePointer

    /// A transparent canvas; nil if Cairo cannot make one (no memory, absurd size).
    init?(width: Int, height: Int) {
        guard width > 0, height > 0, width <= 32_767, height <= 32_767,
            let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        else { return nil }
        guard cairo_surface_status(s) == CAIRO_STATUS_SUCCESS, let c = cairo_create(s) else {
            cairo_surface_destroy(s)
            return nil
        }
        self.width = width
        self.height = height
        surface = s
        cr = c
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_GRAY)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    func setSource(_ c: TrailColor) {
        let k = c.components
        cairo_set_source_rgba(cr, k.r, k.g, k.b, k.a)
    }

    /// Replaces the canvas's pixels with straight-alpha RGBA bytes of its size.
    func load(_ rgba: [UInt8]) {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else { return }
        rgba.withUnsafeBufferPointer { o in
            for row in 0..<height {
                let line = UnsafeMutableRawPointer(data + row * stride).assumingMemoryBound(to: UInt32.self)
                for col in 0..<width {
                    let p = (row * width + col) * 4
                    let a = UInt32(o[p + 3])
                    guard a != 0 else { line[col] = 0; continue }
                    let r = (UInt32(o[p]) * a + 127) / 255, g = (UInt32(o[p + 1]) * a + 127) / 255
                    let b = (UInt32(o[p + 2]) * a + 127) / 255
                    line[col] = a << 24 | r << 16 | g << 8 | b
                }
            }
        }
        cairo_surface_mark_dirty(surface)
    }

    /// The canvas as straight-alpha RGBA bytes.
    func image() -> RGBAImage {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else { return RGBAImage(width: width, height: height) }
        var out = [UInt8](repeating: 0, count: width * height * 4)
        out.withUnsafeMutableBufferPointer { o in
            for row in 0..<height {
                let line = UnsafeRawPointer(data + row * stride).assumingMemoryBound(to: UInt32.self)
                for col in 0..<width {
                    let px = line[col]
                    let a = px >> 24
                    guard a != 0 else { continue }
                    let p = (row * width + col) * 4
                    let r = px >> 16 & 0xff, g = px >> 8 & 0xff, b = px & 0xff
                    if a == 255 {
                        o[p] = UInt8(r); o[p + 1] = UInt8(g); o[p + 2] = UInt8(b)
                    } else {
                        o[p] = UInt8(min(255, (r * 255 + a / 2) / a))
                        o[p + 1] = UInt8(min(255, (g * 255 + a / 2) / a))
                        o[p + 2] = UInt8(min(255, (b * 255 + a / 2) / a))
                    }
                    o[p + 3] = UInt8(a)
                }
            }
        }
        return RGBAImage(width: width, height: height, pixels: out)
    }
}
