/*
 * deflate-frontier: how small and how fast a cost-driven ("near-optimal") deflate parse of
 * filtered PNG rows gets, next to libdeflate's levels 8 and 10, on streams dumped from a bundle
 * by dump_streams.py. An experiment, not part of TrailMap: it decides whether writing our own
 * IDAT compressor could beat libdeflate's size/time trade-off (docs/notes/png-compression.md).
 *
 * Matches: hash chains (depth > 0) or a binary tree per 3-byte hash (depth < 0), plus the PNG
 * distances bpp, one row and two rows; positions inside a match of at least `nice` bytes are
 * not searched. Parse: shortest path over literal and match costs, `passes` times, the costs
 * re-estimated from the previous pass's Huffman code lengths. One dynamic block, zlib wrapper.
 * Every output is decompressed by libdeflate and compared with the input.
 *
 * usage: frontier DEPTH NICE PASSES FILE.bin...   (env LCAP, LTAIL: length relaxation limits)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <libdeflate.h>

#define WSIZE 32768
#define HBITS 15
#define H3BITS 12
#define MINM 3
#define MAXM 258

typedef struct { uint16_t len, dist; } match_t;

static const uint16_t len_base[29] = {3,4,5,6,7,8,9,10,11,13,15,17,19,23,27,31,35,43,51,59,67,83,99,115,131,163,195,227,258};
static const uint8_t len_extra[29] = {0,0,0,0,0,0,0,0,1,1,1,1,2,2,2,2,3,3,3,3,4,4,4,4,5,5,5,5,0};
static const uint16_t dist_base[30] = {1,2,3,4,5,7,9,13,17,25,33,49,65,97,129,193,257,385,513,769,1025,1537,2049,3073,4097,6145,8193,12289,16385,24577};
static const uint8_t dist_extra[30] = {0,0,0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7,8,8,9,9,10,10,11,11,12,12,13,13};
static uint8_t len_sym[259];   /* length -> code index 0..28 */
static uint8_t dist_sym_small[513]; /* dist 1..512 */
static uint8_t dist_sym_big[129];   /* (dist-1)>>8 for dist > 512 */

static void tables_init(void) {
    for (int c = 0; c < 29; c++) {
        int hi = c == 28 ? 258 : (c == 27 ? 257 : len_base[c + 1] - 1);
        for (int l = len_base[c]; l <= hi; l++) len_sym[l] = (uint8_t)c;
    }
    len_sym[258] = 28;
    for (int c = 0; c < 30; c++) {
        int hi = c == 29 ? 32768 : dist_base[c + 1] - 1;
        for (int d = dist_base[c]; d <= hi; d++) {
            if (d <= 512) dist_sym_small[d] = (uint8_t)c;
            else dist_sym_big[(d - 1) >> 8] = (uint8_t)c;
        }
    }
}
static inline int dist_code(int d) { return d <= 512 ? dist_sym_small[d] : dist_sym_big[(d - 1) >> 8]; }

/* ---- Huffman code lengths with a limit (miniz's method) ---- */
typedef struct { uint32_t freq; uint16_t sym; } symfreq;
static int cmp_sf(const void *a, const void *b) {
    const symfreq *x = a, *y = b;
    if (x->freq != y->freq) return x->freq < y->freq ? -1 : 1;
    return x->sym < y->sym ? -1 : 1;
}
static void huff_lengths(const uint32_t *freq, int n, int limit, uint8_t *lens) {
    symfreq s[320];
    int m = 0;
    memset(lens, 0, n);
    for (int i = 0; i < n; i++) if (freq[i]) { s[m].freq = freq[i]; s[m].sym = (uint16_t)i; m++; }
    if (m == 0) { lens[0] = 1; lens[1] = 1; return; }
    if (m == 1) { int o = s[0].sym == 0 ? 1 : 0; lens[s[0].sym] = 1; lens[o] = 1; return; }
    qsort(s, m, sizeof *s, cmp_sf);
    /* in-place Huffman (Moffat & Katajainen) on sorted freqs */
    uint32_t A[320];
    for (int i = 0; i < m; i++) A[i] = s[i].freq;
    {
        int root, leaf, next, avbl, used, dpth;
        A[0] += A[1]; root = 0; leaf = 2;
        for (next = 1; next < m - 1; next++) {
            if (leaf >= m || A[root] < A[leaf]) { A[next] = A[root]; A[root++] = next; }
            else A[next] = A[leaf++];
            if (leaf >= m || (root < next && A[root] < A[leaf])) { A[next] += A[root]; A[root++] = next; }
            else A[next] += A[leaf++];
        }
        A[m - 2] = 0;
        for (next = m - 3; next >= 0; next--) A[next] = A[A[next]] + 1;
        avbl = 1; used = dpth = 0; root = m - 2; next = m - 1;
        while (avbl > 0) {
            while (root >= 0 && (int)A[root] == dpth) { used++; root--; }
            while (avbl > used) { A[next--] = dpth; avbl--; }
            avbl = 2 * used; dpth++; used = 0;
        }
    }
    /* A[i] now holds code length of the i-th least frequent (A[0] longest) */
    int count[64] = {0};
    for (int i = 0; i < m; i++) count[A[i] > 63 ? 63 : A[i]]++;
    for (int i = limit + 1; i < 64; i++) { count[limit] += count[i]; count[i] = 0; }
    uint32_t total = 0;
    for (int i = limit; i > 0; i--) total += (uint32_t)count[i] << (limit - i);
    while (total != (1u << limit)) {
        count[limit]--;
        for (int i = limit - 1; i > 0; i--) if (count[i]) { count[i]--; count[i + 1] += 2; break; }
        total--;
    }
    /* assign: least frequent get the longest */
    int k = 0;
    for (int l = limit; l > 0; l--)
        for (int c = 0; c < count[l]; c++) lens[s[k++].sym] = (uint8_t)l;
}

