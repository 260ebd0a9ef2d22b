/* Software rasteriser for the classic-control scenes; see ccgym/render.h.
 *
 * Everything is drawn in pygame's coordinates (origin top-left, y down, as
 * Gymnasium's code builds its surface) and each pixel is stored at row
 * h - 1 - y, which is the pygame.transform.flip(surf, False, True) that every
 * classic-control render() applies before returning the frame.
 *
 * The primitives follow the rules of the pygame calls they stand for, so
 * frames agree pixel for pixel on almost all of the canvas:
 *   gfxdraw.filled_polygon  scanline fill on integer vertices, 16.16 fixed
 *                           point crossings, spans rounded inwards;
 *   gfxdraw.aapolygon       integer Wu lines with an 8-bit error accumulator;
 *   gfxdraw.filled_circle   midpoint circle of horizontal spans;
 *   gfxdraw.aacircle        approximated: coverage by distance to the circle
 *                           (only its outer ring survives the fill on top);
 *   draw.aalines            Wu lines on float endpoints, centres on integers;
 *   draw.line, hline, vline one-pixel integer lines (Gymnasium's draw.line
 *                           is horizontal);
 *   Vector2.rotate_rad      angle reduced to [0, 2pi), exact quarter turns.
 * pygame turns float coordinates into ints by truncation towards zero.
 * Each primitive clips to the canvas first (see "coordinates" below), so a
 * frame costs the same bounded work for any parameters and states.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccgym/draw.h"
#include "ccgym/driver.h" /* ccgym_parallel_for */
#include "ccgym/render.h"

typedef struct rgb {
    uint8_t r, g, b;
} rgb;

typedef struct canvas {
    uint8_t *pix; /* h rows of w RGB pixels, stored bottom row first (the flip) */
    int w, h;
    int aa;
    uint8_t *dirty; /* NULL, or per stored row: 1 once anything is drawn in it */
    const ccgym_render_icon *icon; /* the render call's icon, or NULL */
} canvas;

/* ------------------------------------------------------------ pixels */

/* The pixel's address; the row is marked dirty since every caller writes it. */
static inline uint8_t *pixel_at(const canvas *c, int x, int y)
{
    if (c->dirty != NULL)
        c->dirty[c->h - 1 - y] = 1;
    return c->pix + ((size_t)(c->h - 1 - y) * (size_t)c->w + (size_t)x) * 3;
}

static inline int inside(const canvas *c, int x, int y)
{
    return (unsigned)x < (unsigned)c->w && (unsigned)y < (unsigned)c->h;
}

static inline void put(const canvas *c, int x, int y, rgb col)
{
    if (!inside(c, x, y))
        return;
    uint8_t *p = pixel_at(c, x, y);
    p[0] = col.r;
    p[1] = col.g;
    p[2] = col.b;
}

/* floor(v / 256) for negative v too (what SDL's unsigned masks compute). */
static inline int floor_div256(int v)
{
    return v >= 0 ? v >> 8 : -((-v + 255) >> 8);
}

/* SDL_gfx and SDL's per-pixel-alpha blit: d + floor((s - d) * a / 256). */
static inline void blend(const canvas *c, int x, int y, rgb col, int a)
{
    if (a <= 0 || !inside(c, x, y))
        return;
    uint8_t *p = pixel_at(c, x, y);
    if (a >= 255) {
        p[0] = col.r;
        p[1] = col.g;
        p[2] = col.b;
        return;
    }
    p[0] = (uint8_t)(p[0] + floor_div256(((int)col.r - p[0]) * a));
    p[1] = (uint8_t)(p[1] + floor_div256(((int)col.g - p[1]) * a));
    p[2] = (uint8_t)(p[2] + floor_div256(((int)col.b - p[2]) * a));
}

/* pygame.draw's anti-aliasing: brightness * colour + (1 - brightness) * old, truncated. */
static inline void blend_f(const canvas *c, int x, int y, rgb col, float bright)
{
    if (!(bright > 0.0f) || !inside(c, x, y))
        return;
    if (bright > 1.0f)
        bright = 1.0f;
    uint8_t *p = pixel_at(c, x, y);
    p[0] = (uint8_t)(bright * col.r + (1.0f - bright) * p[0]);
    p[1] = (uint8_t)(bright * col.g + (1.0f - bright) * p[1]);
    p[2] = (uint8_t)(bright * col.b + (1.0f - bright) * p[2]);
}

