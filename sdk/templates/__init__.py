"""Files `python -m sdk new-agent` renders into a new Space folder (see sdk/scaffold.py).

They use `string.Template` placeholders (`$name`); a literal dollar sign is `$$`.
This folder is a package only so that the templates ship with the SDK.
"""