static void canon_codes(const uint8_t *lens, int n, uint16_t *codes) {
    int bl_count[16] = {0}, next_code[16];
    for (int i = 0; i < n; i++) bl_count[lens[i]]++;
    bl_count[0] = 0;
    int code = 0;
    for (int b = 1; b < 16; b++) { code = (code + bl_count[b - 1]) << 1; next_code[b] = code; }
    for (int i = 0; i < n; i++) {
        int l = lens[i];
        if (!l) { codes[i] = 0; continue; }
        int c = next_code[l]++, r = 0;
        for (int b = 0; b < l; b++) { r = (r << 1) | (c & 1); c >>= 1; }
        codes[i] = (uint16_t)r;
    }
}

/* ---- bit writer ---- */
typedef struct { uint8_t *out; size_t pos, cap; uint64_t buf; int n; int overflow; } bw_t;
static inline void put(bw_t *w, uint32_t bits, int n) {
    w->buf |= (uint64_t)bits << w->n; w->n += n;
    while (w->n >= 8) {
        if (w->pos < w->cap) w->out[w->pos++] = (uint8_t)w->buf; else w->overflow = 1;
        w->buf >>= 8; w->n -= 8;
    }
}
static void flush(bw_t *w) { if (w->n > 0) put(w, 0, 8 - w->n); }

/* ---- the encoder ---- */
typedef struct {
    const uint8_t *in; size_t n;
    uint32_t *mstart; /* n+1 offsets into m */
    match_t *m; size_t mcount, mcap;
    float *cost; uint32_t *from; /* DP: from[i] = (len<<16)|distidx? store len and dist separately */
    uint16_t *plen, *pdist;
} ctx_t;

static int add_match(ctx_t *c, int len, int dist) {
    if (c->mcount == c->mcap) {
        size_t nc = c->mcap * 2 + 1024;
        match_t *nm = realloc(c->m, nc * sizeof *nm);
        if (!nm) return 0;
        c->m = nm; c->mcap = nc;
    }
    c->m[c->mcount].len = (uint16_t)len; c->m[c->mcount].dist = (uint16_t)dist; c->mcount++;
    return 1;
}

static inline int match_len(const uint8_t *a, const uint8_t *b, int max) {
    int l = 0;
    while (l + 8 <= max) {
        uint64_t x, y; memcpy(&x, a + l, 8); memcpy(&y, b + l, 8);
        if (x != y) return l + (__builtin_ctzll(x ^ y) >> 3);
        l += 8;
    }
    while (l < max && a[l] == b[l]) l++;
    return l;
}