/* ------------------------------------------------------------ coordinates
 *
 * Any finite parameters reach the scenes, so their float coordinates can be
 * huge, tiny or (from NaN/inf states) not finite at all. Every primitive
 * below clips its geometry to the canvas before it iterates, so its work is
 * bounded by the canvas size whatever the coordinates, and turns a float into
 * an int only once it is clamped into range (an out-of-range or NaN
 * conversion is undefined in C). A shape with a coordinate that is not finite
 * is not drawn (pygame raises on it). */

/* Bound on |coordinate|: sums and differences of two stay finite. */
#define COORD_MAX 1e300
/* Polygons are clipped to the canvas grown by this margin on every side
 * before their vertices become ints. A scene that fits in it is drawn
 * exactly as unclipped; clipping moves a vertex only this far from the
 * canvas, so edge crossings on the canvas move by a few hundredths of a pixel
 * at most, and integer spans stay below 2^16 (the 16.16 arithmetic of
 * aaline_int and fill_polygon). */
#define CLIP_MARGIN 16384.0
/* Most vertices a polygon of up to 4 can have after clipping at 4 sides. */
#define POLY_MAX 64
/* Circles whose centre and radius are within this are drawn with pygame's
 * integer algorithms; larger ones (pygame refuses radii over 32767) as the
 * exact disc, in doubles. */
#define CIRCLE_INT_MAX (1 << 28)

static inline double bound_coord(double v)
{
    return v > COORD_MAX ? COORD_MAX : v < -COORD_MAX ? -COORD_MAX : v;
}

/* trunc(v), Python's int(v), clamped to [lo, hi]; NaN gives lo. */
static inline int clamp_trunc(double v, int lo, int hi)
{
    if (!(v > lo))
        return lo;
    if (v >= hi)
        return hi;
    return (int)v;
}

/* Narrows [*k0, *k1] to the steps k at which start + dir * k (dir = +-1) is
 * in [0, size). */
static inline void clip_steps(int start, int dir, int size, int *k0, int *k1)
{
    const int lo = dir > 0 ? -start : start - (size - 1);
    const int hi = dir > 0 ? size - 1 - start : start;
    if (lo > *k0)
        *k0 = lo;
    if (hi < *k1)
        *k1 = hi;
}

/* ------------------------------------------------------------ lines */

static void hline(const canvas *c, int x1, int x2, int y, rgb col)
{
    if ((unsigned)y >= (unsigned)c->h)
        return;
    if (x1 > x2) {
        int t = x1;
        x1 = x2;
        x2 = t;
    }
    if (x1 < 0)
        x1 = 0;
    if (x2 >= c->w)
        x2 = c->w - 1;
    if (x1 > x2)
        return;
    uint8_t *p = pixel_at(c, x1, y);
    for (int x = x1; x <= x2; x++, p += 3) {
        p[0] = col.r;
        p[1] = col.g;
        p[2] = col.b;
    }
}

static void vline(const canvas *c, int x, int y1, int y2, rgb col)
{
    if ((unsigned)x >= (unsigned)c->w)
        return;
    if (y1 > y2) {
        int t = y1;
        y1 = y2;
        y2 = t;
    }
    if (y1 < 0)
        y1 = 0;
    if (y2 >= c->h)
        y2 = c->h - 1;
    for (int y = y1; y <= y2; y++)
        put(c, x, y, col);
}

/* hline and vline on float coordinates, truncated as pygame does. */
static void hline_f(const canvas *c, double x1, double x2, double y, rgb col)
{
    if (!isfinite(x1) || !isfinite(x2) || !(y > -1.0 && y < c->h))
        return;
    hline(c, clamp_trunc(x1, -1, c->w), clamp_trunc(x2, -1, c->w), (int)y, col);
}

static void vline_f(const canvas *c, double x, double y1, double y2, rgb col)
{
    if (!(x > -1.0 && x < c->w) || !isfinite(y1) || !isfinite(y2))
        return;
    vline(c, (int)x, clamp_trunc(y1, -1, c->h), clamp_trunc(y2, -1, c->h), col);
}

/* A 45-degree line, both endpoints included (what Bresenham draws for it),
 * over the steps that land on the canvas. */
static void diag_line(const canvas *c, int x0, int y0, int x1, int y1, rgb col)
{
    const int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int k0 = 0, k1 = abs(x1 - x0);
    clip_steps(x0, sx, c->w, &k0, &k1);
    clip_steps(y0, sy, c->h, &k0, &k1);
    for (int k = k0; k <= k1; k++)
        put(c, x0 + sx * k, y0 + sy * k, col);
}

