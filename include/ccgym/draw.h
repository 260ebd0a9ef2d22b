/* Geometry that Gymnasium's classic-control render() methods build with
 * pygame before drawing, over the primitives of ccgym_draw (ccgym/env.h):
 * what a def's paint function (the stock envs' in src/<env>.c, or a
 * plugin's) uses to place its shapes as pygame does. Part of the C API. */
#ifndef CCGYM_DRAW_H_
#define CCGYM_DRAW_H_

#include <math.h>

#include "ccgym/env.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* pygame.math.Vector2((x, y)).rotate_rad(angle): the angle reduced to
 * [0, 2pi), exact quarter turns within 1e-6 of one, else the rotation by its
 * sin and cos. */
static inline void ccgym_draw_rotate(double x, double y, double angle, double *ox, double *oy)
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

/* The rectangle (l, b), (l, t), (r, t), (r, b) rotated by angle, then
 * shifted: Gymnasium's rotated rods, poles and cars, drawn as one polygon. */
static inline void ccgym_draw_rect(const ccgym_draw *d, double l, double r, double t, double b,
                                   double angle, double shift_x, double shift_y, ccgym_rgb col)
{
    const double cx[4] = {l, l, r, r}, cy[4] = {b, t, t, b};
    double px[4], py[4];
    for (int i = 0; i < 4; i++) {
        ccgym_draw_rotate(cx[i], cy[i], angle, &px[i], &py[i]);
        px[i] += shift_x;
        py[i] += shift_y;
    }
    d->polygon(d->canvas, px, py, 4, col);
}

#endif /* CCGYM_DRAW_H_ */
