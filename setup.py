"""Builds the native module of the Python package with CMake (pyproject.toml).

The extension deltacommit._deltacommit is the CMake target deltacommit_python
(python/CMakeLists.txt) over the C++ library, built in a CMake build folder
of its own (or DELTACOMMIT_PY_BUILD_DIR, kept between builds), with ccache
when it is installed, and copied into the wheel with DuckDB's shared library
beside it (the module finds it through its RPATH, $ORIGIN).

Environment:
  DELTACOMMIT_CMAKE_ARGS   more CMake arguments, split as a shell would
  DELTACOMMIT_PY_BUILD_DIR the CMake build folder (default: under build/)
  DUCKDB_ROOT              DuckDB's folder (default: .deps/duckdb, fetched
                           by scripts/fetch-duckdb.sh when missing)
  CMAKE_BUILD_PARALLEL_LEVEL  parallel compile jobs (default: the cores)
"""

import glob
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("DELTACOMMIT_PY_BUILD_DIR") or os.path.join(
            ROOT, "build", "python-wheel")
        duckdb_root = os.environ.get("DUCKDB_ROOT") or os.path.join(ROOT, ".deps", "duckdb")
        if not os.environ.get("DUCKDB_ROOT") and not os.path.exists(
                os.path.join(duckdb_root, "lib", "libduckdb.so")):
            subprocess.check_call(["bash", os.path.join(ROOT, "scripts", "fetch-duckdb.sh")])
        args = [
            "-S", ROOT, "-B", build_dir,
            "-DCMAKE_BUILD_TYPE=Release",
            "-DDELTACOMMIT_BUILD_PYTHON=ON",
            "-DDELTACOMMIT_BUILD_TESTS=OFF",
            "-DDELTACOMMIT_BUILD_BENCH=OFF",
            "-DCMAKE_BUILD_WITH_INSTALL_RPATH=ON",
            f"-DPython_EXECUTABLE={sys.executable}",
            f"-DDUCKDB_ROOT={duckdb_root}",
        ]
        env = dict(os.environ)
        if shutil.which("ccache") and "CMAKE_CXX_COMPILER_LAUNCHER" not in env:
            # As scripts/build.sh: keyed on paths relative to the checkout,
            # so this build reuses what another build of the same flags compiled.
            env.update(CCACHE_BASEDIR=ROOT, CCACHE_NOHASHDIR="true")
            args.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        args += shlex.split(os.environ.get("DELTACOMMIT_CMAKE_ARGS", ""))
        subprocess.check_call(["cmake", *args], env=env)
        jobs = env.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.check_call(
            ["cmake", "--build", build_dir, "--target", "deltacommit_python", "-j", jobs], env=env)
        built = glob.glob(os.path.join(build_dir, "python", "deltacommit", "_deltacommit*.so"))
        if len(built) != 1:
            raise RuntimeError(f"expected one native module in {build_dir}, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)
        duckdb = os.path.realpath(os.path.join(duckdb_root, "lib", "libduckdb.so"))
        if not os.path.exists(duckdb):
            duckdb = os.path.realpath(os.path.join(duckdb_root, "libduckdb.so"))
        shutil.copyfile(duckdb, os.path.join(os.path.dirname(target), "libduckdb.so"))


setup(ext_modules=[CMakeExtension("deltacommit._deltacommit")], cmdclass={"build_ext": CMakeBuild})
