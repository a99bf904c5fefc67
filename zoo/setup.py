"""keras-sentemb-zoo builds outside its source folder: `pip install ./zoo` (from a clone) leaves no
`build/` (a 57 MB copy of the artifacts) and no `*.egg-info` in it. Everything else is in pyproject.toml."""

import atexit
import shutil
import tempfile

from setuptools import setup
from setuptools.command.build import build
from setuptools.command.build_py import build_py
from setuptools.command.egg_info import egg_info

SCRATCH = tempfile.mkdtemp(prefix="keras-sentemb-zoo-build-")
atexit.register(shutil.rmtree, SCRATCH, True)


class BuildInScratch(build):
    def initialize_options(self):
        super().initialize_options()
        self.build_base = SCRATCH


class EggInfoInScratch(egg_info):
    def initialize_options(self):
        super().initialize_options()
        self.egg_base = SCRATCH


class PackageWithoutThisFile(build_py):
    """The package is this folder (`package-dir = "."`): this file is how it builds, not part of it."""

    def find_package_modules(self, package, package_dir):
        return [entry for entry in super().find_package_modules(package, package_dir) if entry[1] != "setup"]


setup(cmdclass={"build": BuildInScratch, "egg_info": EggInfoInScratch, "build_py": PackageWithoutThisFile})
