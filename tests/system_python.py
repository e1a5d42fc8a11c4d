# cudaoptics — LGPL-2.1-or-later
"""The tests' Python modules come from the distribution (python3-gi,
python3-opencv): where another python3 (pyenv, a venv) comes first on PATH
and lacks them, run the script again under the system's."""
import importlib
import os
import sys


def require(*modules):
    """Imports @modules; without them, re-executes the script under
    /usr/bin/python3 when that is another interpreter, else returns False."""
    try:
        for m in modules:
            importlib.import_module(m)
        return True
    except ImportError:
        if os.path.exists("/usr/bin/python3") and \
                os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        return False