/* Wu's line on integer endpoints, as gfxdraw's aalines: the first endpoint at
 * full colour, the pixel pair of each step weighted by the top 8 bits of a
 * 32-bit error accumulator; the last endpoint only if asked. Endpoints must
 * be less than 2^16 apart (polygon() clips them so). */
static void aaline_int(const canvas *c, int x1, int y1, int x2, int y2, rgb col, int endpoint)
{
    int xx0 = x1, yy0 = y1, xx1 = x2, yy1 = y2;
    if (yy0 > yy1) {
        int t = yy0;
        yy0 = yy1;
        yy1 = t;
        t = xx0;
        xx0 = xx1;
        xx1 = t;
    }
    int dx = xx1 - xx0, dy = yy1 - yy0, xdir = 1;
    if (dx < 0) {
        xdir = -1;
        dx = -dx;
    }
    if (dx == 0) {
        vline(c, x1, y1, y2, col);
        return;
    }
    if (dy == 0) {
        hline(c, x1, x2, y1, col);
        return;
    }
    if (dx == dy) {
        diag_line(c, x1, y1, x2, y2, col);
        return;
    }
    put(c, x1, y1, col);
    /* After k steps the accumulator has been advanced by erradj k times: it
     * holds k * erradj mod 2^32 and the minor coordinate has moved once per
     * wrap, floor(k * erradj / 2^32) times. So the steps whose pixels are off
     * the canvas are skipped instead of walked. */
    if (dy > dx) {
        const uint64_t erradj = (((uint64_t)dx << 16) / (uint64_t)dy) << 16;
        int k0 = 1, k1 = dy - 1;
        clip_steps(yy0, 1, c->h, &k0, &k1);
        for (int k = k0; k <= k1; k++) {
            const uint64_t acc = (uint64_t)k * erradj;
            const int x = xx0 + xdir * (int)(acc >> 32), wgt = (int)((acc >> 24) & 255);
            blend(c, x, yy0 + k, col, (255 * (255 - wgt)) >> 8);
            blend(c, x + xdir, yy0 + k, col, (255 * wgt) >> 8);
        }
    } else {
        const uint64_t erradj = (((uint64_t)dy << 16) / (uint64_t)dx) << 16;
        int k0 = 1, k1 = dx - 1;
        clip_steps(xx0, xdir, c->w, &k0, &k1);
        for (int k = k0; k <= k1; k++) {
            const uint64_t acc = (uint64_t)k * erradj;
            const int y = yy0 + (int)(acc >> 32), wgt = (int)((acc >> 24) & 255);
            blend(c, xx0 + xdir * k, y, col, (255 * (255 - wgt)) >> 8);
            blend(c, xx0 + xdir * k, y + 1, col, (255 * wgt) >> 8);
        }
    }
    if (endpoint)
        put(c, x2, y2, col);
}

/* Wu's line on float endpoints (pixel centres at integer coordinates), drawn
 * over [start, end) along its major axis, or [start, end] if last; only the
 * steps on the canvas are visited. */
static void aaline_f(const canvas *c, double x0, double y0, double x1, double y1, rgb col,
                     int last)
{
    if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1))
        return;
    x0 = bound_coord(x0);
    y0 = bound_coord(y0);
    x1 = bound_coord(x1);
    y1 = bound_coord(y1);
    double dx = x1 - x0, dy = y1 - y0;
    if (fabs(dx) < 1e-4 && fabs(dy) < 1e-4) {
        const double px = floor(x0 + 0.5), py = floor(y0 + 0.5);
        if (px >= 0 && px < c->w && py >= 0 && py < c->h)
            blend_f(c, (int)px, (int)py, col, 1.0f);
        return;
    }
    int steep = fabs(dy) > fabs(dx);
    if (steep) {
        double t = x0;
        x0 = y0;
        y0 = t;
        t = x1;
        x1 = y1;
        y1 = t;
    }
    const int major = steep ? c->h : c->w, minor = steep ? c->w : c->h;
    int backwards = x0 > x1;
    double slope = (y1 - y0) / (x1 - x0);
    double lo = backwards ? x1 : x0, hi = backwards ? x0 : x1;
    double i0 = ceil(lo), i1 = floor(hi);
    /* half-open at the segment's end point so joined segments do not overlap */
    if (!last) {
        if (backwards && i0 == lo)
            i0++;
        else if (!backwards && i1 == hi)
            i1--;
    }
    if (i0 < 0)
        i0 = 0;
    if (i1 > major - 1)
        i1 = major - 1;
    if (!(i0 <= i1))
        return;
    for (int i = (int)i0; i <= (int)i1; i++) {
        double yf = y0 + slope * (i - x0);
        if (!(yf >= -1.0 && yf < minor)) /* neither pixel of the pair is on the canvas */
            continue;
        double fy = floor(yf);
        int iy = (int)fy;
        float frac = (float)(yf - fy);
        if (steep) {
            blend_f(c, iy, i, col, 1.0f - frac);
            blend_f(c, iy + 1, i, col, frac);
        } else {
            blend_f(c, i, iy, col, 1.0f - frac);
            blend_f(c, i, iy + 1, col, frac);
        }
    }
}

