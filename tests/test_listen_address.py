"""`python app.py` listens on loopback on a developer's machine, on every interface on a Space,
and wherever GRADIO_SERVER_NAME says."""

from __future__ import annotations

from space_app.config import listen_address


def test_a_developer_machine_listens_on_loopback_only():
    assert listen_address({}) == "127.0.0.1"


def test_a_space_listens_on_every_interface():
    assert listen_address({"SPACE_ID": "someone/arena"}) == "0.0.0.0"


def test_the_operator_names_the_address():
    assert listen_address({"GRADIO_SERVER_NAME": "0.0.0.0"}) == "0.0.0.0"
    assert listen_address({"GRADIO_SERVER_NAME": "10.0.0.5", "SPACE_ID": "someone/arena"}) == "10.0.0.5"
    assert listen_address({"GRADIO_SERVER_NAME": " "}) == "127.0.0.1"
