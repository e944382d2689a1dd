"""Seeded smooth noise for the synthetic benchmark inputs (make-drg-sheets.py,
make-hillshade-sheets.py)."""
import numpy as np


def smooth(rng, shape, scale):
    """Gaussian-filtered white noise from `rng`, features about `scale` pixels across,
    normalised to mean 0 and standard deviation 1."""
    f = np.fft.rfft2(rng.standard_normal(shape))
    ky = np.fft.fftfreq(shape[0])[:, None]; kx = np.fft.rfftfreq(shape[1])[None, :]
    f *= np.exp(-(kx**2 + ky**2) * scale**2)
    a = np.fft.irfft2(f, s=shape); return (a - a.mean()) / a.std()
