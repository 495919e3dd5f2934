"""np.fft."""
