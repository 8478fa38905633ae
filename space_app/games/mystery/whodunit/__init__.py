"""Import the WhodunitBench release (one folder per script: env_p_all.json and img/) into the
project's murder-mystery script format: `python -m space_app import-whodunit DIR OUT`.
The mapping and its choices: docs/script-format.md, "Importing WhodunitBench"."""

from .command import import_release, main, release_folders, script_id_for
from .convert import RELEASE_FILE, convert
from .report import ImportReport, Refused

__all__ = ["RELEASE_FILE", "ImportReport", "Refused", "convert", "import_release", "main", "release_folders",
           "script_id_for"]