/* ------------------------------------------------------------ shapes */

/* gfxdraw.filled_polygon: for each row, the crossings of edges with
 * y1 <= y < y2 (and y == y2 on the bottom row), in 16.16 fixed point, filled
 * between pairs with spans rounded inwards. Vertices must be less than 2^16
 * apart (polygon() clips them so); only the canvas's rows are visited. */
static void fill_polygon(const canvas *c, const int *vx, const int *vy, int n, rgb col)
{
    if (n < 3 || n > POLY_MAX)
        return;
    int miny = vy[0], maxy = vy[0];
    for (int i = 1; i < n; i++) {
        if (vy[i] < miny)
            miny = vy[i];
        if (vy[i] > maxy)
            maxy = vy[i];
    }
    int ylo = miny < 0 ? 0 : miny;
    int yhi = maxy >= c->h ? c->h - 1 : maxy;
    int64_t ints[POLY_MAX];
    for (int y = ylo; y <= yhi; y++) {
        int m = 0;
        for (int i = 0; i < n; i++) {
            int i1 = i == 0 ? n - 1 : i - 1, i2 = i;
            int y1 = vy[i1], y2 = vy[i2], x1, x2;
            if (y1 < y2) {
                x1 = vx[i1];
                x2 = vx[i2];
            } else if (y1 > y2) {
                y2 = vy[i1];
                y1 = vy[i2];
                x2 = vx[i1];
                x1 = vx[i2];
            } else {
                continue;
            }
            if ((y >= y1 && y < y2) || (y == maxy && y > y1 && y <= y2)) {
                int64_t v = ((int64_t)65536 * (y - y1)) / (y2 - y1) * (x2 - x1)
                            + (int64_t)65536 * x1;
                int k = m++;
                while (k > 0 && ints[k - 1] > v) {
                    ints[k] = ints[k - 1];
                    k--;
                }
                ints[k] = v;
            }
        }
        for (int i = 0; i + 1 < m; i += 2) {
            int64_t a = ints[i] + 1, b = ints[i + 1] - 1;
            int xa = (int)((a >> 16) + ((a & 32768) >> 15));
            int xb = (int)((b >> 16) + ((b & 32768) >> 15));
            hline(c, xa, xb, y, col);
        }
    }
}

/* gfxdraw.aapolygon: closed loop of integer Wu lines without endpoints. */
static void aa_polygon(const canvas *c, const int *vx, const int *vy, int n, rgb col)
{
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        aaline_int(c, vx[i], vy[i], vx[j], vy[j], col, 0);
    }
}

/* One Sutherland-Hodgman pass: the part of polygon (u, v) with u >= bound
 * (u <= bound if upper), into (ou, ov); returns its vertex count. A vertex
 * on the clip line is interpolated from the edge's inside end, so a far-away
 * outside end costs no precision. Keeps the input as it is when all of it is
 * inside. */
static int clip_side(const double *u, const double *v, int n, double *ou, double *ov,
                     double bound, int upper)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        const int p = i == 0 ? n - 1 : i - 1;
        const int in_p = upper ? u[p] <= bound : u[p] >= bound;
        const int in_i = upper ? u[i] <= bound : u[i] >= bound;
        if (in_i != in_p && m < POLY_MAX) {
            const int a = in_i ? i : p, b = in_i ? p : i; /* a inside, b outside */
            const double t = (bound - u[a]) / (u[b] - u[a]);
            ou[m] = bound;
            ov[m] = v[a] + t * (v[b] - v[a]);
            m++;
        }
        if (in_i && m < POLY_MAX) {
            ou[m] = u[i];
            ov[m] = v[i];
            m++;
        }
    }
    return m;
}

/* What every classic-control scene does for a shape: aapolygon then
 * filled_polygon of the same float points (at most 4), truncated to ints as
 * pygame does, after clipping to the canvas grown by CLIP_MARGIN. */
