/* cudaoptics — LGPL-2.1-or-later
 *
 * The spherical-mirror camera of cudaomniunwrap (after Chong, Kho and Wong,
 * "A closed form unwrapping method for a spherical omnidirectional view
 * sensor", EURASIP JIVP 2013, and the GPU paper of the same authors), in
 * the meridian plane of a world point: rho is the distance from the
 * optical axis, z the height above the sphere's centre.
 *
 *   mirror:  the sphere rho^2 + z^2 = R^2 (R: mirror-radius)
 *   camera:  a pinhole at (0, h) looking down the axis (h: mirror-distance,
 *            from the sphere's centre to the projection centre, h > R),
 *            focal length f in pixels
 *   image:   rho_i = f rho_m / (h - z_m)                    (paper, Eq. 2)
 *   ground:  the plane z = G beyond the camera (a robot's floor when the
 *            camera looks up at a mirror above it)
 *
 * Backward (image radius to world ray) is closed form: the camera ray
 * meets the sphere, the law of reflection turns it (co_mirror_ray).
 * Forward (world point to mirror point) has no closed form: the mirror
 * point M = (r, z_m), z_m = sqrt(R^2 - r^2), must reflect the ray from the
 * world point W into the camera.  Writing that condition as the cross
 * product of W - M with the reflected camera direction, times -R^2, gives
 *
 *   G(r) = 2 h rho_w r^2 - R^2 (h + z_w) r - R^2 h rho_w
 *          + z_m (R^2 rho_w + 2 h z_w r) = 0,
 *
 * whose root is found by Newton-Raphson (co_mirror_solve).  Squaring away
 * z_m would give a polynomial in r alone (the paper's Eq. 1 form; here of
 * degree 4) but adds the roots of the other sign of z_m: G keeps only the
 * visible, upper side of the sphere.  Everything is double precision with
 * + - * / and sqrt only, which C and CUDA round the same way (no
 * contraction), so both backends get the same bits.
 */
#ifndef CO_OMNI_MIRROR_H
#define CO_OMNI_MIRROR_H

#include "co_frame.h"
#include "omni_math.h"
#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct
{
  double R, h, f;
} CoMirror;

#define CO_MIRROR_MAX_ITER 50

/* The largest image radius that still sees the mirror (its limb). */
CO_HD double
co_mirror_limb (const CoMirror * m)
{
  return m->f * m->R / sqrt (m->h * m->h - m->R * m->R);
}

/* Image radius (pixels) to the mirror point (*mr, *mz) and the direction
 * (*dr, *dz) of the world ray it sees; 0 beyond the limb. */
CO_HD int
co_mirror_ray (const CoMirror * m, double rho_i, double *mr, double *mz,
    double *dr, double *dz)
{
  double cx = rho_i / m->f, cz = -1.0;  /* camera ray direction */
  double d2 = cx * cx + cz * cz, cd = m->h * cz;
  double disc = cd * cd - d2 * (m->h * m->h - m->R * m->R);
  double s, nx, nz, dn;

  if (disc < 0.0)
    return 0;
  s = (-cd - sqrt (disc)) / d2;
  *mr = s * cx;
  *mz = m->h + s * cz;
  nx = *mr / m->R;
  nz = *mz / m->R;
  dn = cx * nx + cz * nz;
  *dr = cx - 2.0 * dn * nx;
  *dz = cz - 2.0 * dn * nz;
  return 1;
}

/* Eq. 2: the image radius of mirror point r (on the upper side). */
CO_HD double
co_mirror_image_radius (const CoMirror * m, double r)
{
  double zm = sqrt (m->R * m->R - r * r);
  return m->f * r / (m->h - zm);
}

CO_HD double
co_mirror_g (const CoMirror * m, double r, double pw, double zw, double *dg)
{
  double R2 = m->R * m->R, zm = sqrt (R2 - r * r);
  double k = R2 * pw + 2.0 * m->h * zw * r;

  *dg = 4.0 * m->h * pw * r - R2 * (m->h + zw) - (r / zm) * k +
      zm * 2.0 * m->h * zw;
  return 2.0 * m->h * pw * r * r - R2 * (m->h + zw) * r - R2 * m->h * pw +
      zm * k;
}

