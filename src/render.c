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
 *   draw.line, hline, vline one-pixel integer lines;
 *   Vector2.rotate_rad      angle reduced to [0, 2pi), exact quarter turns.
 * pygame turns float coordinates into ints by truncation towards zero.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccgym/acrobot.h"
#include "ccgym/cartpole.h"
#include "ccgym/continuous_mountain_car.h"
#include "ccgym/driver.h"
#include "ccgym/mountain_car.h"
#include "ccgym/pendulum.h"
#include "ccgym/render.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct rgb {
    uint8_t r, g, b;
} rgb;

static const rgb BLACK = {0, 0, 0};

typedef struct canvas {
    uint8_t *pix; /* h rows of w RGB pixels, stored bottom row first (the flip) */
    int w, h;
    int aa;
    uint8_t *dirty; /* NULL, or per stored row: 1 once anything is drawn in it */
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

/* Python's int(v) for a coordinate, bounded so fixed-point sums cannot overflow. */
static inline int trunc_coord(double v)
{
    if (!(v > -30000.0))
        return -30000; /* also NaN: off the canvas */
    if (v > 30000.0)
        return 30000;
    return (int)v;
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

/* Bresenham, both endpoints included (pygame.draw.line, width 1). */
static void line(const canvas *c, int x0, int y0, int x1, int y1, rgb col)
{
    if (y0 == y1) {
        hline(c, x0, x1, y0, col);
        return;
    }
    if (x0 == x1) {
        vline(c, x0, y0, y1, col);
        return;
    }
    int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    int dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) {
        put(c, x0, y0, col);
        if (x0 == x1 && y0 == y1)
            break;
        int e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            x0 += sx;
        }
        if (e2 <= dx) {
            err += dx;
            y0 += sy;
        }
    }
}

/* Wu's line on integer endpoints, as gfxdraw's aalines: the first endpoint at
 * full colour, the pixel pair of each step weighted by the top 8 bits of a
 * 32-bit error accumulator; the last endpoint only if asked. */
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
        line(c, x1, y1, x2, y2, col);
        return;
    }
    uint32_t erracc = 0, erradj, tmp;
    put(c, x1, y1, col);
    if (dy > dx) {
        erradj = (uint32_t)((((uint32_t)dx << 16) / (uint32_t)dy) << 16);
        int x0pxdir = xx0 + xdir;
        while (--dy) {
            tmp = erracc;
            erracc += erradj;
            if (erracc <= tmp) {
                xx0 = x0pxdir;
                x0pxdir += xdir;
            }
            yy0++;
            int wgt = (int)(erracc >> 24);
            blend(c, xx0, yy0, col, (255 * (255 - wgt)) >> 8);
            blend(c, x0pxdir, yy0, col, (255 * wgt) >> 8);
        }
    } else {
        erradj = (uint32_t)((((uint32_t)dy << 16) / (uint32_t)dx) << 16);
        int y0p1 = yy0 + 1;
        while (--dx) {
            tmp = erracc;
            erracc += erradj;
            if (erracc <= tmp) {
                yy0 = y0p1;
                y0p1++;
            }
            xx0 += xdir;
            int wgt = (int)(erracc >> 24);
            blend(c, xx0, yy0, col, (255 * (255 - wgt)) >> 8);
            blend(c, xx0, y0p1, col, (255 * wgt) >> 8);
        }
    }
    if (endpoint)
        put(c, x2, y2, col);
}

/* Wu's line on float endpoints (pixel centres at integer coordinates), drawn
 * over [start, end) along its major axis, or [start, end] if last. */
