import GRDB

/// Orders a patched bundle's `images` so that the VACUUM after a patch packs them into as few
/// pages as it can. VACUUM copies a table in rowid order, filling each leaf page until the next
/// row does not fit (next fit): which rows share a page, and so the file's size, follows the rows'
/// order. A build writes its images in the order it draws them; a patched file has the old
/// version's survivors then the patch's new images, and was found a few pages larger for it. Here
/// each row's cell size on a leaf page is worked out as SQLite lays it out, the rows are packed
/// into pages best fit decreasing, and given new rowids page by page: next fit over that order
/// uses no more pages than the packing did, which is within a page or so of the fewest possible.
enum ImagePacking {
    static func pack(_ db: Database) throws {
        let pageSize = Int(try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096)
        var rows = [(rowid: Int64, cell: Int)]()
        let cursor = try Row.fetchCursor(db, sql: "SELECT rowid, LENGTH(CAST(tile_id AS BLOB)), LENGTH(tile_data) FROM images")
        while let r = try cursor.next() { rows.append((r[0], cellSize(id: r[1], data: r[2], pageSize: pageSize))) }
        guard rows.count > 1 else { return }
        let top = try Int64.fetchOne(db, sql: "SELECT MAX(rowid) FROM images") ?? 0
        // New rowids run from top + 1: their varints are at most this long.
        for i in rows.indices { rows[i].cell += varintLength(top + Int64(rows.count)) }
        let capacity = pageSize - 8 // a table leaf page's header
        let pages = bestFitDecreasing(rows.map(\.cell), capacity: capacity)
        try db.execute(sql: "CREATE TEMP TABLE trailmap_packing (old INTEGER PRIMARY KEY, new INTEGER NOT NULL)")
        let insert = try db.makeStatement(sql: "INSERT INTO temp.trailmap_packing (old, new) VALUES (?, ?)")
        var next = top
        for page in pages {
            for i in page {
                next += 1
                try insert.execute(arguments: [rows[i].rowid, next])
            }
        }
        try db.execute(sql: "UPDATE images SET rowid = (SELECT new FROM temp.trailmap_packing WHERE old = images.rowid)")
        try db.execute(sql: "DROP TABLE temp.trailmap_packing")
    }

    /// Bytes a row of `images` takes on a table leaf page (its cell and cell pointer) but for its
    /// rowid's varint, with an `id`-byte text `tile_id` and a `data`-byte blob: the payload (record
    /// header, id, data) is kept on the page up to SQLite's local limit, the rest on overflow pages.
    static func cellSize(id: Int, data: Int, pageSize: Int) -> Int {
        let types = varintLength(Int64(13 + 2 * id)) + varintLength(Int64(12 + 2 * data))
        let header = types + varintLength(Int64(types + 1))
        let payload = header + id + data
        let usable = pageSize
        let maxLocal = usable - 35, minLocal = (usable - 12) * 32 / 255 - 23
        var local = payload, pointer = 0
        if payload > maxLocal {
            let surplus = minLocal + (payload - minLocal) % (usable - 4)
            local = surplus <= maxLocal ? surplus : minLocal
            pointer = 4
        }
        return varintLength(Int64(payload)) + local + pointer + 2
    }

    static func varintLength(_ v: Int64) -> Int {
        var n = 1, x = UInt64(bitPattern: v) >> 7
        while x > 0 && n < 9 { n += 1; x >>= 7 }
        return n
    }

    /// Items (sizes) packed into bins of `capacity`, largest first, each into the fullest bin it
    /// fits. Returns each bin's item indices.
    static func bestFitDecreasing(_ sizes: [Int], capacity: Int) -> [[Int]] {
        var bins = [[Int]]()
        // Open bins by the room left in them: a tree over 0...capacity finds the least room that fits.
        var byRoom = [Int: [Int]]()
        var tree = RoomTree(size: capacity + 1)
        for i in sizes.indices.sorted(by: { sizes[$0] > sizes[$1] }) {
            let size = min(sizes[i], capacity)
            if let room = tree.first(atLeast: size), var list = byRoom[room], let bin = list.popLast() {
                byRoom[room] = list
                if list.isEmpty { tree.set(room, false) }
                bins[bin].append(i)
                let left = room - size
                byRoom[left, default: []].append(bin)
                tree.set(left, true)
            } else {
                bins.append([i])
                let left = capacity - size
                byRoom[left, default: []].append(bins.count - 1)
                tree.set(left, true)
            }
        }
        return bins
    }

    /// Which rooms have an open bin, with the least room at or above a size found in O(log n).
    struct RoomTree {
        private var leaves: Int
        private var any: [Bool]

        init(size: Int) {
            leaves = 1
            while leaves < size { leaves <<= 1 }
            any = Array(repeating: false, count: 2 * leaves)
        }

        mutating func set(_ room: Int, _ value: Bool) {
            var i = room + leaves
            any[i] = value
            i >>= 1
            while i >= 1 { any[i] = any[2 * i] || any[2 * i + 1]; i >>= 1 }
        }

        func first(atLeast size: Int) -> Int? { first(atLeast: size, node: 1, low: 0, high: leaves - 1) }

        private func first(atLeast size: Int, node: Int, low: Int, high: Int) -> Int? {
            guard any[node], high >= size else { return nil }
            if low == high { return low }
            let mid = (low + high) / 2
            return first(atLeast: size, node: 2 * node, low: low, high: mid)
                ?? first(atLeast: size, node: 2 * node + 1, low: mid + 1, high: high)
        }
    }
}