/* finds matches; positions inside a long match are skipped (no matches recorded) */
static int find_matches(ctx_t *c, int depth, int nice, const int *extra_d, int n_extra) {
    const uint8_t *in = c->in; size_t n = c->n;
    int32_t *head = malloc(sizeof(int32_t) << HBITS);
    int32_t *prev = malloc(sizeof(int32_t) * WSIZE);
    int32_t *head3 = malloc(sizeof(int32_t) << H3BITS);
    for (int i = 0; i < (1 << H3BITS); i++) head3[i] = -1;
    if (!head || !prev) { free(head); free(prev); free(head3); return 0; }
    for (int i = 0; i < (1 << HBITS); i++) head[i] = -1;
    size_t skip_until = 0;
    for (size_t i = 0; i < n; i++) {
        c->mstart[i] = (uint32_t)c->mcount;
        if (i + MINM > n) continue;
        uint32_t v3 = (uint32_t)in[i] | (uint32_t)in[i + 1] << 8 | (uint32_t)in[i + 2] << 16;
        uint32_t h3 = v3 * 2654435761u >> (32 - H3BITS);
        int32_t c3 = head3[h3]; head3[h3] = (int32_t)i;
        int32_t cand = -1;
        if (i + 4 <= n) {
            uint32_t h = (v3 | (uint32_t)in[i + 3] << 24) * 2654435761u >> (32 - HBITS);
            cand = head[h];
            prev[i & (WSIZE - 1)] = cand; head[h] = (int32_t)i;
        }
        if (i < skip_until) continue;
        int max = (int)(n - i < MAXM ? n - i : MAXM);
        int best = MINM - 1;
        /* explicit distances first */
        for (int e = 0; e < n_extra; e++) {
            int d = extra_d[e];
            if ((size_t)d > i || d > WSIZE) continue;
            int l = match_len(in + i, in + i - d, max);
            if (l > best) { best = l; if (!add_match(c, l, d)) goto oom; if (l >= max) break; }
        }
        if (best < 3 && c3 >= 0 && i - (size_t)c3 < WSIZE && in[c3] == in[i] && in[c3+1] == in[i+1] && in[c3+2] == in[i+2]) {
            int l = match_len(in + i, in + c3, max);
            if (l > best) { best = l; if (!add_match(c, l, (int)(i - c3))) goto oom; }
        }
        int left = depth;
        while (cand >= 0 && left-- > 0 && best < max) {
            size_t d = i - (size_t)cand;
            if (d > WSIZE - 1) break;
            if (in[cand + best] == in[i + best]) {
                int l = match_len(in + i, in + cand, max);
                if (l > best) { best = l; if (!add_match(c, l, (int)d)) goto oom; }
            }
            int32_t nx = prev[cand & (WSIZE - 1)];
            if (nx >= cand) break;
            cand = nx;
        }
        if (best >= nice) skip_until = i + best;
    }
    c->mstart[n] = (uint32_t)c->mcount;
    free(head); free(prev); free(head3);
    return 1;
oom:
    free(head); free(prev); free(head3); return 0;
}


/* binary-tree matchfinder: one tree per 3-byte hash bucket, nodes ordered by the bytes that
 * follow; positions inside a long match are not inserted. */
#define BT_HBITS 16
__attribute__((noinline)) static int find_matches_bt(ctx_t *c, int depth, int nice, const int *extra_d, int n_extra) {
    const uint8_t *in = c->in; size_t n = c->n;
    int32_t *head = malloc(sizeof(int32_t) << BT_HBITS);
    int32_t *kids = malloc(sizeof(int32_t) * 2 * WSIZE);
    if (!head || !kids) { free(head); free(kids); return 0; }
    for (int i = 0; i < (1 << BT_HBITS); i++) head[i] = -1;
    size_t skip_until = 0;
    for (size_t i = 0; i < n; i++) {
        c->mstart[i] = (uint32_t)c->mcount;
        if (i + MINM > n || i < skip_until) continue;
        int max = (int)(n - i < MAXM ? n - i : MAXM);
        int best = MINM - 1;
        for (int e = 0; e < n_extra; e++) {
            int d = extra_d[e];
            if ((size_t)d > i || d > WSIZE - 1) continue;
            int l = match_len(in + i, in + i - d, max);
            if (l > best) { best = l; if (!add_match(c, l, d)) goto oom; }
        }
        uint32_t h = ((uint32_t)in[i] | (uint32_t)in[i + 1] << 8 | (uint32_t)in[i + 2] << 16) * 0x1E35A7BDu >> (32 - BT_HBITS);
        int32_t node = head[h];
        head[h] = (int32_t)i;
        int32_t *lt = &kids[2 * (i & (WSIZE - 1))];
        int32_t *gt = lt + 1;
        int lt_len = 0, gt_len = 0, left = depth;
        for (;;) {
            if (node < 0 || i - (size_t)node > WSIZE - 1 || left-- == 0) { *lt = -1; *gt = -1; break; }
            const uint8_t *m = in + node;
            int len = lt_len < gt_len ? lt_len : gt_len;
            len += match_len(in + i + len, m + len, max - len);
            int32_t *nk = &kids[2 * (node & (WSIZE - 1))];
            if (len > best) {
                best = len;
                if (!add_match(c, len, (int)(i - (size_t)node))) goto oom;
            }
            if (len >= max || len >= nice) { *lt = nk[0]; *gt = nk[1]; break; }
            if (m[len] < in[i + len]) { *lt = node; lt = &nk[1]; node = *lt; lt_len = len; }
            else { *gt = node; gt = &nk[0]; node = *gt; gt_len = len; }
        }
        if (best >= nice) skip_until = i + best;
    }
    c->mstart[n] = (uint32_t)c->mcount;
    free(head); free(kids);
    return 1;
oom:
    free(head); free(kids); return 0;
}

