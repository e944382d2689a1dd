/// The value of rank `rank` (0: the smallest) of `values`, found in O(n) on average without
/// sorting (quickselect, pivot the median of three; past 2 log2(n) rounds the rest is sorted,
/// so the worst case is O(n log n)). `values` is reordered. `rank` must be in `values.indices`.
func selectRank(_ rank: Int, in values: inout [Int]) -> Int {
    precondition(values.indices.contains(rank))
    var lo = 0, hi = values.count - 1
    var rounds = 2 * (Int.bitWidth - values.count.leadingZeroBitCount)
    while hi - lo > 16 {
        if rounds == 0 { break }
        rounds -= 1
        let mid = lo + (hi - lo) / 2
        // The median of the first, middle and last values as the pivot.
        if values[mid] < values[lo] { values.swapAt(mid, lo) }
        if values[hi] < values[lo] { values.swapAt(hi, lo) }
        if values[hi] < values[mid] { values.swapAt(hi, mid) }
        let pivot = values[mid]
        // Three-way partition: [lo, lt) below, [lt, gt] equal, (gt, hi] above.
        var lt = lo, i = lo, gt = hi
        while i <= gt {
            if values[i] < pivot {
                values.swapAt(lt, i)
                lt += 1
                i += 1
            } else if values[i] > pivot {
                values.swapAt(i, gt)
                gt -= 1
            } else {
                i += 1
            }
        }
        if rank < lt {
            hi = lt - 1
        } else if rank > gt {
            lo = gt + 1
        } else {
            return pivot
        }
    }
    values[lo...hi].sort()
    return values[rank]
}
