"""Record what PyTorch does in the cases of a test module that compares symgrad with it.

    python tools/record_torch_cases.py tests/test_hot_path_parity.py    # its DATA file
    python tools/record_torch_cases.py tests/test_scalar_arguments.py

Needs torch. The module defines ``DATA`` (the file to write: JSON, gzipped when it ends with
``.gz``) and ``record_all(library)``, which runs every case with the library given (here
``torch`` in place of symgrad) and writes down what happened; the test then runs the same cases
on symgrad without torch.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main() -> None:
    import torch

    path = pathlib.Path(sys.argv[1]).resolve()
    sys.path.insert(0, str(ROOT))  # the module imports this checkout's symgrad
    sys.path.insert(0, str(path.parent))  # and its neighbours (tests/torch_cases.py)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    recorded = module.record_all(torch)
    data = pathlib.Path(module.DATA)
    if data.suffix == ".gz":
        text = json.dumps(recorded, sort_keys=True, separators=(",", ":"))
        with gzip.GzipFile(data, "wb", mtime=0) as f:
            f.write(text.encode())
    else:
        data.write_text(json.dumps(recorded, sort_keys=True, indent=0) + "\n")
    print(f"{len(recorded)} cases recorded with torch {torch.__version__} into {data.name} "
          f"({data.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