int g_lcap = 258, g_ltail = 1;
typedef struct { float lit[288]; float len[259]; float dist[30]; } costs_t;

static void costs_from_lengths(costs_t *k, const uint8_t *ll, const uint8_t *dl) {
    for (int s = 0; s < 256; s++) k->lit[s] = ll[s] ? ll[s] : 15;
    for (int l = 3; l <= 258; l++) { int c = len_sym[l]; k->len[l] = (ll[257 + c] ? ll[257 + c] : 15) + len_extra[c]; }
    for (int d = 0; d < 30; d++) k->dist[d] = (dl[d] ? dl[d] : 15) + dist_extra[d];
}

__attribute__((noinline)) static void dp(ctx_t *c, const costs_t *k) {
    size_t n = c->n;
    float *cost = c->cost;
    cost[0] = 0;
    for (size_t i = 1; i <= n; i++) cost[i] = 1e30f;
    for (size_t i = 0; i < n; i++) {
        float base = cost[i];
        float lc = base + k->lit[c->in[i]];
        if (lc < cost[i + 1]) { cost[i + 1] = lc; c->plen[i + 1] = 1; }
        int prevlen = MINM - 1;
        for (uint32_t j = c->mstart[i]; j < c->mstart[i + 1]; j++) {
            int len = c->m[j].len, d = c->m[j].dist;
            float dc = base + k->dist[dist_code(d)];
            int lo = prevlen + 1;
            /* all lengths for short; for long, lengths near the end and every length code start */
            int top = len < g_lcap ? len : g_lcap;
            for (int l = lo; l <= top; l++) {
                float t = dc + k->len[l];
                if (t < cost[i + l]) { cost[i + l] = t; c->plen[i + l] = (uint16_t)l; c->pdist[i + l] = (uint16_t)d; }
            }
            if (len > top) {
                for (int l = len; l > top && l > len - g_ltail; l--) {
                float t = dc + k->len[l];
                if (t < cost[i + l]) { cost[i + l] = t; c->plen[i + l] = (uint16_t)l; c->pdist[i + l] = (uint16_t)d; }
                }
            }
            prevlen = len;
        }
    }
}

/* walk back the path, count symbols; returns number of steps; writes path into seq (len,dist) */
__attribute__((noinline)) static size_t trace(ctx_t *c, match_t *seq, uint32_t *lf, uint32_t *df) {
    size_t n = c->n, k = 0;
    memset(lf, 0, 288 * sizeof *lf); memset(df, 0, 30 * sizeof *df);
    size_t i = n;
    while (i > 0) {
        int l = c->plen[i];
        seq[k].len = (uint16_t)l; seq[k].dist = l == 1 ? 0 : c->pdist[i]; k++;
        i -= l;
    }
    /* reverse */
    for (size_t a = 0, b = k - 1; a < b; a++, b--) { match_t t = seq[a]; seq[a] = seq[b]; seq[b] = t; }
    size_t pos = 0;
    for (size_t s = 0; s < k; s++) {
        if (seq[s].len == 1) lf[c->in[pos]]++;
        else { lf[257 + len_sym[seq[s].len]]++; df[dist_code(seq[s].dist)]++; }
        pos += seq[s].len;
    }
    lf[256] = 1;
    return k;
}

static const uint8_t clorder[19] = {16,17,18,0,8,7,9,6,10,5,11,4,12,3,13,2,14,1,15};