static void polygon(const canvas *c, const double *px, const double *py, int n, rgb col)
{
    double ax[POLY_MAX], ay[POLY_MAX], bx[POLY_MAX], by[POLY_MAX];
    if (n > 4)
        return;
    for (int i = 0; i < n; i++) {
        if (!isfinite(px[i]) || !isfinite(py[i]))
            return;
        ax[i] = bound_coord(px[i]);
        ay[i] = bound_coord(py[i]);
    }
    n = clip_side(ax, ay, n, bx, by, -CLIP_MARGIN, 0);
    n = clip_side(bx, by, n, ax, ay, c->w + CLIP_MARGIN, 1);
    n = clip_side(ay, ax, n, by, bx, -CLIP_MARGIN, 0);
    n = clip_side(by, bx, n, ay, ax, c->h + CLIP_MARGIN, 1);
    if (n == 0)
        return;
    int vx[POLY_MAX], vy[POLY_MAX];
    for (int i = 0; i < n; i++) {
        vx[i] = (int)ax[i];
        vy[i] = (int)ay[i];
    }
    if (c->aa)
        aa_polygon(c, vx, vy, n, col);
    fill_polygon(c, vx, vy, n, col);
}

/* floor(sqrt(v)), 0 for v <= 0; v < 2^62. */
static int64_t isqrt64(int64_t v)
{
    if (v <= 0)
        return 0;
    int64_t s = (int64_t)sqrt((double)v);
    while (s > 0 && s * s > v)
        s--;
    while ((s + 1) * (s + 1) <= v)
        s++;
    return s;
}

/* The midpoint circle's y at x in its first octant: the largest y with
 * x^2 + y^2 - y < r^2 (its decision variable, solved). */
static int64_t midpoint_y(int64_t r, int64_t x)
{
    return (isqrt64(4 * (r * r - x * x)) + 1) / 2;
}

/* gfxdraw.filled_circle: SDL_gfx walks the midpoint circle's first octant
 * (x = 0, 1, ... while x <= y) and at each step draws rows +-x with half
 * width y (unless x == y) and, when y has just changed, rows +-y with half
 * width x. Solved per row instead of walked, so only the canvas's rows are
 * visited: row offset d gets half width midpoint_y(d) from the first kind
 * (d <= the walk's last x) and the first x at which y reaches d from the
 * second (d >= the walk's last y), the wider of the two. (Checked against
 * the walk for every r up to 30000 and sampled r up to 8e6.) r < 2^29. */
static void fill_circle(const canvas *c, int x, int y, int r, rgb col)
{
    if (r < 0)
        return;
    if (r == 0) {
        put(c, x, y, col);
        return;
    }
    const int64_t rr = r;
    int64_t last = (int64_t)(r / sqrt(2.0));
    while (last > 0 && last > midpoint_y(rr, last))
        last--;
    while (last + 1 <= midpoint_y(rr, last + 1))
        last++;
    const int64_t y_last = midpoint_y(rr, last);
    const int row0 = y - r < 0 ? 0 : y - r, row1 = y + r >= c->h ? c->h - 1 : y + r;
    for (int row = row0; row <= row1; row++) {
        const int64_t d = row < y ? (int64_t)y - row : (int64_t)row - y;
        int64_t hw = -1;
        if (d <= last) {
            const int64_t my = midpoint_y(rr, d);
            if (my != d)
                hw = my;
        }
        if (d >= y_last) {
            const int64_t k = rr * rr - d * d - d;
            int64_t first_x = isqrt64(k);
            if (first_x * first_x < k)
                first_x++;
            if (first_x > hw)
                hw = first_x;
        }
        if (hw >= 0)
            hline(c, (int)(x - hw), (int)(x + hw), row, col);
    }
}

/* The first step >= i in any of the n ranges [lo[k], hi[k]]; -1 if none. */
static int next_step(const int *lo, const int *hi, int n, int i)
{
    int best = -1;
    for (int k = 0; k < n; k++) {
        const int s = lo[k] > i ? lo[k] : i;
        if (s <= hi[k] && (best < 0 || s < best))
            best = s;
    }
    return best;
}

/* Stands in for gfxdraw.aacircle (SDL_gfx's Wu ellipse): in each octant, for
 * each step along the major axis, the two pixels around the exact circle,
 * weighted by the fractional part. Only the steps i that can put a pixel on
 * the canvas (x +- i or y +- i on it) are visited, in order. r < 2^29. */
