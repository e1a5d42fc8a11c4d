#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
#
# Draws cudaomniunwrap's mirror geometry as an SVG, from the same model the
# element uses (kernels/omni_mirror.h, re-stated here in Python): the
# spherical mirror (mirror-radius R), the camera's projection centre at
# mirror-distance h above its centre, the rays seen at inner-radius and
# outer-radius (image radii, pixels at focal-length f) reflected onto the
# projection surface at plane-distance from the axis, and the viewing window
# they cut there; and the floor of projection=ground, its plane-distance
# measured along the axis, with a ray seen near the image's centre meeting
# it.  Which property is which length, in one picture.
#
#   python3 pipelines/omni-diagram.py OUT.svg [R h f plane-distance inner outer
#                                              ground-distance ground-radius]
import math
import sys


def ray(R, h, f, rho_i):
    """Mirror point and reflected direction seen at image radius rho_i."""
    cx, cz = rho_i / f, -1.0
    d2 = cx * cx + cz * cz
    cd = h * cz
    disc = cd * cd - d2 * (h * h - R * R)
    s = (-cd - math.sqrt(disc)) / d2
    mx, mz = s * cx, h + s * cz
    nx, nz = mx / R, mz / R
    dn = cx * nx + cz * nz
    return (mx, mz), (cx - 2 * dn * nx, cz - 2 * dn * nz)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "omni-geometry.svg"
    R, h, f, D, r_in, r_out, G, r_g = (float(v) for v in sys.argv[2:10]) \
        if len(sys.argv) >= 10 else (30.0, 150.0, 800.0, 100.0, 40.0, 155.0,
                                     260.0, 30.0)
    ends = []
    for rho in (r_in, r_out):
        (mx, mz), (dx, dz) = ray(R, h, f, rho)
        t = (D - mx) / dx
        ends.append(((mx, mz), (D, mz + t * dz)))
    # fit the mirror, the camera and the window on the page
    (gmx, gmz), (gdx, gdz) = ray(R, h, f, r_g)
    ground_end = (gmx + (G - gmz) / gdz * gdx, G)
    zs = [-R, h, G] + [e[1][1] for e in ends]
    zlo, zhi = min(zs) - 0.1 * (max(zs) - min(zs)), max(zs) + 0.12 * (
        max(zs) - min(zs))
    W, H = 960, 680
    scale = min((H - 80) / (zhi - zlo), (W - 420) / (D + R))
    ox, oy = 60 + R * scale + 150, 40 - zlo * scale

    # drawn as mounted: the mirror above, the camera looking up at it, the
    # floor below (the model's z grows towards the camera)
    def P(x, z):
        return ox + x * scale, oy + z * scale

    s = []
    a = s.append
    a(f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
      f'font-family="sans-serif" font-size="15">')
    a(f'<rect width="{W}" height="{H}" fill="white"/>')
    a('<defs><marker id="a" markerWidth="8" markerHeight="8" refX="7" '
      'refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#444"/>'
      '</marker></defs>')
    # the optical axis and the mirror
    x0, y0 = P(0, zhi)
    x1, y1 = P(0, zlo)
    a(f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="#999" '
      'stroke-dasharray="6 4"/>')
    cxp, czp = P(0, 0)
    a(f'<circle cx="{cxp}" cy="{czp}" r="{R * scale}" fill="#dde8f4" '
      'stroke="#2a5d9f" stroke-width="2"/>')
    # R
    rx, rz = P(R * math.cos(math.radians(200)), R * math.sin(math.radians(200)))
    a(f'<line x1="{cxp}" y1="{czp}" x2="{rx}" y2="{rz}" stroke="#2a5d9f" '
      'marker-end="url(#a)"/>')
    a(f'<text x="{cxp - R * scale - 150}" y="{czp - R * scale - 10}" '
      'fill="#2a5d9f">mirror-radius R</text>')
    # the camera and h
    kx, kz = P(0, h)
    a(f'<circle cx="{kx}" cy="{kz}" r="6" fill="black"/>')
    a(f'<text x="{kx + 12}" y="{kz + 20}">camera projection centre '
      f'(focal-length f = {f:g} px)</text>')
    hx = kx - R * scale - 30
    a(f'<line x1="{hx}" y1="{czp}" x2="{hx}" y2="{kz}" stroke="#444" '
      'marker-end="url(#a)" marker-start="url(#a)"/>')
    a(f'<text x="{hx - 140}" y="{(czp + kz) / 2}">mirror-distance h</text>')
    # the projection surface at plane-distance
    px0, py0 = P(D, zhi)
    px1, py1 = P(D, zlo)
    a(f'<line x1="{px0}" y1="{py0}" x2="{px1}" y2="{py1}" stroke="#777" '
      'stroke-width="2"/>')
    a(f'<text x="{px0 + 8}" y="{py1 + 18}">projection surface (cylinder '
      'or cuboid plane)</text>')
    dx_, dz_ = P(D, zlo + 0.02 * (zhi - zlo))
    a(f'<line x1="{cxp}" y1="{dz_}" x2="{dx_}" y2="{dz_}" stroke="#444" '
      'marker-end="url(#a)"/>')
    a(f'<text x="{cxp + 20}" y="{dz_ - 6}">plane-distance</text>')
    # the two rays: camera -> mirror -> surface
    for (m, e), name, col in zip(ends, ("inner-radius", "outer-radius"),
                                 ("#c0392b", "#27ae60")):
        mx, mz = P(*m)
        ex, ez = P(*e)
        a(f'<polyline points="{kx},{kz} {mx},{mz} {ex},{ez}" fill="none" '
          f'stroke="{col}" stroke-width="2"/>')
        a(f'<text x="{ex + 8}" y="{ez + 5}" fill="{col}">seen at {name} '
          f'(image radius, px)</text>')
    (_, (_, za)), (_, (_, zb)) = ends
    wx, wa = P(D, za)
    _, wb = P(D, zb)
    a(f'<line x1="{wx}" y1="{wa}" x2="{wx}" y2="{wb}" stroke="#f39c12" '
      'stroke-width="7" stroke-opacity="0.6"/>')
    a(f'<text x="{wx + 10}" y="{(wa + wb) / 2}" fill="#b9770e">viewing '
      f'window: the panorama\'s {int(abs(za - zb))} rows (outer-radius\'s '
      'edge on top)</text>')
    # the floor (projection=ground): plane-distance along the axis
    gx0, gy0 = P(-R, G)
    gx1, gy1 = P(D, G)
    a(f'<line x1="{gx0}" y1="{gy0}" x2="{gx1}" y2="{gy1}" stroke="#8e44ad" '
      'stroke-width="2" stroke-dasharray="10 5"/>')
    a(f'<text x="{gx0}" y="{gy0 + 20}" fill="#8e44ad">ground (projection='
      'ground): plane-distance from the sphere\'s centre</text>')
    mx, mz = P(gmx, gmz)
    ex, ez = P(*ground_end)
    a(f'<polyline points="{kx},{kz} {mx},{mz} {ex},{ez}" fill="none" '
      'stroke="#8e44ad" stroke-width="1.5"/>')
    a(f'<text x="{ex + 8}" y="{ez - 8}" fill="#8e44ad">seen at image radius '
      f'{r_g:g} px</text>')
    a(f'<text x="20" y="{H - 20}" fill="#555">R={R:g} h={h:g} f={f:g} '
      f'plane-distance={D:g} inner-radius={r_in:g} outer-radius={r_out:g}; '
      f'ground at {G:g}</text>')
    a('</svg>')
    with open(out, "w") as fh:
        fh.write("\n".join(s) + "\n")


if __name__ == "__main__":
    main()
