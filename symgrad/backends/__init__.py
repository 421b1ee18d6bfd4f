"""``symgrad.backends``: PyTorch's switches for the libraries it computes with (cuDNN, CUDA,
MPS, MKL, oneDNN, OpenMP, opt_einsum), for scripts that set or ask them. symgrad computes
with numpy on the CPU and uses none of them: every ``is_available()`` answers False, and
the flags (``cudnn.benchmark``, ``cudnn.deterministic``, ``cuda.matmul.allow_tf32`` ...) take
and keep what is set, with PyTorch's defaults, without changing any number.

>>> import symgrad.backends.cudnn as cudnn
>>> cudnn.benchmark = True  # (as a training script writes it)
>>> symgrad.backends.cudnn.is_available(), symgrad.backends.mps.is_available()
(False, False)
>>> cudnn.benchmark = False
"""

from symgrad.backends import cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum

__all__ = ["cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp", "opt_einsum"]
