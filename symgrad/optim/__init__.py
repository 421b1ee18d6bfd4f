"""``symgrad.optim``: PyTorch's optimizers and learning-rate schedulers.

Each update follows PyTorch's single-tensor (``foreach=False``) float32 arithmetic in the same
order of operations, so a run from the same initial weights follows PyTorch's losses.
"""

from symgrad.optim import lr_scheduler, swa_utils
from symgrad.optim.adadelta import Adadelta
from symgrad.optim.adafactor import Adafactor
from symgrad.optim.adagrad import Adagrad
from symgrad.optim.adam import Adam, AdamW
from symgrad.optim.adamax import Adamax
from symgrad.optim.asgd import ASGD
from symgrad.optim.lbfgs import LBFGS
from symgrad.optim.muon import Muon
from symgrad.optim.nadam import NAdam
from symgrad.optim.optimizer import Optimizer
from symgrad.optim.radam import RAdam
from symgrad.optim.rmsprop import RMSprop
from symgrad.optim.rprop import Rprop
from symgrad.optim.sgd import SGD
from symgrad.optim.sparse_adam import SparseAdam

__all__ = ["ASGD", "LBFGS", "SGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW",
           "Adamax", "Muon", "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SparseAdam",
           "lr_scheduler", "swa_utils"]
