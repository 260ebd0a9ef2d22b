"""Derives the constants of src/include/ccgym/fastmath.h (run with mpmath; the
output is pasted into the header).

- pi/2 split into three doubles for Cody-Waite reduction: the first two hold
  33 significant bits each, so k * part is exact for |k| < 2**20.
- Near-minimax polynomials on |r| <= pi/4 (z = r*r), fitted by Chebyshev
  interpolation in z at 80 digits and rounded to double:
    sin r = r + r*z*P(z)            P ~ (sin r - r) / r**3
    cos r = 1 - z/2 + z*z*Q(z)      Q ~ (cos r - 1 + z/2) / z**2
"""
import mpmath as mp

mp.mp.dps = 80


def split(value, parts, bits):
    out = []
    rest = value
    for i in range(parts):
        if i == parts - 1:
            out.append(float(rest))
            break
        e = mp.floor(mp.log(abs(rest), 2))
        scale = mp.mpf(2) ** (bits - 1 - e)
        head = mp.floor(rest * scale) / scale
        out.append(float(head))
        rest -= head
    return out


def fit(f, degree):
    zmax = (mp.pi / 4) ** 2
    coeffs, err = mp.chebyfit(f, [mp.mpf(10) ** -8, zmax], degree + 1, error=True)
    coeffs = [float(c) for c in reversed(coeffs)]  # lowest order first, doubles
    worst = max(abs(f(z) - sum(mp.mpf(c) * z ** i for i, c in enumerate(coeffs)))
                for z in mp.linspace(mp.mpf(10) ** -8, zmax, 2000))
    return coeffs, worst


def sin_p(z):
    r = mp.sqrt(z)
    return (mp.sin(r) - r) / r ** 3


def cos_q(z):
    return (mp.cos(mp.sqrt(z)) - 1 + z / 2) / z ** 2


if __name__ == "__main__":
    print("two_over_pi", float(2 / mp.pi).hex())
    for p in split(mp.pi / 2, 3, 33):
        print("pio2 part", p.hex(), repr(p))
    for name, f in (("sin P", sin_p), ("cos Q", cos_q)):
        coeffs, worst = fit(f, 5)
        print(name, "max abs error", mp.nstr(worst, 3))
        for c in coeffs:
            print("   ", c.hex(), repr(c))
