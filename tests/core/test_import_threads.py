"""Threads of a fresh process that import a package and one of its modules at once do not
deadlock: ``envs/__init__.py`` and ``training/__init__.py`` import none of their own modules
(the registry's code lives in ``envs/__init__.py``; the Gymnasium ids' entry points are
strings).

Python takes a module's import lock before it imports the module's package. When the package's
``__init__`` imports one of its modules, a thread importing the package (holding its lock,
waiting for the module's) and a thread importing a module (holding that one's lock, waiting for
the package's) deadlock, and Python raises ``_DeadlockError`` in one of them. Old: each pair
below but ``envs.octi_v0`` failed so every time; plain threads importing six ``training``
modules at once failed so in each of 20 fresh processes, and a mix of ``envs``, ``training``
and their modules in 9 of 10. (Gymnasium's own modules imported at once by threads fail in
most fresh processes, with no eightfold module involved: import it before starting threads.)"""

from __future__ import annotations

import subprocess
import sys

import pytest

#: one thread imports the package, slowed after it takes the package's lock and before it makes
#: the module (its loader's ``create_module``), so that the other thread, importing a module of
#: it, takes that module's lock and then waits for the package's; a finder itself would not do,
#: as Python runs finders under its global import lock
SCRIPT = """
import importlib, sys, threading, time

package, module = sys.argv[1], sys.argv[2]

class SlowLoader:
    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        time.sleep(0.5)
        return None  # the usual module

    def exec_module(self, module):
        self.loader.exec_module(module)

class SlowPackage:
    def find_spec(self, name, path=None, target=None):
        if name != package or threading.current_thread().name != "package":
            return None
        for finder in sys.meta_path[1:]:
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                spec.loader = SlowLoader(spec.loader)
                return spec
        return None

sys.meta_path.insert(0, SlowPackage())
failed = []

def load(name):
    try:
        importlib.import_module(name)
    except BaseException as exc:
        failed.append(f"{name}: {type(exc).__name__}: {exc}")

first = threading.Thread(target=load, args=(package,), name="package")
second = threading.Thread(target=load, args=(module,), name="module")
first.start()
time.sleep(0.1)
second.start()
first.join()
second.join()
print(failed or "ok")
"""


@pytest.mark.parametrize(
    ("package", "module"),
    [
        ("envs", "envs.core.game"),
        ("envs", "envs.core.registry"),
        ("envs", "envs.octi_v0"),
        ("training", "training.players"),
        ("training", "training.single_agent"),
    ],
)
def test_a_package_and_its_module_imported_at_once_by_two_threads(package: str, module: str) -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, package, module], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0 and out.stdout == "ok\n", (out.stdout, out.stderr)
