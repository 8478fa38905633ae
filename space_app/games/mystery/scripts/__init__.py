"""The murder-mystery script format: the models of `script.json` and the schema written from
them (`script.py`), and the checker that names every problem of a script folder by file and
key (`validate.py`, `problems.py`). Documented in docs/script-format.md."""
