"""Packaging hook: the wheel carries the tuned training configs.

Everything else is in ``pyproject.toml``. The configs live at the top level (``configs/``),
outside the ``training`` package, so a plain ``pip install .`` (or a wheel) would leave them
behind and ``eightfold train <game>`` would fall back to the bare defaults. ``build_py`` copies
them into the built package as ``training/configs/``, where :mod:`training.config` finds them
when there is no source checkout around it. An editable install reads ``configs/`` itself.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithConfigs(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "training" / "configs"
        self.mkpath(str(target))
        for stale in target.glob("*.yaml"):  # a config renamed or removed since the last build
            stale.unlink()
        for src in sorted(Path(__file__).resolve().parent.joinpath("configs").glob("*.yaml")):
            self.copy_file(str(src), str(target / src.name))


if __name__ == "__main__":  # pip / build run this file as __main__; tests import the class alone
    setup(cmdclass={"build_py": BuildPyWithConfigs})