static void aaline_f(const canvas *c, double x0, double y0, double x1, double y1, rgb col,
                     int last)
{
    double dx = x1 - x0, dy = y1 - y0;
    if (fabs(dx) < 1e-4 && fabs(dy) < 1e-4) {
        blend_f(c, (int)floor(x0 + 0.5), (int)floor(y0 + 0.5), col, 1.0f);
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
    int backwards = x0 > x1;
    double slope = (y1 - y0) / (x1 - x0);
    double lo = backwards ? x1 : x0, hi = backwards ? x0 : x1;
    int i0 = (int)ceil(lo), i1 = (int)floor(hi);
    /* half-open at the segment's end point so joined segments do not overlap */
    if (!last) {
        if (backwards && i0 == lo)
            i0++;
        else if (!backwards && i1 == hi)
            i1--;
    }
    if (i0 < -1)
        i0 = -1;
    if (i1 > 30000)
        i1 = 30000;
    for (int i = i0; i <= i1; i++) {
        double yf = y0 + slope * (i - x0);
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
 * between pairs with spans rounded inwards. */
static void fill_polygon(const canvas *c, const int *vx, const int *vy, int n, rgb col)
{
    if (n < 3)
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
    int64_t ints[8];
    if (n > 8)
        return;
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

/* What every classic-control scene does for a shape: aapolygon then
 * filled_polygon of the same float points. */
static void polygon(const canvas *c, const double *px, const double *py, int n, rgb col)
{
    int vx[8], vy[8];
    for (int i = 0; i < n; i++) {
        vx[i] = trunc_coord(px[i]);
        vy[i] = trunc_coord(py[i]);
    }
    if (c->aa)
        aa_polygon(c, vx, vy, n, col);
    fill_polygon(c, vx, vy, n, col);
}

/* gfxdraw.filled_circle: the midpoint circle, as horizontal spans. */
static void fill_circle(const canvas *c, int x, int y, int r, rgb col)
{
    if (r < 0)
        return;
    if (r == 0) {
        put(c, x, y, col);
        return;
    }
    int cx = 0, cy = r, ocx = -1, ocy = -1;
    int df = 1 - r, d_e = 3, d_se = -2 * r + 5;
    do {
        if (ocy != cy) {
            if (cy > 0) {
                hline(c, x - cx, x + cx, y + cy, col);
                hline(c, x - cx, x + cx, y - cy, col);
            } else {
                hline(c, x - cx, x + cx, y, col);
            }
            ocy = cy;
        }
        if (ocx != cx) {
            if (cx != cy) {
                if (cx > 0) {
                    hline(c, x - cy, x + cy, y - cx, col);
                    hline(c, x - cy, x + cy, y + cx, col);
                } else {
                    hline(c, x - cy, x + cy, y, col);
                }
            }
            ocx = cx;
        }
        if (df < 0) {
            df += d_e;
            d_e += 2;
            d_se += 2;
        } else {
            df += d_se;
            d_e += 2;
            d_se += 4;
            cy--;
        }
        cx++;
    } while (cx <= cy);
}

/* Stands in for gfxdraw.aacircle (SDL_gfx's Wu ellipse): in each octant, for
 * each step along the major axis, the two pixels around the exact circle,
 * weighted by the fractional part. */
static void aa_circle(const canvas *c, int x, int y, int r, rgb col)
{
    if (r <= 0)
        return;
    for (int i = 0;; i++) {
        double e = sqrt((double)r * r - (double)i * i);
        if (i > e)
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

static void circle(const canvas *c, int x, int y, int r, rgb col)
{
    if (c->aa)
        aa_circle(c, x, y, r, col);
    fill_circle(c, x, y, r, col);
}

/* pygame.math.Vector2((x, y)).rotate_rad(angle). */
static void rotate(double x, double y, double angle, double *ox, double *oy)
{
    const double eps = 1e-6, two_pi = 2.0 * M_PI, half_pi = M_PI / 2.0;
    angle = fmod(angle, two_pi);
    if (angle < 0)
        angle += two_pi;
    if (fmod(angle + eps, half_pi) < 2 * eps) {
        switch ((int)((angle + eps) / half_pi)) {
        case 1:
            *ox = -y;
            *oy = x;
            return;
        case 2:
            *ox = -x;
            *oy = -y;
            return;
        case 3:
            *ox = y;
            *oy = -x;
            return;
        default:
            *ox = x;
            *oy = y;
            return;
        }
    }
    double s = sin(angle), co = cos(angle);
    *ox = co * x - s * y;
    *oy = s * x + co * y;
}

/* Rectangle corners (l, b), (l, t), (r, t), (r, b) rotated by angle, then shifted. */
static void rect_polygon(const canvas *c, double l, double r, double t, double b, double angle,
                         double shift_x, double shift_y, rgb col)
{
    const double cx[4] = {l, l, r, r}, cy[4] = {b, t, t, b};
    double px[4], py[4];
    for (int i = 0; i < 4; i++) {
        rotate(cx[i], cy[i], angle, &px[i], &py[i]);
        px[i] += shift_x;
        py[i] += shift_y;
    }
    polygon(c, px, py, 4, col);
}

/* ------------------------------------------------------------ scenes */

static void draw_cartpole(const canvas *c, const ccgym_cartpole_state *s,
                          const ccgym_cartpole_params *p)
{
    const double world_width = p->x_threshold * 2;
    const double scale = c->w / world_width;
    const double polewidth = 10.0, polelen = scale * (2 * p->length);
    const double cartwidth = 50.0, cartheight = 30.0;
    const double axleoffset = cartheight / 4.0;
    const double cartx = s->x * scale + c->w / 2.0;
    const double carty = 100;
    const double cart_x[4] = {cartx - cartwidth / 2, cartx - cartwidth / 2,
                              cartx + cartwidth / 2, cartx + cartwidth / 2};
    const double cart_y[4] = {carty - cartheight / 2, carty + cartheight / 2,
                              carty + cartheight / 2, carty - cartheight / 2};
    polygon(c, cart_x, cart_y, 4, BLACK);
    const rgb pole = {202, 152, 101};
    rect_polygon(c, -polewidth / 2, polewidth / 2, polelen - polewidth / 2, -polewidth / 2,
                 -s->theta, cartx, carty + axleoffset, pole);
    const rgb axle = {129, 132, 203};
    circle(c, trunc_coord(cartx), trunc_coord(carty + axleoffset), (int)(polewidth / 2), axle);
    hline(c, 0, c->w, (int)carty, BLACK);
}

static double mc_height(double xs)
{
    return sin(3 * xs) * .45 + .55;
}

static void draw_mountain_car(const canvas *c, double pos, double min_position,
                              double max_position, double goal_position)
{
    const double world_width = max_position - min_position;
    const double scale = c->w / world_width;
    const double carwidth = 40, carheight = 20, clearance = 10;

    /* np.linspace(min_position, max_position, 100): start + i * step, exact stop */
    const int npts = 100;
    const double step = (max_position - min_position) / (npts - 1);
    double px = 0, py = 0;
    for (int i = 0; i < npts; i++) {
        double xs = i == npts - 1 ? max_position : min_position + i * step;
        double x = (xs - min_position) * scale, y = mc_height(xs) * scale;
        if (i > 0)
            aaline_f(c, px, py, x, y, BLACK, i == npts - 1);
        px = x;
        py = y;
    }

    const double angle = cos(3 * pos);
    const double base_x = (pos - min_position) * scale;
    const double base_y = clearance + mc_height(pos) * scale;
    rect_polygon(c, -carwidth / 2, carwidth / 2, carheight, 0, angle, base_x, base_y, BLACK);

    const rgb wheel = {128, 128, 128};
    const double wheel_x[2] = {carwidth / 4, -carwidth / 4};
    for (int k = 0; k < 2; k++) {
        double wx, wy;
        rotate(wheel_x[k], 0, angle, &wx, &wy);
        circle(c, trunc_coord(wx + base_x), trunc_coord(wy + base_y), (int)(carheight / 2.5),
               wheel);
    }

    const int flagx = trunc_coord((goal_position - min_position) * scale);
    const int flagy1 = trunc_coord(mc_height(goal_position) * scale);
    const int flagy2 = flagy1 + 50;
    vline(c, flagx, flagy1, flagy2, BLACK);
    const rgb flag = {204, 204, 0};
    const int fx[3] = {flagx, flagx, flagx + 25}, fy[3] = {flagy2, flagy2 - 10, flagy2 - 5};
    if (c->aa)
        aa_polygon(c, fx, fy, 3, flag);
    fill_polygon(c, fx, fy, 3, flag);
}

/* The torque icon, s x s, flipped as Gymnasium flips it, alpha-blitted. */
static void blit_icon(const canvas *c, const ccgym_render_icon *icon, int size, int flip_x,
                      int left, int top)
{
    if (size <= 0)
        return;
    if (size > icon->max_size)
        size = icon->max_size;
    const uint8_t *img = icon->rgba + icon->offset[size];
    for (int j = 0; j < size; j++) {
        const uint8_t *row = img + (size_t)(size - 1 - j) * (size_t)size * 4; /* vertical flip */
        for (int i = 0; i < size; i++) {
            const uint8_t *q = row + (size_t)(flip_x ? size - 1 - i : i) * 4;
            const rgb col = {q[0], q[1], q[2]};
            blend(c, left + i, top + j, col, q[3]);
        }
    }
}

static void draw_pendulum(const canvas *c, const ccgym_pendulum_state *s,
                          const ccgym_render_icon *icon)
{
    const double bound = 2.2;
    const double scale = c->w / (bound * 2);
    const int offset = c->w / 2;
    const double rod_length = 1 * scale, rod_width = 0.2 * scale;
    const rgb red = {204, 77, 77};
    const double angle = s->th + M_PI / 2;
    rect_polygon(c, 0, rod_length, rod_width / 2, -rod_width / 2, angle, offset, offset, red);
    circle(c, offset, offset, (int)(rod_width / 2), red);
    double ex, ey;
    rotate(rod_length, 0, angle, &ex, &ey);
    circle(c, trunc_coord(ex + offset), trunc_coord(ey + offset), (int)(rod_width / 2), red);

    /* last_u is a float32 in Gymnasium, so numpy 2 computes the size in float32 */
    if (icon != NULL && !isnan(s->last_u)) {
        float size_f = (float)scale * fabsf((float)s->last_u) / 2.0f;
        int size = size_f < 100000.0f ? (int)size_f : 100000;
        blit_icon(c, icon, size, s->last_u > 0, offset - size / 2, offset - size / 2);
    }
    circle(c, offset, offset, (int)(0.05 * scale), BLACK);
}

static void draw_acrobot(const canvas *c, const ccgym_acrobot_state *st,
                         const ccgym_acrobot_params *p)
{
    const double *s = st->s;
    const double bound = p->link_length_1 + p->link_length_2 + 0.2;
    const double scale = c->w / (bound * 2);
    const double offset = c->w / 2.0;
    const double p1x = -p->link_length_1 * cos(s[0]) * scale;
    const double p1y = p->link_length_1 * sin(s[0]) * scale;
    /* xys = [[0, 0], p1][:, ::-1] */
    const double xs[2] = {0, p1y}, ys[2] = {0, p1x};
    const double thetas[2] = {s[0] - M_PI / 2, s[0] + s[1] - M_PI / 2};
    const double lens[2] = {p->link_length_1 * scale, p->link_length_2 * scale};
    line(c, trunc_coord(-2.2 * scale + offset), trunc_coord(1 * scale + offset),
         trunc_coord(2.2 * scale + offset), trunc_coord(1 * scale + offset), BLACK);
    const rgb link = {0, 204, 204}, joint = {204, 204, 0};
    for (int k = 0; k < 2; k++) {
        double x = xs[k] + offset, y = ys[k] + offset;
        rect_polygon(c, 0, lens[k], 0.1 * scale, -0.1 * scale, thetas[k], x, y, link);
        circle(c, trunc_coord(x), trunc_coord(y), (int)(0.1 * scale), joint);
    }
}

/* ------------------------------------------------------------ driver */

/* Each env's scene: its state and params structs to draw_<env>'s arguments. */
typedef void (*scene_fn)(const canvas *c, const void *st, const void *params,
                         const ccgym_render_icon *icon);

static void scene_cartpole(const canvas *c, const void *st, const void *params,
                           const ccgym_render_icon *icon)
{
    (void)icon;
    draw_cartpole(c, (const ccgym_cartpole_state *)st, (const ccgym_cartpole_params *)params);
}

static void scene_mountain_car(const canvas *c, const void *st, const void *params,
                               const ccgym_render_icon *icon)
{
    (void)icon;
    const ccgym_mountain_car_params *p = (const ccgym_mountain_car_params *)params;
    draw_mountain_car(c, ((const ccgym_mountain_car_state *)st)->position, p->min_position,
                      p->max_position, p->goal_position);
}

static void scene_continuous_mountain_car(const canvas *c, const void *st, const void *params,
                                          const ccgym_render_icon *icon)
{
    (void)icon;
    const ccgym_continuous_mountain_car_params *p =
        (const ccgym_continuous_mountain_car_params *)params;
    draw_mountain_car(c, ((const ccgym_continuous_mountain_car_state *)st)->position,
                      p->min_position, p->max_position, p->goal_position);
}

static void scene_pendulum(const canvas *c, const void *st, const void *params,
                           const ccgym_render_icon *icon)
{
    (void)params;
    draw_pendulum(c, (const ccgym_pendulum_state *)st, icon);
}

static void scene_acrobot(const canvas *c, const void *st, const void *params,
                          const ccgym_render_icon *icon)
{
    (void)icon;
    draw_acrobot(c, (const ccgym_acrobot_state *)st, (const ccgym_acrobot_params *)params);
}

/* The renderer of each env in the registry (ccgym/env.h), found by its def. */
static const struct {
    const ccgym_env_def *def;
    scene_fn draw;
} scenes[] = {
    {&ccgym_cartpole_def, scene_cartpole},
    {&ccgym_mountain_car_def, scene_mountain_car},
    {&ccgym_continuous_mountain_car_def, scene_continuous_mountain_car},
    {&ccgym_pendulum_def, scene_pendulum},
    {&ccgym_acrobot_def, scene_acrobot},
};

static const ccgym_env_def *kind_def(int kind)
{
    return kind >= 0 && kind < ccgym_num_envs ? ccgym_envs[kind] : NULL;
}

static scene_fn kind_scene(int kind)
{
    const ccgym_env_def *def = kind_def(kind);
    for (size_t k = 0; def && k < sizeof scenes / sizeof scenes[0]; k++)
        if (scenes[k].def == def)
            return scenes[k].draw;
    return NULL;
}

int ccgym_render_canvas_size(int kind, int *width, int *height)
{
    const ccgym_env_def *def = kind_def(kind);
    if (def == NULL || kind_scene(kind) == NULL)
        return -1;
    *width = def->canvas_width;
    *height = def->canvas_height;
    return 0;
}

size_t ccgym_render_state_size(int kind)
{
    const ccgym_env_def *def = kind_def(kind);
    return def ? def->state_size : 0;
}

size_t ccgym_render_params_size(int kind)
{
    const ccgym_env_def *def = kind_def(kind);
    return def ? def->params_size : 0;
}

static void draw_scene(const ccgym_render_job *job, const canvas *c, size_t instance)
{
    const char *states = (const char *)job->states;
    const void *st = states + instance * ccgym_render_state_size(job->kind);
    const void *params = (const char *)job->params + instance * job->params_stride;
    if (c->dirty == NULL) /* else the canvas is kept white between frames */
        memset(c->pix, 255, (size_t)c->w * (size_t)c->h * 3);
    const scene_fn draw = kind_scene(job->kind);
    if (draw)
        draw(c, st, params, job->icon);
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
        canvas c = {ctx->resize ? scratch : dst, ctx->W, ctx->H, job->antialias, dirty};
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
    if (ccgym_render_canvas_size(job->kind, &ctx.W, &ctx.H) != 0 || job->out_h < 1
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