static void aa_circle(const canvas *c, int x, int y, int r, rgb col)
{
    if (r <= 0)
        return;
    const int lo[4] = {-x, x - (c->w - 1), -y, y - (c->h - 1)};
    const int hi[4] = {c->w - 1 - x, x, c->h - 1 - y, y};
    for (int i = next_step(lo, hi, 4, 0); i >= 0; i = next_step(lo, hi, 4, i + 1)) {
        double e = sqrt((double)r * r - (double)i * i);
        if (!(i <= e)) /* past the octant (NaN past the radius) */
            break;
        int j = (int)floor(e);
        int a_in = (int)((1.0 - (e - j)) * 255.0), a_out = 255 - a_in;
        const int sx[4] = {1, -1, 1, -1}, sy[4] = {1, 1, -1, -1};
        for (int q = 0; q < 4; q++) {
            if ((i == 0 && sx[q] < 0))
                continue;
            blend(c, x + sx[q] * i, y + sy[q] * j, col, a_in);
            blend(c, x + sx[q] * i, y + sy[q] * (j + 1), col, a_out);
            if (i == j && j + 1 > e)
                continue; /* the diagonal pixel is its own mirror */
            blend(c, x + sy[q] * j, y + sx[q] * i, col, a_in);
            blend(c, x + sy[q] * (j + 1), y + sx[q] * i, col, a_out);
        }
    }
}

/* A circle too big for the integer algorithms: the pixels within r of the
 * centre, row by row over the canvas, without an anti-aliased rim. */
static void fill_disc(const canvas *c, double x, double y, double r, rgb col)
{
    for (int row = 0; row < c->h; row++) {
        const double d = fabs(row - y);
        if (!(d <= r))
            continue;
        const double hw = floor(sqrt(r - d) * sqrt(r + d));
        hline(c, clamp_trunc(x - hw, -1, c->w), clamp_trunc(x + hw, -1, c->w), row, col);
    }
}

/* What every scene does for a circle: aacircle then filled_circle at
 * (int(x), int(y)) with radius int(r). */
static void circle(const canvas *c, double x, double y, double r, rgb col)
{
    if (!isfinite(x) || !isfinite(y) || !isfinite(r))
        return;
    x = trunc(bound_coord(x));
    y = trunc(bound_coord(y));
    r = trunc(bound_coord(r));
    if (r < 0)
        return;
    if (fabs(x) <= CIRCLE_INT_MAX && fabs(y) <= CIRCLE_INT_MAX && r <= CIRCLE_INT_MAX) {
        if (c->aa)
            aa_circle(c, (int)x, (int)y, (int)r, col);
        fill_circle(c, (int)x, (int)y, (int)r, col);
        return;
    }
    fill_disc(c, x, y, r, col);
}

/* The icon at size s x s, mirrored if flip_x, alpha-blitted (top-left at left, top). */
static void blit_icon(const canvas *c, const ccgym_render_icon *icon, int size, int flip_x,
                      int left, int top)
{
    if (size <= 0)
        return;
    if (size > icon->max_size)
        size = icon->max_size;
    const uint8_t *img = icon->rgba + icon->offset[size];
    int i0 = 0, i1 = size - 1, j0 = 0, j1 = size - 1; /* the part on the canvas */
    clip_steps(left, 1, c->w, &i0, &i1);
    clip_steps(top, 1, c->h, &j0, &j1);
    for (int j = j0; j <= j1; j++) {
        const uint8_t *row = img + (size_t)(size - 1 - j) * (size_t)size * 4; /* vertical flip */
        for (int i = i0; i <= i1; i++) {
            const uint8_t *q = row + (size_t)(flip_x ? size - 1 - i : i) * 4;
            const rgb col = {q[0], q[1], q[2]};
            blend(c, left + i, top + j, col, q[3]);
        }
    }
}

/* ------------------------------------------------------------ driver */

int ccgym_render_canvas_size(const ccgym_env_def *def, int *width, int *height)
{
    if (def == NULL || def->paint == NULL || def->canvas_width < 1 || def->canvas_height < 1)
        return -1;
    *width = def->canvas_width;
    *height = def->canvas_height;
    return 0;
}

/* The primitives a def's paint function gets (ccgym_draw, ccgym/env.h). */
static rgb to_rgb(ccgym_rgb col)
{
    const rgb out = {col.r, col.g, col.b};
    return out;
}

static void api_polygon(void *c, const double *x, const double *y, int n, ccgym_rgb col)
{
    if (n >= 3 && n <= 4)
        polygon((const canvas *)c, x, y, n, to_rgb(col));
}