/* The mirror point's r for world point (pw, zw), Newton from *r (a
 * neighbour's solution: the paper's initial-guess propagation).  Returns
 * the iterations taken, or -1 when it did not converge to a visible point
 * (*r is then left as it was). */
CO_HD int
co_mirror_solve (const CoMirror * m, double pw, double zw, double *r)
{
  double x = *r, hi = m->R * (1.0 - 1e-12);

  if (!(x > 0.0 && x < m->R))
    x = 0.5 * m->R;
  int it;

  for (it = 1; it <= CO_MIRROR_MAX_ITER; it++) {
    double dg, g = co_mirror_g (m, x, pw, zw, &dg), nx;
    if (dg == 0.0 || g != g)
      return -1;
    nx = x - g / dg;
    nx = nx < 1e-12 ? 1e-12 : nx > hi ? hi : nx;
    if (fabs (nx - x) <= 1e-10 * m->R) {
      /* a root is an image point only if the camera sees that side of the
       * sphere and the world point lies ahead on the reflected ray */
      double zm = sqrt (m->R * m->R - nx * nx);
      double vr = -nx, vz = m->h - zm;  /* to the camera */
      double nr = nx / m->R, nz = zm / m->R, vn = vr * nr + vz * nz;
      double dr = 2.0 * vn * nr - vr, dz = 2.0 * vn * nz - vz;
      if (vn <= 0.0 || (pw - nx) * dr + (zw - zm) * dz <= 0.0 ||
          pw * pw + zw * zw <= m->R * m->R)
        return -1;
      *r = nx;
      return it;
    }
    x = nx;
  }
  return -1;
}

/* Where the ray seen at image radius rho_i meets the cylinder rho = D:
 * its height *z and the mirror point's *r; 0 when it never does. */
CO_HD int
co_mirror_cylinder_z (const CoMirror * m, double D, double rho_i, double *z,
    double *r)
{
  double mr, mz, dr, dz, t;

  if (!co_mirror_ray (m, rho_i, &mr, &mz, &dr, &dz) || dr <= 0.0)
    return 0;
  t = (D - mr) / dr;
  *z = mz + t * dz;
  *r = mr;
  return 1;
}

/* Where the ray seen at image radius rho_i meets the ground, the plane
 * z = G on the camera's side of the mirror (G > R): the distance *rho from
 * the axis and the mirror point's *r; 0 when the ray goes up from it (at
 * or above the horizon) or never leaves the mirror. */
CO_HD int
co_mirror_ground_rho (const CoMirror * m, double G, double rho_i,
    double *rho, double *r)
{
  double mr, mz, dr, dz;

  if (!co_mirror_ray (m, rho_i, &mr, &mz, &dr, &dz) || dz <= 0.0)
    return 0;
  *rho = mr + (G - mz) / dz * dr;
  *r = mr;
  return 1;
}

/* The viewing window of a mirror projection and how each cell is solved:
 * written once for the host tables and the device solve, so both give the
 * same radii bit for bit.  The window runs from w0 (t = 0, the panel's
 * top) to w1 (t = 1): heights z for the cylinder and the cuboid, distances
 * from the axis on the ground plane for `ground`; r0 and r1 are the mirror
 * points seen there (closed form), the start of every Newton solve. */
typedef struct
{
  CoMirror m;
  double w0, w1;
  double r0, r1;
  double ys;                    /* plane-distance: the surface's distance
                                 * from the axis, or the ground's from the
                                 * sphere's centre along it */
  int32_t propagate;            /* 1: the paper's guesses, each row from the
                                 * row above (column by column); 0: every
                                 * cell on its own from its window point */
} CoOmniRows;

/* The image radius of the point at distance @pw from the axis and height
 * @zw, Newton from *root (the caller's guess); 0 when it does not
 * converge (*rho is then NaN: no source pixel). */
CO_HD int
co_omni_solve_point (const CoOmniRows * s, double pw, double zw,
    double *root, float *rho)
{
  if (co_mirror_solve (&s->m, pw, zw, root) < 0) {
    *rho = NAN;
    return 0;
  }
  *rho = (float) co_mirror_image_radius (&s->m, *root);
  return 1;
}