__attribute__((noinline)) static void write_block(bw_t *w, ctx_t *c, const match_t *seq, size_t k, const uint32_t *lf, const uint32_t *df, int final) {
    uint8_t ll[288] = {0}, dl[32] = {0};
    uint16_t lc[288], dc[32];
    huff_lengths(lf, 286, 15, ll);
    huff_lengths(df, 30, 15, dl);
    int hlit = 286; while (hlit > 257 && !ll[hlit - 1]) hlit--;
    int hdist = 30; while (hdist > 1 && !dl[hdist - 1]) hdist--;
    /* RLE the code lengths */
    uint8_t all[320]; int na = 0;
    for (int i = 0; i < hlit; i++) all[na++] = ll[i];
    for (int i = 0; i < hdist; i++) all[na++] = dl[i];
    uint8_t rs[320], rx[320]; int nr = 0;
    for (int i = 0; i < na;) {
        int v = all[i], run = 1;
        while (i + run < na && all[i + run] == v) run++;
        if (v == 0 && run >= 3) {
            int r = run > 138 ? 138 : run;
            if (r >= 11) { rs[nr] = 18; rx[nr++] = (uint8_t)(r - 11); } else { rs[nr] = 17; rx[nr++] = (uint8_t)(r - 3); }
            i += r;
        } else if (v != 0 && run >= 4) {
            rs[nr] = (uint8_t)v; rx[nr++] = 0; i++;
            int r = run - 1; if (r > 6) r = 6;
            rs[nr] = 16; rx[nr++] = (uint8_t)(r - 3); i += r;
        } else { rs[nr] = (uint8_t)v; rx[nr++] = 0; i++; }
    }
    uint32_t cf[19] = {0};
    for (int i = 0; i < nr; i++) cf[rs[i]]++;
    uint8_t cl[19]; uint16_t cc[19];
    huff_lengths(cf, 19, 7, cl);
    canon_codes(cl, 19, cc);
    int hclen = 19; while (hclen > 4 && !cl[clorder[hclen - 1]]) hclen--;
    canon_codes(ll, 288, lc);
    canon_codes(dl, 30, dc);
    put(w, final ? 1 : 0, 1); put(w, 2, 2);
    put(w, hlit - 257, 5); put(w, hdist - 1, 5); put(w, hclen - 4, 4);
    for (int i = 0; i < hclen; i++) put(w, cl[clorder[i]], 3);
    for (int i = 0; i < nr; i++) {
        put(w, cc[rs[i]], cl[rs[i]]);
        if (rs[i] == 16) put(w, rx[i], 2); else if (rs[i] == 17) put(w, rx[i], 3); else if (rs[i] == 18) put(w, rx[i], 7);
    }
    size_t pos = 0;
    for (size_t s = 0; s < k; s++) {
        if (seq[s].len == 1) { int b = c->in[pos]; put(w, lc[b], ll[b]); pos++; continue; }
        int l = seq[s].len, d = seq[s].dist;
        int ls = len_sym[l]; put(w, lc[257 + ls], ll[257 + ls]); put(w, l - len_base[ls], len_extra[ls]);
        int ds = dist_code(d); put(w, dc[ds], dl[ds]); put(w, d - dist_base[ds], dist_extra[ds]);
        pos += l;
    }
    put(w, lc[256], ll[256]);
}

