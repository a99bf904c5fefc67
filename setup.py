"""keras-sentemb builds outside its clone: `pip install ./keras-sentemb` (or `python -m build`) leaves no
`build/` and no `*.egg-info` in it (the zoo's setup.py does the same). All metadata lives in setup.cfg."""

import atexit
import shutil
import tempfile

from setuptools import setup
from setuptools.command.build import build
from setuptools.command.egg_info import egg_info

SCRATCH = tempfile.mkdtemp(prefix="keras-sentemb-build-")
atexit.register(shutil.rmtree, SCRATCH, True)


class BuildInScratch(build):
    def initialize_options(self):
        super().initialize_options()
        self.build_base = SCRATCH


class EggInfoInScratch(egg_info):
    def initialize_options(self):
        super().initialize_options()
        self.egg_base = SCRATCH


setup(cmdclass={"build": BuildInScratch, "egg_info": EggInfoInScratch})