/* Cylinder and cuboid: the cell at distance @ax from a face's centre line
 * (0 for the cylinder) in the row at @t.  Outside the window *rho is NaN
 * and that is not a failure.  With *root < 0 the solve starts from the
 * window's mirror points interpolated at t, else from *root. */
CO_HD int
co_omni_solve_cell (const CoOmniRows * s, double ax, float t, double *root,
    float *rho)
{
  if (!co_omni_inside (t)) {
    *rho = NAN;
    return 1;
  }
  if (*root < 0.0)
    *root = s->r0 + (s->r1 - s->r0) * (double) t;
  return co_omni_solve_point (s, sqrt (s->ys * s->ys + ax * ax),
      s->w0 + (s->w1 - s->w0) * (double) t, root, rho);
}

/* Solves the whole table of @n_ax columns (distances @ax) by @height rows
 * (plane @scale times smaller than the output) on the device
 * (kernels/omni.cu): a thread per cell, or with s->propagate a thread per
 * column going down, each row from the row above; the host solves the
 * same way.  Sets *dev_fail (device memory) when a cell does not converge.
 * Returns a cudaError_t. */
int co_omni_solve_cuda (const CoOmniRows * s, const CoOmniView * v,
    const double *ax, int n_ax, int height, float scale, float *rho,
    int *dev_fail, void *stream);

/* `ground`: the map entry (c, r) of a plane @scale times smaller, solved on
 * its own (no two pixels share a distance once the view turns).  The
 * panel's (s, t) is a point of the ground plane, in world units
 * s->w0 / ((1 - anchor_t) ph) per output pixel, along the panel's right
 * and down directions from the axis; its distance is solved for the
 * mirror point, whose image radius is taken along the same direction from
 * the centre.  Returns 0 when a point inside the window does not
 * converge. */
CO_HD int
co_omni_ground_px (const CoOmniView * v, const CoOmniRows * s, int c, int r,
    float scale, float *x, float *y, int pitch)
{
  int pr, k;
  float t = co_omni_t (v, ((float) r + 0.5f) * scale - 0.5f, &pr);
  float sx = co_omni_s (v, ((float) c + 0.5f) * scale - 0.5f, pr, &k);
  double unit = s->w0 / ((1.0 - (double) v->anchor_t) * (double) v->ph);
  double a = ((double) sx - 0.5) * (double) v->pw * unit;
  double b = ((double) t - (double) v->anchor_t) * (double) v->ph * unit;
  double gx = a * (double) v->right[k][0] + b * (double) v->down[k][0];
  double gy = a * (double) v->right[k][1] + b * (double) v->down[k][1];
  double pw = sqrt (gx * gx + gy * gy), root, lo, hi;
  float rho = NAN, *px = &x[(size_t) r * pitch + c];
  int ok = 1;

  lo = s->w0 < s->w1 ? s->w0 : s->w1;
  hi = s->w0 < s->w1 ? s->w1 : s->w0;
  if (pw >= lo && pw <= hi) {
    root = s->r0 + (s->r1 - s->r0) * ((pw - s->w0) / (s->w1 - s->w0));
    ok = co_omni_solve_point (s, pw, s->ys, &root, &rho);
  }
  if (rho != rho) {
    *px = y[(size_t) r * pitch + c] = NAN;
    return ok;
  }
  if (pw > 0.0) {
    gx = (double) rho * gx / pw;
    gy = (double) rho * gy / pw;
  }
  *px = ((float) ((double) v->cx + gx) + 0.5f) / scale - 0.5f;
  y[(size_t) r * pitch + c] = ((float) ((double) v->cy + gy) + 0.5f) / scale
      - 0.5f;
  return ok;
}

/* The ground map of a plane on the device, a thread per pixel; sets
 * *dev_fail when a point does not converge.  Returns a cudaError_t. */
int co_omni_ground_cuda (const CoOmniView * v, const CoOmniRows * s,
    int width, int height, float scale, float *x, float *y, int pitch,
    int *dev_fail, void *stream);

#ifdef __cplusplus
}
#endif
#endif
