/* A small software rasteriser that reproduces what pygame's gfxdraw/draw
 * calls put on the canvas (same rules, colours and final vertical flip), for
 * a batch of instances in one call: each env's def paints its frame through
 * these primitives (ccgym_draw; the stock envs port Gymnasium's render()
 * methods in src/<env>.c).
 * Keep in sync with python/ccgym/_render.pyx. */
#ifndef CCGYM_RENDER_H_
#define CCGYM_RENDER_H_

#include <stddef.h>
#include <stdint.h>

#include "ccgym/env.h"

/* An icon a def's paint blits (ccgym_draw.icon; Pendulum's torque arrow,
 * gymnasium/envs/classic_control/assets/clockwise.png) pre-scaled to every
 * square size 0..max_size that smoothscale can be asked for: the s x s RGBA
 * image (straight alpha) starts at rgba + offset[s]. */
typedef struct ccgym_render_icon {
    const uint8_t *rgba;
    const size_t *offset; /* max_size + 1 entries */
    int max_size;
} ccgym_render_icon;

typedef struct ccgym_render_job {
    const ccgym_env_def *def;      /* the env (a stock def or a registered plugin's) */
    const void *states;            /* the batch's array of ccgym_<env>_state */
    const void *params;            /* the batch's ccgym_<env>_params: one shared, or one per instance */
    size_t params_stride;          /* 0: all instances share params[0]; else sizeof(params struct) */
    const int64_t *indices;        /* instances to draw (caller checks range); NULL: 0..count-1 */
    size_t count;
    const ccgym_render_icon *icon; /* NULL: ccgym_draw.icon draws nothing */
    int antialias;                 /* 0: skip the anti-aliased outlines pygame draws */
    uint8_t *out;                  /* count x out_h x out_w x channels, C order */
    int out_h, out_w;              /* the canvas size gives full frames; else area-averaged */
    int channels;                  /* 3: RGB; 1: luminance (0.2125, 0.7154, 0.0721) */
} ccgym_render_job;

/* The env def's canvas size (Gymnasium's screen); -1 for a NULL def or one
 * without a renderer (no paint). */
int ccgym_render_canvas_size(const ccgym_env_def *def, int *width, int *height);

/* Draws job->count frames, split over up to n_threads threads. Returns 0, or
 * -1 if scratch memory (only needed for resized or grayscale output) could
 * not be allocated or the job is malformed. */
int ccgym_render(const ccgym_render_job *job, int n_threads);

#endif /* CCGYM_RENDER_H_ */
