"""``symgrad.optim``: PyTorch's optimizers and learning-rate schedulers.

Each update follows PyTorch's single-tensor (``foreach=False``) float32 arithmetic in the same
order of operations, so a run from the same initial weights follows PyTorch's losses.
"""

from symgrad.optim import lr_scheduler
from symgrad.optim.adagrad import Adagrad
from symgrad.optim.adam import Adam, AdamW
from symgrad.optim.optimizer import Optimizer
from symgrad.optim.rmsprop import RMSprop
from symgrad.optim.sgd import SGD

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