/* returns compressed size or 0 */
size_t parse_zlib(const uint8_t *in, size_t n, size_t stride, size_t bpp, int depth, int nice, int passes,
               uint8_t *out, size_t cap) {
    static int inited; if (!inited) { tables_init(); inited = 1; }
    ctx_t c = {0};
    c.in = in; c.n = n;
    c.mstart = malloc((n + 1) * sizeof *c.mstart);
    c.cost = malloc((n + 1) * sizeof *c.cost);
    c.plen = malloc((n + 1) * sizeof *c.plen);
    c.pdist = malloc((n + 1) * sizeof *c.pdist);
    match_t *seq = malloc((n + 1) * sizeof *seq);
    size_t result = 0;
    int extra[4]; int ne = 0;
    if (bpp > 1) extra[ne++] = (int)bpp;
    extra[ne++] = (int)stride; extra[ne++] = (int)(2 * stride);
    if (!c.mstart || !c.cost || !c.plen || !c.pdist || !seq) goto done;
    if (!(depth < 0 ? find_matches_bt(&c, -depth, nice, extra, ne) : find_matches(&c, depth, nice, extra, ne))) goto done;
    /* initial costs: literal from byte histogram, matches from a generic guess */
    costs_t k;
    {
        uint32_t h[256] = {0};
        for (size_t i = 0; i < n; i++) h[in[i]]++;
        for (int s = 0; s < 256; s++) k.lit[s] = h[s] ? (float)(log2((double)n / h[s])) + 0.5f : 12;
        for (int s = 0; s < 256; s++) if (k.lit[s] < 1) k.lit[s] = 1;
        for (int l = 3; l <= 258; l++) k.len[l] = 6 + len_extra[len_sym[l]];
        for (int d = 0; d < 30; d++) k.dist[d] = 5 + dist_extra[d];
    }
    uint32_t lf[288], df[30];
    size_t steps = 0;
    for (int p = 0; p < passes; p++) {
        dp(&c, &k);
        steps = trace(&c, seq, lf, df);
        uint8_t ll[288] = {0}, dl[32] = {0};
        huff_lengths(lf, 286, 15, ll); huff_lengths(df, 30, 15, dl);
        costs_from_lengths(&k, ll, dl);
    }
    bw_t w = {out, 0, cap, 0, 0, 0};
    put(&w, 0x78, 8); put(&w, 0xDA, 8);
    write_block(&w, &c, seq, steps, lf, df, 1);
    flush(&w);
    uint32_t a = libdeflate_adler32(1, in, n);
    put(&w, a >> 24, 8); put(&w, (a >> 16) & 255, 8); put(&w, (a >> 8) & 255, 8); put(&w, a & 255, 8);
    if (!w.overflow) result = w.pos;
done:
    free(c.mstart); free(c.cost); free(c.plen); free(c.pdist); free(c.m); free(seq);
    return result;
}

#ifndef FRONTIER_NO_MAIN
#include <stdio.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: frontier DEPTH NICE PASSES FILE.bin...\n");
        return 2;
    }
    int depth = atoi(argv[1]), nice = atoi(argv[2]), passes = atoi(argv[3]);
    if (getenv("LCAP")) g_lcap = atoi(getenv("LCAP"));
    if (getenv("LTAIL")) g_ltail = atoi(getenv("LTAIL"));
    size_t t8 = 0, t10 = 0, tod = 0; double s8 = 0, s10 = 0, sod = 0;
    struct libdeflate_compressor *c8 = libdeflate_alloc_compressor(8), *c10 = libdeflate_alloc_compressor(10);
    struct libdeflate_decompressor *dd = libdeflate_alloc_decompressor();
    for (int f = 4; f < argc; f++) {
        FILE *fp = fopen(argv[f], "rb");
        if (fp == NULL) { perror(argv[f]); return 2; }
        fseek(fp, 0, SEEK_END);
        long n = ftell(fp);
        fseek(fp, 0, SEEK_SET);
        uint8_t *in = malloc(n > 0 ? (size_t)n : 1);
        if (n <= 0 || in == NULL || fread(in, 1, (size_t)n, fp) != (size_t)n) { fprintf(stderr, "%s: unreadable\n", argv[f]); return 2; }
        fclose(fp);
        /* dump_streams.py names files NNNN_sSTRIDE_bBPP_KIND.bin (STRIDE with the filter byte) */
        size_t stride = 0, bpp = 0;
        const char *tag = strstr(argv[f], "_s");
        if (tag == NULL || sscanf(tag, "_s%zu_b%zu", &stride, &bpp) != 2 || stride == 0 || bpp == 0) {
            fprintf(stderr, "%s: name has no _sSTRIDE_bBPP\n", argv[f]);
            return 2;
        }
        size_t cap = n * 2 + 1000; uint8_t *out = malloc(cap), *back = malloc(n);
        double t = now(); size_t a = libdeflate_zlib_compress(c8, in, n, out, cap); s8 += now() - t; t8 += a;
        t = now(); size_t b = libdeflate_zlib_compress(c10, in, n, out, cap); s10 += now() - t; t10 += b;
        t = now(); size_t o = parse_zlib(in, n, stride, bpp, depth, nice, passes, out, cap); sod += now() - t; tod += o;
        size_t got = 0;
        if (o == 0 || libdeflate_zlib_decompress(dd, out, o, back, n, &got) != 0 || got != (size_t)n || memcmp(back, in, n)) {
            printf("ROUNDTRIP FAIL %s (o=%zu)\n", argv[f], o); return 1;
        }
        free(in); free(out); free(back);
    }
    printf("L8 %zu %.3fs | L10 %zu (%.4f) %.3fs | parse %zu (%.4f) %.3fs\n", t8, s8, t10, (double)t10 / t8, s10, tod, (double)tod / t8, sod);
    return 0;
}
#endif