static void api_circle(void *c, double x, double y, double r, ccgym_rgb col)
{
    circle((const canvas *)c, x, y, r, to_rgb(col));
}

static void api_line(void *c, double x0, double y0, double x1, double y1, ccgym_rgb col)
{
    aaline_f((const canvas *)c, x0, y0, x1, y1, to_rgb(col), 1);
}

static void api_hline(void *c, int x1, int x2, int y, ccgym_rgb col)
{
    hline((const canvas *)c, x1, x2, y, to_rgb(col));
}

static void api_hline_f(void *c, double x1, double x2, double y, ccgym_rgb col)
{
    hline_f((const canvas *)c, x1, x2, y, to_rgb(col));
}

static void api_vline_f(void *c, double x, double y1, double y2, ccgym_rgb col)
{
    vline_f((const canvas *)c, x, y1, y2, to_rgb(col));
}

/* pygame's aalines: each segment half-open at its end but the last. */
static void api_aalines(void *c, const double *x, const double *y, int n, ccgym_rgb col)
{
    for (int i = 1; i < n; i++)
        aaline_f((const canvas *)c, x[i - 1], y[i - 1], x[i], y[i], to_rgb(col), i == n - 1);
}

static void api_icon(void *c, int size, int flip_x, int left, int top)
{
    const canvas *cv = (const canvas *)c;
    if (cv->icon != NULL)
        blit_icon(cv, cv->icon, size, flip_x, left, top);
}

static void draw_scene(const ccgym_render_job *job, const canvas *c, size_t instance)
{
    const ccgym_env_def *def = job->def;
    const char *states = (const char *)job->states;
    const void *st = states + instance * def->state_size;
    const void *params = (const char *)job->params + instance * job->params_stride;
    if (c->dirty == NULL) /* else the canvas is kept white between frames */
        memset(c->pix, 255, (size_t)c->w * (size_t)c->h * 3);
    const ccgym_draw api = {(void *)c, c->w, c->h, api_polygon, api_circle, api_line,
                            api_hline, api_hline_f, api_vline_f, api_aalines, api_icon};
    def->paint(&api, st, params);
}

/* Area-averaging weights of one axis: output i covers source [i*n/m, (i+1)*n/m). */
typedef struct axis_map {
    int *start, *count; /* per output */
    float *weight;      /* count[i] weights for output i, from weight + first[i] */
    int *first;
} axis_map;

static int axis_map_init(axis_map *a, int n_src, int n_dst)
{
    const int per = n_src / n_dst + 2;
    a->start = malloc(sizeof(int) * (size_t)n_dst * 3);
    a->weight = malloc(sizeof(float) * (size_t)n_dst * (size_t)per);
    if (a->start == NULL || a->weight == NULL) {
        free(a->start);
        free(a->weight);
        return -1;
    }
    a->count = a->start + n_dst;
    a->first = a->start + 2 * n_dst;
    const double ratio = (double)n_src / n_dst;
    int w = 0;
    for (int i = 0; i < n_dst; i++) {
        double lo = i * ratio, hi = (i + 1) * ratio;
        int s = (int)floor(lo), e = (int)ceil(hi);
        if (e > n_src)
            e = n_src;
        a->start[i] = s;
        a->first[i] = w;
        a->count[i] = 0;
        for (int k = s; k < e && a->count[i] < per; k++) {
            double l = k > lo ? k : lo, h = k + 1 < hi ? k + 1 : hi;
            a->weight[w++] = (float)((h - l) / ratio);
            a->count[i]++;
        }
    }
    return 0;
}

static void axis_map_free(axis_map *a)
{
    free(a->start);
    free(a->weight);
}

typedef struct render_ctx {
    const ccgym_render_job *job;
    int W, H;
    int resize;
    axis_map mx, my;
    int failed;
} render_ctx;

