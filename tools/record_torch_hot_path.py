"""Record what PyTorch does in the cases of tests/test_hot_path_parity.py.

    python tools/record_torch_hot_path.py     # rewrite tests/data/torch_hot_path.json.gz

Needs torch: every case of the module's ``CASES`` runs with ``torch`` in place of symgrad and
the module's own ``describe`` writes down what happened (value, dtype, graph, gradients,
errors); the test then runs the same cases on symgrad without torch.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODULE = ROOT / "tests" / "test_hot_path_parity.py"


def main() -> None:
    import torch

    sys.path.insert(0, str(ROOT))  # the module imports this checkout's symgrad
    spec = importlib.util.spec_from_file_location("hot_path_parity", MODULE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    recorded = module.record_all(torch)
    text = json.dumps(recorded, sort_keys=True, separators=(",", ":"))
    with gzip.GzipFile(module.DATA, "wb", mtime=0) as f:
        f.write(text.encode())
    print(f"{len(recorded)} cases recorded with torch {torch.__version__} "
          f"({module.DATA.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