/* Area-average the RGB canvas to out_h x out_w x channels. */
static void downsample(const render_ctx *ctx, const uint8_t *src, const uint8_t *dirty,
                       float *tmp, uint8_t *dst)
{
    const ccgym_render_job *job = ctx->job;
    const int W = ctx->W, H = ctx->H, w = job->out_w, h = job->out_h;
    for (int y = 0; y < H; y++) {
        const uint8_t *row = src + (size_t)y * W * 3;
        float *t = tmp + (size_t)y * w * 3;
        if (!dirty[y]) { /* an untouched row is white: weights sum to 1 */
            for (int i = 0; i < 3 * w; i++)
                t[i] = 255.0f;
            continue;
        }
        for (int i = 0; i < w; i++) {
            const uint8_t *q = row + (size_t)ctx->mx.start[i] * 3;
            const float *wt = ctx->mx.weight + ctx->mx.first[i];
            float r = 0, g = 0, b = 0;
            for (int k = 0; k < ctx->mx.count[i]; k++, q += 3) {
                r += wt[k] * q[0];
                g += wt[k] * q[1];
                b += wt[k] * q[2];
            }
            t[3 * i] = r;
            t[3 * i + 1] = g;
            t[3 * i + 2] = b;
        }
    }
    for (int j = 0; j < h; j++) {
        const float *wt = ctx->my.weight + ctx->my.first[j];
        uint8_t *o = dst + (size_t)j * w * job->channels;
        for (int i = 0; i < w; i++) {
            float r = 0, g = 0, b = 0;
            const float *t = tmp + ((size_t)ctx->my.start[j] * w + i) * 3;
            for (int k = 0; k < ctx->my.count[j]; k++, t += (size_t)w * 3) {
                r += wt[k] * t[0];
                g += wt[k] * t[1];
                b += wt[k] * t[2];
            }
            if (job->channels == 1) {
                float v = 0.2125f * r + 0.7154f * g + 0.0721f * b;
                o[i] = (uint8_t)(v > 255.0f ? 255 : v + 0.5f);
            } else {
                o[3 * i] = (uint8_t)(r > 255.0f ? 255 : r + 0.5f);
                o[3 * i + 1] = (uint8_t)(g > 255.0f ? 255 : g + 0.5f);
                o[3 * i + 2] = (uint8_t)(b > 255.0f ? 255 : b + 0.5f);
            }
        }
    }
}

static void render_range(void *arg, size_t begin, size_t end)
{
    render_ctx *ctx = (render_ctx *)arg;
    const ccgym_render_job *job = ctx->job;
    const size_t frame = (size_t)job->out_h * job->out_w * job->channels;
    uint8_t *scratch = NULL, *dirty = NULL;
    float *tmp = NULL;
    if (ctx->resize) {
        scratch = malloc((size_t)ctx->W * ctx->H * 3);
        dirty = calloc((size_t)ctx->H, 1);
        tmp = malloc(sizeof(float) * (size_t)ctx->H * job->out_w * 3);
        if (scratch == NULL || dirty == NULL || tmp == NULL) {
            free(scratch);
            free(dirty);
            free(tmp);
            ctx->failed = 1; /* benign race: every writer stores 1 */
            return;
        }
        memset(scratch, 255, (size_t)ctx->W * ctx->H * 3);
    }
    for (size_t k = begin; k < end; k++) {
        size_t instance = job->indices != NULL ? (size_t)job->indices[k] : k;
        uint8_t *dst = job->out + k * frame;
        canvas c = {ctx->resize ? scratch : dst, ctx->W, ctx->H, job->antialias, dirty, job->icon};
        draw_scene(job, &c, instance);
        if (ctx->resize) {
            downsample(ctx, scratch, dirty, tmp, dst);
            for (int y = 0; y < ctx->H; y++) { /* back to white, row by row */
                if (dirty[y]) {
                    memset(scratch + (size_t)y * ctx->W * 3, 255, (size_t)ctx->W * 3);
                    dirty[y] = 0;
                }
            }
        }
    }
    free(scratch);
    free(dirty);
    free(tmp);
}

int ccgym_render(const ccgym_render_job *job, int n_threads)
{
    render_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.job = job;
    if (ccgym_render_canvas_size(job->def, &ctx.W, &ctx.H) != 0 || job->out_h < 1
        || job->out_w < 1 || (job->channels != 1 && job->channels != 3))
        return -1;
    if (job->count == 0)
        return 0;
    ctx.resize = job->out_h != ctx.H || job->out_w != ctx.W || job->channels != 3;
    if (ctx.resize) {
        if (axis_map_init(&ctx.mx, ctx.W, job->out_w) != 0)
            return -1;
        if (axis_map_init(&ctx.my, ctx.H, job->out_h) != 0) {
            axis_map_free(&ctx.mx);
            return -1;
        }
    }
    ccgym_parallel_for(render_range, &ctx, job->count, n_threads);
    if (ctx.resize) {
        axis_map_free(&ctx.mx);
        axis_map_free(&ctx.my);
    }
    return ctx.failed ? -1 : 0;
}
